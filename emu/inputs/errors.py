"""The error every reader of nowemu's inputs raises: the scenario's reading and checks (`emu.inputs.scenario`,
`emu.inputs.schema`, `emu.inputs.checks`) and the data files they read (`emu.inputs.owner_data`,
`emu.inputs.workload`'s traces). It lives apart from all of them so that those readers and the checks that call
them need not import each other."""


class ScenarioError(ValueError):
    """A scenario that cannot run: one line with the file, the field and what was expected."""
