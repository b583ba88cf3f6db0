"""Designer units (docs/method.md): a `simcell calibrate` folder's measured ATP equivalent, read
by the compare, sweep and probe reports to state an effect as "about x ATP"."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from simcell.vocabulary import CALIBRATION_FILE


def load_calibration(folder: Path) -> dict[tuple[int, str], dict]:
    """(players, field) -> the calibration row; a folder without calibration.json is an error."""
    path = Path(folder) / CALIBRATION_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{folder} holds no {CALIBRATION_FILE}: make one with simcell calibrate")
    return {(r["players"], r["field"]): r for r in json.loads(path.read_text())["rows"]}


def in_atp(value: float, per_atp: float) -> str:
    """"≈ x ATP" for an effect, when the calibration's ATP is worth something measurable."""
    if not np.isfinite(value) or not np.isfinite(per_atp) or per_atp == 0:
        return ""
    return f"≈ {value / per_atp:+.1f} ATP"
