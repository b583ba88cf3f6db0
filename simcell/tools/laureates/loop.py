"""The Laureates deviation of a run (`[report] laureates_games`): the run's first deals (its seed,
its first games) played again by a pool of the run's field rotated cyclically, player 0 playing
the field's policy with `skip_laureates` (it never places at the Laureates while anything else
is legal), the others unmodified, into RUN/laureates/NAME (resumable). Player 0 sits in every
seat equally often, and every other player plays as in the run, so game g of the deviation and
game g of the run are the same deal with the same chance draws until player 0 first passes the
Laureates by: the report pairs them game by game (reports/laureates.py). RUN/laureates/laureates.json
lists the run, its games, and why it was not played when it was not."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from simcell.config.load import load_run_config
from simcell.config.variants import Setting, base_config, write_variant
from simcell.policies.registry import (
    KERNEL_GREEDY,
    KERNEL_PLANNER,
    LABEL_MARK,
    is_user_policy,
    kernel_id,
)
from simcell.tools import Plays
from simcell.vocabulary import LAUREATES_FILE, LAUREATES_FOLDER, RUN_FILE

NAME = "skip"  # the deviant's policy label and the run's folder
_FIELD = Setting("field", ("field",), ())
_PLAYERS = Setting("run.players", ("run", "players"), ())
_NO_RUNGS = Setting("report.rungs", ("report", "rungs"), ())
_NO_LAUREATES = Setting("report.laureates_games", ("report", "laureates_games"), ())


def deviant_field(field: dict, policy: str, players: int, skip: float = 1.0) -> dict:
    """The run's field as a cyclic pool whose player 0 plays `policy` with skip_laureates =
    `skip` (1: never the Laureates; 0: the field's own play, the null deviation)."""
    out = copy.deepcopy(field)
    out.pop("policy", None)
    label = f"{policy}{LABEL_MARK}{NAME}"
    params = dict(out.get("params", {}).get(policy, {}))
    out["pool"] = [label] + [policy] * (players - 1)
    out["rotation"] = "cyclic"
    out["params"] = dict(out.get("params", {})) | {label: params | {"skip_laureates": skip}}
    if policy in out.get("fitted", {}):
        out["fitted"] = dict(out["fitted"]) | {label: out["fitted"][policy]}
    return out


def run_laureates(config: Path, root: Path, plays: Plays, *, games: int | None = None,
                  seed: int | None = None, skip: float = 1.0) -> dict:
    """Play the run's Laureates deviation into root/laureates; returns (and writes) the plan."""
    rc = load_run_config(config)
    field = rc.fields[0]
    counts = list(plays.players or rc.players)
    n = min(games or rc.games, rc.report.laureates_games)
    folder = root / LAUREATES_FOLDER
    plan: dict = {"field": field.name, "games": n, "skip": skip, "runs": []}
    if n <= 0:
        return plan
    policy = field.policy
    if policy is None or is_user_policy(policy) or kernel_id(policy) not in (KERNEL_GREEDY, KERNEL_PLANNER):
        plan["why"] = ("the run's first field is not one heuristic policy in every seat "
                       f"({field.describe()})")
        _write(folder, plan)
        return plan
    if rc.duplicate:
        plan["why"] = "a duplicate-mode run's games are not the deals of a cyclic pool"
        _write(folder, plan)
        return plan
    base = base_config(config)
    plays.say(f"the Laureates: the first {n:,} games again with one player who never takes it")
    fields = {p: [deviant_field(base["field"][0], policy, p, skip)] for p in counts}
    runs = []
    for p in counts:
        name = f"{p}p-{NAME}"
        games_p = n // p * p  # whole rotations of the pool, none past the run's games
        path = write_variant(config, base, name, [(_FIELD, fields[p]), (_PLAYERS, p),
                                                  (_NO_RUNGS, []), (_NO_LAUREATES, 0)], folder)
        if games_p == 0:
            continue
        run = plays.into(path, folder / name, games_p, seed if seed is not None else rc.seed,
                         own_players=True)
        runs.append({"players": p, "run": str(run.relative_to(root)), "games": games_p,
                     "seconds": _seconds(run)})
        plan["runs"] = runs
        _write(folder, plan)
    return plan


def _seconds(run: Path) -> float:
    meta = json.loads((run / RUN_FILE).read_text())
    return round(sum(i.get("seconds", 0.0) for i in meta.get("invocations", [])), 1)


def _write(folder: Path, plan: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LAUREATES_FILE).write_text(json.dumps(plan, indent=1))
