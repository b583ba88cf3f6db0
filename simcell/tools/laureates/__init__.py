"""What one Laureates visit is worth: the run's first deals played again with one player who
never places at the Laureates, against the run's own games (the report's Goals section reads
them, reports/laureates.py)."""

from simcell.tools.laureates.loop import run_laureates

__all__ = ["run_laureates"]
