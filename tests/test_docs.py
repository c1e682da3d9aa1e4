"""docs/scenarios.md stays true: every field the loader accepts is documented (written in backticks, by its
full path or, inside a table's own section, by its path within that table)."""
from emu.inputs.schema import SCHEMA
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


def test_nothing_a_user_reads_points_outside_the_repository():
    """The project's own notes on each paper live outside the repository; what a user's clone holds (README,
    docs, scenarios) cites the papers themselves."""
    files = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "scenarios").rglob("*.toml")]
    outside = [str(f.relative_to(ROOT)) for f in files if "../shared" in f.read_text()]
    assert not outside, outside
