"""`simcell probe`: for each card, the config's policy made to prioritise that card (the
evaluator's `favour_card` and `favour` parameters, policies/registry.py) in one player's seat,
against the unmodified policy in the others, on the same games as a baseline in which that player
plays the unmodified policy. The field is a pool rotated cyclically, so the probing player sits
in every seat in turn (each seat equally often in every block); one run per player count and
card, and one baseline per player count. probe.json lists the runs; tools/probe/report.py reads them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from simcell.config.errors import nearest
from simcell.config.load import load_run_config
from simcell.config.variants import Setting, base_config, write_variant
from simcell.policies.registry import (
    KERNEL_GREEDY,
    KERNEL_PLANNER,
    LABEL_MARK,
    is_user_policy,
    kernel_id,
)
from simcell.vocabulary import PROBE_FILE
from simcell.tools.probe.report import build_probe
from simcell.tools import Plays, ToolError
from simcell.vocabulary import CARD_TYPES, ADDITIONAL_RESOURCE

PROBE_GAMES = 100_000  # default games per run: a card's probe at 5 players in about 6 s
FAVOUR = 3.0  # the probe's default: the card worth three times its worth to the probing player
_FIELD = Setting("field", ("field",), ())
_PLAYERS = Setting("run.players", ("run", "players"), ())


def _folder_name(text: str) -> str:
    return re.sub(r"[^\w.=+,-]+", "_", text)


def probe_cards(game, names: list[str] | None) -> list[str]:
    """The cards to probe: the named ones (checked), else every card a player completes (all but
    the Additional Resource cards), in id order."""
    completable = [c.name for c in sorted(game.cards, key=lambda c: c.id)
                   if c.type != CARD_TYPES[ADDITIONAL_RESOURCE]]
    if not names:
        return completable
    for n in names:
        if n not in completable:
            raise ToolError(f"--cards: {n!r} is not a card a player completes{nearest(n, completable)}")
    return list(dict.fromkeys(names))


def run_probe(config: Path, folder: Path, plays: Plays, *, cards: list[str] | None = None,
              games: int | None = None, seed: int | None = None, favour: float = FAVOUR,
              calibration: Path | None = None) -> Path:
    rc = load_run_config(config)
    field = rc.fields[0]
    policy = field.policy
    if policy is None or is_user_policy(policy) or kernel_id(policy) not in (KERNEL_GREEDY, KERNEL_PLANNER):
        raise ToolError(f"{config}: probe varies a heuristic policy (greedy, planner or an archetype) "
                        f"played in every seat; the first field, {field.name!r}, is {field.describe()}")
    names = probe_cards(rc.game, cards)
    base = base_config(config)
    params = dict(base["field"][0].get("params", {}).get(policy, {}))
    prober = f"{policy}{LABEL_MARK}probe"
    n_games = games or min(rc.games, PROBE_GAMES)
    at_seed = seed if seed is not None else rc.seed

    def play(name: str, p: int, pool: list[str], extra: dict) -> str:
        fields = [{"name": field.name, "pool": pool, "rotation": "cyclic",
                   "params": {policy: params} | extra}]
        path = write_variant(config, base, name, [(_FIELD, fields), (_PLAYERS, p)], folder)
        root = plays.into(path, folder / "runs" / name, n_games, at_seed, own_players=True)
        return str(root.relative_to(folder))

    plan: dict = {"config": str(config), "field": field.name, "policy": policy, "favour": favour,
                  "segments": []}
    counts = plays.players or rc.players
    total = len(counts) * (len(names) + 1)
    done = 0
    for p in counts:
        done += 1
        plays.say(f"run {done} of {total}: {p} players, {policy} in every seat (the baseline)")
        seg = {"players": p, "baseline": play(f"{p}p-baseline", p, [policy] * p, {}), "cards": []}
        for name in names:
            done += 1
            plays.say(f"run {done} of {total}: {p} players, one seat prioritising {name}")
            run = play(_folder_name(f"{p}p-{name}"), p, [prober] + [policy] * (p - 1),
                       {prober: params | {"favour_card": name, "favour": favour}})
            seg["cards"].append({"name": name, "run": run})
        plan["segments"].append(seg)
    (folder / PROBE_FILE).write_text(json.dumps(plan, indent=1))
    return build_probe(folder, calibration)
