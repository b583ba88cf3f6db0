"""`simcell calibrate`: the config as it is and, for each seat in turn, the config with one more
starting ATP for that seat, all on the same games; the ATP equivalent is read from them by
tools/calibrate/report.py."""

from __future__ import annotations

import json
from pathlib import Path

from simcell.config.load import load_run_config
from simcell.config.variants import STARTING_ATP, base_config, write_variant
from simcell.vocabulary import CALIBRATE_FILE
from simcell.tools.calibrate.report import build_calibration
from simcell.tools import Plays


def run_calibrate(config: Path, folder: Path, plays: Plays, *, games: int | None = None,
                  seed: int | None = None) -> Path:
    rc = load_run_config(config)
    base = base_config(config)
    schedule = list(rc.game.board.starting_atp)
    variants: list[tuple[str, list]] = [("as-configured", [])]
    for s in range(max(plays.players or rc.players)):
        plus = schedule.copy()
        plus[s] += 1
        variants.append((f"seat{s}+1", [(STARTING_ATP, plus)]))
    roots = []
    for name, assignments in variants:
        plays.say(f"run {len(roots) + 1} of {len(variants)}: {name}")
        root = plays.into(write_variant(config, base, name, assignments, folder), folder / "runs" / name,
                          games, seed)
        roots.append(str(root.relative_to(folder)))
    (folder / CALIBRATE_FILE).write_text(json.dumps({"config": str(config), "baseline": roots[0],
                                                "seats": roots[1:]}, indent=1))
    return build_calibration(folder)
