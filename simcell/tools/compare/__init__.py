"""`simcell compare A B`: what a change does, B against A game by game, every figure with its
paired difference. loop.py plays two configs on one seed (or takes two run directories),
report.py writes the comparison."""

from simcell.tools.compare.loop import default_folder, run_compare
from simcell.tools.compare.report import build_compare, terminal_summary

__all__ = ["build_compare", "default_folder", "run_compare", "terminal_summary"]
