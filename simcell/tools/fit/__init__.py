"""`simcell fit`: a field's worths fitted by self-play until no deviation gains beyond the band.
loop.py runs the rounds on warm duplicate matches, report.py writes fitted.toml's report."""

from simcell.tools.fit.loop import run_fit
from simcell.tools.fit.report import build_fit, fit_sentences

__all__ = ["build_fit", "fit_sentences", "run_fit"]
