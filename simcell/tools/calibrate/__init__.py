"""`simcell calibrate`: what one more starting ATP is worth in win share and HP at each player
count. loop.py plays the config and each seat's +1 ATP, report.py writes the calibration
other tools read (calibration.json)."""

from simcell.tools.calibrate.loop import run_calibrate
from simcell.tools.calibrate.report import build_calibration

__all__ = ["build_calibration", "run_calibrate"]
