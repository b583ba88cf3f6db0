"""docs/commands.md, generated from the command line itself with typer's own Markdown generator
(the one `typer MODULE utils docs` runs), so the reference cannot drift from `--help`:

    python -m simcell.cli.reference > docs/commands.md

tests/test_docs.py fails when the checked-in file differs from what this prints."""

from __future__ import annotations

import click
import typer.main
from typer.cli import MARKUP_MODE_KEY, get_docs_for_click

from simcell.cli import app

TITLE = "simcell command reference"


def markdown() -> str:
    command = typer.main.get_command(app)
    ctx = click.Context(command, obj={MARKUP_MODE_KEY: app.rich_markup_mode})
    return get_docs_for_click(obj=command, ctx=ctx, name="simcell", title=TITLE).strip() + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
