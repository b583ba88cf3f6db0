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
