"""`simcell probe`: what each card is worth to a player who goes for it. loop.py plays the
field's policy favouring each card in one seat, report.py ranks the cards by what that gains."""

from simcell.tools.probe.loop import run_probe
from simcell.tools.probe.report import build_probe

__all__ = ["build_probe", "run_probe"]
