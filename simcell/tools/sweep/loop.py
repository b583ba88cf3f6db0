"""`simcell sweep`: one run directory per variant, all on the same seed; then, where the swept
card's contrast crosses zero, the variants either side of the crossing replayed on fresh seeds
(the holdout) so the report states the crossing as a finding only if it holds there too."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from simcell.config.errors import card_type_named
from simcell.config.load import load_run_config
from simcell.config.variants import variants as sweep_variants
from simcell.tools.sweep.report import brackets, build_sweep, write_plan
from simcell.tools import Plays, holdout_seed
from simcell.tools.rungs.loop import run_rungs


def run_sweep(config: Path, sets: list[str], folder: Path, plays: Plays, *, games: int | None = None,
              seed: int | None = None, calibration: Path | None = None, holdout: bool = True,
              rungs: bool | Sequence[str] = False) -> Path:
    """With `rungs` (True: the config's [report] rungs; or a list of rungs), the first and the
    last variant are each played again under the rungs: the sweep's end-to-end change marked as
    holding across skill or not."""
    settings, variants = sweep_variants(config, sets, folder)
    plan = []
    for i, v in enumerate(variants):
        plays.say(f"variant {i + 1} of {len(variants)}: {v.name}")
        root = plays.into(v.config, folder / "runs" / v.name, games, seed)
        plan.append({"name": v.name, "values": list(v.values), "run": f"runs/{v.name}"})
        if rungs and len(variants) > 1 and i in (0, len(variants) - 1):
            run_rungs(v.config, root, plays, games=games, seed=seed,
                      rungs=None if rungs is True else list(rungs))
    # a swept card type under the name the records use (the key may give the game's name)
    settings_json = [{"key": s.key, "path": list(s.path), "values": list(s.values)}
                     | ({"card_type": card_type_named(s.path[2])} if s.path[:2] == ("overrides", "types") else {})
                     for s in settings]
    write_plan(folder, settings_json, plan)
    replay = brackets(folder) if holdout else []
    if replay:
        fresh = holdout_seed(seed if seed is not None else load_run_config(config).seed)
        held = []
        for i in replay:
            v = variants[i]
            plays.say(f"holdout: {v.name} on fresh seeds (seed {fresh})")
            plays.into(v.config, folder / "holdout" / v.name, games, fresh)
            held.append({"name": v.name, "values": list(v.values), "run": f"holdout/{v.name}"})
        write_plan(folder, settings_json, plan, {"seed": fresh, "variants": held})
    return build_sweep(folder, calibration)
