"""The run played again under each rung (`[report] rungs`): the same deals (the run's seed, its
first games) with a homogeneous field of each rung, one run directory per rung inside the run
directory (RUN/rungs/NAME, resumable), listed in RUN/rungs/rungs.json with the rungs not played
and why. A rung that plays exactly the run's field at a player count (the fitted rung where
`simcell fit` moved no worth) is not replayed there: the plan names the run itself for it. The balance report's "Verdicts across skill" reads them (reports/across_skill.py)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from simcell.config.load import load_run_config
from simcell.config.rungs import (
    identical_counts,
    is_search,
    missing_counts,
    named_rungs,
    rung_field,
    same_as_field,
)
from simcell.config.variants import Setting, base_config, write_variant
from simcell.tools import Plays
from simcell.vocabulary import RUN_FILE, RUNGS_FILE, RUNGS_FOLDER

_FIELD = Setting("field", ("field",), ())
_PLAYERS = Setting("run.players", ("run", "players"), ())
_NO_RUNGS = Setting("report.rungs", ("report", "rungs"), ())


def _seconds(run: Path) -> float:
    meta = json.loads((run / RUN_FILE).read_text())
    return round(sum(i.get("seconds", 0.0) for i in meta.get("invocations", [])), 1)


def run_rungs(config: Path, root: Path, plays: Plays, *, games: int | None = None,
              seed: int | None = None, rungs: Sequence[str] | None = None) -> dict:
    """Play the run's rungs (the config's [report] rungs, or `rungs`) into root/rungs; returns
    (and writes) the plan."""
    rc = load_run_config(config)
    if rungs is not None:
        rc = dataclasses.replace(rc, report=dataclasses.replace(rc.report, rungs=named_rungs(list(rungs))))
    field = rc.fields[0]
    counts = list(plays.players or rc.players)
    run_games = games or rc.games
    folder = root / RUNGS_FOLDER
    plan: dict = {"field": field.name, "rungs": [], "not_played": []}
    if not rc.report.rungs:
        return plan
    if field.policy is None:
        plan["not_played"] = [{"rung": r, "why": "the run's first field has no one policy in every seat"}
                              for r in rc.report.rungs]
        _write(folder, plan)
        return plan
    base = base_config(config)
    for i, rung in enumerate(rc.report.rungs, 1):
        if same_as_field(rung, field):
            plan["rungs"].append({"rung": rung, "run": ".", "players": counts, "games": run_games})
            continue
        missing = missing_counts(rung, counts)
        if missing:
            plan["not_played"].append({"rung": rung, "players": missing,
                                       "why": "no fitted worths shipped at that count: simcell fit makes them"})
        same = identical_counts(rung, field, [p for p in counts if p not in missing])
        if same:
            # at these counts the rung is the run's own field, worth for worth: the run is the rung
            plan["rungs"].append({"rung": rung, "run": ".", "players": same, "games": run_games,
                                  "identical": True})
        at = [p for p in counts if p not in missing and p not in same]
        if not at:
            continue
        n = min(run_games, rc.report.search_rung_games if is_search(rung) else rc.report.rung_games)
        plays.say(f"rung {i} of {len(rc.report.rungs)}: the first {n:,} games again with {rung} "
                  "in every seat (verdicts across skill)")
        path = write_variant(config, base, rung, [(_FIELD, [rung_field(rung)]), (_PLAYERS, at),
                                                  (_NO_RUNGS, [])], folder)
        run = plays.into(path, folder / rung, n, seed if seed is not None else rc.seed, own_players=True)
        plan["rungs"].append({"rung": rung, "run": str(run.relative_to(root)), "players": at,
                              "games": n, "seconds": _seconds(run)})
        _write(folder, plan)
    _write(folder, plan)
    return plan


def _write(folder: Path, plan: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RUNGS_FILE).write_text(json.dumps(plan, indent=1))
