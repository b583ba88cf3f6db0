"""`simcell tune`: card values (and, if asked, board values and rule switches) toward the bands,
fewest changes first, confirmed on fresh seeds. loop.py steps the cards, board.py searches
the board and rules, targets.py judges the designer's targets, report.py writes it all."""

from simcell.tools.tune.loop import run_tune
from simcell.tools.tune.report import build_tune

__all__ = ["build_tune", "run_tune"]
