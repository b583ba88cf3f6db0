"""`python -m simcell`: the command line."""

from simcell.cli import app

app(prog_name="simcell")
