"""The error every reader of nowemu's inputs raises: the scenario's reading and checks (`emu.inputs.scenario`,
`emu.inputs.schema`, `emu.inputs.checks`) and the data files they read (`emu.inputs.owner_data`,
`emu.inputs.workload`'s traces). It lives apart from all of them so that those readers and the checks that call
them need not import each other."""
import re

PLAIN_COLUMN = re.compile(r"[A-Za-z_][A-Za-z0-9_ .-]{0,39}")


def found(header: list[str]) -> str:
    """What a data file's first line holds, for an error that a column is missing: its column names when they
    look like names; otherwise nothing of it, so that a wrong file (a system file named by mistake or on
    purpose) does not have its content printed."""
    if header and all(PLAIN_COLUMN.fullmatch(h) for h in header):
        return f"found: {', '.join(header)}"
    return "its first line is not a header of column names: is it the CSV file meant?"


class ScenarioError(ValueError):
    """A scenario that cannot run: one line with the file, the field and what was expected."""
