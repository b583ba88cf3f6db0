"""`python -m simcell.cli`: the same command line as `simcell`."""

from simcell.cli import app

app(prog_name="simcell")
