"""The error every reader of nowemu's inputs raises: the scenario checks (`emu.inputs.scenario`) and the data
files they read (`emu.inputs.owner_data`, `emu.inputs.workload`'s traces). It lives apart from
`emu.inputs.scenario` so that those readers and the checks that call them need not import each other."""


class ScenarioError(ValueError):
    """A scenario that cannot run: one line with the file, the field and what was expected."""
