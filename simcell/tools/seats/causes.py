"""The causes of seat advantage `simcell seats` switches off: the config as it is, then each cause
alone, then all together, as changed values of the config (config/variants.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simcell.config.load import load_run_config
from simcell.config.variants import Setting

def seat_causes(config: Path) -> list[tuple[str, list[tuple[Setting, Any]]]]:
    """`simcell seats`: the config as it is, then each cause of seat advantage switched off alone,
    then all together (docs/config.md "Keys a designer reaches for", the seat levers)."""
    schedule = list(load_run_config(config).game.board.starting_atp)
    flat = [round(sum(schedule) / len(schedule))] * len(schedule)
    causes = [
        ("flat starting ATP", Setting("rules.starting_atp", ("rules", "starting_atp"), (flat,)), flat),
        ("no grey flasks", Setting("rules.grey_per_player", ("rules", "grey_per_player"), (0,)), 0),
        ("holder may not retake Laureates", Setting("rules.laureates_holder_may_take",
                                                    ("rules", "laureates_holder_may_take"), (False,)), False),
        ("rotating turn order", Setting("rules.turn_order", ("rules", "turn_order"), ("rotate",)), "rotate"),
    ]
    out = [("as configured", [])] + [(name, [(s, v)]) for name, s, v in causes]
    return out + [("all together", [(s, v) for _, s, v in causes])]
