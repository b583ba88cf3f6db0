"""`simcell sweep`: one value (or a grid) varied on the same games, response curves with paired
intervals and zero crossings confirmed on fresh seeds. loop.py plays the variants, report.py
reads them."""

from simcell.tools.sweep.loop import run_sweep
from simcell.tools.sweep.report import build_sweep

__all__ = ["build_sweep", "run_sweep"]
