"""The `simcell` command line: thin typer commands over the Python front door (simcell.api), one
module a group (runs: validate, run, report; tools: the designer tools; studio; data: cards,
replay, warm); common.py holds what they share: one-line errors, the resume line after an
interrupt, and the options, each declared once."""

from simcell.cli.app import app

# the commands, in the order --help lists them
from simcell.cli import runs, tools, studio, data  # noqa: E402,F401

__all__ = ["app"]
