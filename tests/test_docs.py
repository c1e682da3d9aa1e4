"""docs/scenarios.md stays true: every field the loader accepts is documented (written in backticks, by its
full path or, inside a table's own section, by its path within that table)."""
from emu.scenario import SCHEMA
from tests.conftest import ROOT


def leaves(schema, prefix=""):
    for key, f in schema.items():
        if f.schema:
            yield from leaves(f.schema, prefix + key + ".")
        else:
            yield prefix + key


def test_every_scenario_field_is_documented():
    doc = (ROOT / "docs" / "scenarios.md").read_text()
    missing = [path for path in leaves(SCHEMA)
               if not any(f"`{name}`" in doc for name in (path, path.split(".", 1)[-1], path.rsplit(".", 1)[-1]))]
    assert not missing, missing
