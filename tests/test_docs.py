"""The project's own docs (front-door issue): the command reference is generated from the CLI
and kept in sync; every reference the project ships points inside the repository."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_the_command_reference_is_the_clis_own():
    """docs/commands.md is typer's Markdown of the CLI as it is (simcell/cli/reference.py): a help
    text changed without regenerating it fails here."""
    from simcell.cli.reference import markdown

    shipped = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert markdown() == shipped, ("docs/commands.md is out of date: regenerate it with "
                                   "python -m simcell.cli.reference > docs/commands.md")


def test_no_table_cell_over_600_characters():
    """A table a designer can read: no cell of a Markdown table the project ships runs past 600
    characters (a longer one belongs in prose below the table)."""
    import re

    pages = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    long = []
    for page in pages:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("|"):
                for cell in re.split(r"(?<!\\)\|", line.strip().strip("|")):
                    if len(cell.strip()) > 600:
                        long.append(f"{page.relative_to(ROOT)}:{n} ({len(cell.strip())} characters)")
    assert not long, "table cells over 600 characters: " + ", ".join(long)
