"""`simcell ladder`: how strong each bot is. At each player count one run of many fields on the
same deals (paired): for every two policies X and Y, one X among copies of Y and one Y among
copies of X (at 2 players the two are one field), rotated cyclically (X in every seat), and
mixed pools of distinct policies in every seat order (under cyclic shifts alone one policy would
always sit just before another: two copies of the planner then differed by 1.2 pp at 3 players). ladder.json
lists the runs; tools/ladder/report.py rates the policies from the finishing orders."""

from __future__ import annotations

import datetime
import itertools
import json
from pathlib import Path

from simcell.config.load import load_run_config
from simcell.config.variants import Setting, base_config, write_variant
from simcell.policies.registry import ARCHETYPES, LABEL_MARK, builtin, builtin_name, is_user_policy
from simcell.vocabulary import LADDER_FILE
from simcell.tools.ladder.report import build_ladder
from simcell.tools import Plays, ToolError

# the built-in policies, weakest first as designed; "balanced" is the planner at the shared
# defaults, on the ladder only where the per-count defaults differ (left to --policies); the rollout at
# two budgets; the oracle on top, which sees the hidden cards (an upper reference)
DEFAULT_POLICIES = (("random", "greedy", "planner") + tuple(a for a in ARCHETYPES if a != "balanced")
                    + (f"rollout{LABEL_MARK}p2", "rollout", "oracle"))
DEFAULT_PARAMS = {f"rollout{LABEL_MARK}p2": {"playouts": 2.0}}
LADDER_GAMES = 2_000  # games per field: a pairing's win share within about ±2 pp at 5 players
_FIELD = Setting("field", ("field",), ())
_PLAYERS = Setting("run.players", ("run", "players"), ())


def pairing_name(one: str, many: str) -> str:
    return f"{one} among {many}"


def mixed_pools(policies: list[str], players: int) -> list[list[str]]:
    """Pools of `players` distinct policies, each policy in as many pools as any other: the
    cyclic windows of the list (one pool when there are no more policies than seats)."""
    n = len(policies)
    if n <= players:
        return [list(policies)] if n == players else []
    return [[policies[(k + j) % n] for j in range(players)] for k in range(n)]


def fields_for(policies: list[str], players: int, params: dict) -> list[dict]:
    """Every pairing field and every mixed pool at this player count."""
    out = []
    for x, y in itertools.permutations(policies, 2):
        if players == 2 and x > y:
            continue  # at two players "x among y" and "y among x" are one field
        out.append({"name": pairing_name(x, y), "pool": [x] + [y] * (players - 1), "rotation": "cyclic"})
    for k, pool in enumerate(mixed_pools(policies, players)):
        # every seat order: under cyclic shifts one policy would always sit just before another
        out.append({"name": f"mixed {k + 1}", "pool": pool, "rotation": "all"})
    for f in out:
        mine = {p: params[p] for p in f["pool"] if p in params}
        if mine:
            f["params"] = mine
    return out


def _check(policies: list[str]) -> None:
    if len(policies) < 2:
        raise ToolError("a ladder needs at least two policies")
    if len(set(policies)) != len(policies):
        raise ToolError(f"a policy is named twice: {', '.join(policies)}")
    for p in policies:
        if is_user_policy(p):
            continue
        try:
            builtin(p)
        except KeyError:
            raise ToolError(f"no built-in policy {builtin_name(p)!r} (a label is written "
                            f"name{LABEL_MARK}label, e.g. rollout{LABEL_MARK}b32)") from None


def run_ladder(config: Path, folder: Path, plays: Plays, *, policies: list[str] | None = None,
               params: dict | None = None, games: int | None = None, seed: int | None = None) -> Path:
    """Play every pairing and mixed pool at each player count (one run a count, the same deals
    in every field) and write the ladder report. `params`: policy label -> parameters."""
    rc = load_run_config(config)
    chosen = list(policies or DEFAULT_POLICIES)
    _check(chosen)
    params = {k: v for k, v in DEFAULT_PARAMS.items() if k in chosen} | (params or {})
    base = base_config(config)
    n = games or LADDER_GAMES
    at_seed = seed if seed is not None else rc.seed
    plan: dict = {"config": str(config), "policies": chosen, "games": n, "seed": at_seed,
                  "date": datetime.date.today().isoformat(), "runs": []}
    counts = plays.players or rc.players
    for i, p in enumerate(counts, 1):
        fields = fields_for(chosen, p, params)
        plays.say(f"ladder {i} of {len(counts)}: {p} players, {len(fields)} fields of {n:,} games")
        path = write_variant(config, base, f"{p}p", [(_FIELD, fields), (_PLAYERS, p)], folder)
        root = plays.into(path, folder / "runs" / f"{p}p", n, at_seed, own_players=True)
        plan["runs"].append({"players": p, "run": str(root.relative_to(folder))})
        (folder / LADDER_FILE).write_text(json.dumps(plan, indent=1))
    return build_ladder(folder)
