"""`simcell ladder`: the bot ladder, how strong each policy is against the others. loop.py plays
every pairing and mixed pools on the same deals, report.py rates them (Plackett–Luce) with
intervals and the head-to-head table."""

from simcell.tools.ladder.loop import run_ladder
from simcell.tools.ladder.report import build_ladder, ladder_sentences

__all__ = ["build_ladder", "ladder_sentences", "run_ladder"]
