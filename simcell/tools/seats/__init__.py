"""`simcell seats`: why seats differ. causes.py names the causes switched off, search.py the
search for a starting-ATP schedule that makes seats fair, loop.py plays both, report.py reads
them."""

from simcell.tools.seats.loop import run_seats
from simcell.tools.seats.report import build_seats

__all__ = ["build_seats", "run_seats"]
