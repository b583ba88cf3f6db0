"""A fitted field's parameter file: a heuristic policy's worths at each player count, as
`simcell fit` found them by self-play, with how they were fitted. A run config's field names it
(`fitted = { planner = "fitted.toml" }`) and its policy then plays those worths at the run's
player count; the file is read and checked like every config (unknown keys, worths the policy
does not take, a player count the run plays and the file lacks: one-line errors)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tomli_w

from simcell.config.tables import Table, read_toml
from simcell.policies.registry import KERNEL_GREEDY, KERNEL_PLANNER, builtin
from simcell.vocabulary import MAX_PLAYERS, MIN_PLAYERS

# how each count was fitted (written by simcell fit, shown by the report; numbers in pp, minutes)
ABOUT_KEYS = {"rounds": int, "minutes": float, "stopped": str, "best_deviation": str,
              "exploitability_pp": float, "exploitability_low_pp": float,
              "exploitability_high_pp": float, "exploitability_before_pp": float,
              "exploitability_before_low_pp": float, "exploitability_before_high_pp": float}
FIT_KEYS = ("policy", "config", "game", "date", "seed")
FIXED = ("favour_card", "favour", "temperature", "targets", "hp", "grey_first",
         "skip_laureates")  # never fitted


def fitted_policy(name: str) -> bool:
    """Whether `simcell fit` fits this built-in policy's worths (greedy, the planner, an archetype)."""
    try:
        return builtin(name).kernel_id in (KERNEL_GREEDY, KERNEL_PLANNER)
    except KeyError:
        return False


@dataclass(frozen=True)
class Fitted:
    policy: str  # the built-in policy whose worths these are
    params: dict[int, dict[str, float]]  # players -> the fitted worths (the rest: its defaults)
    about: dict[int, dict]  # players -> how they were fitted (ABOUT_KEYS)
    fit: dict  # FIT_KEYS: what was fitted, on which config and game, when


def read_fitted(path: Path) -> Fitted:
    t = Table(read_toml(path), path).expect(("fit", "players"))
    fit = t.table("fit").expect(FIT_KEYS)
    policy = fit.take("policy", str)
    if not fitted_policy(policy):
        raise fit.error("policy", f"{policy!r} is not a heuristic policy simcell fit fits "
                        "(greedy, planner or an archetype)")
    meta = {"policy": policy}
    for key in FIT_KEYS[1:]:
        if fit.has(key):
            meta[key] = fit.take(key, int if key == "seed" else str)
    fit.finish(FIT_KEYS)
    counts = t.table("players")
    defaults = builtin(policy).defaults
    params, about = {}, {}
    for key in counts.keys():
        if not key.isdigit() or not MIN_PLAYERS <= int(key) <= MAX_PLAYERS:
            raise counts.error(key, f"not a player count ({MIN_PLAYERS} to {MAX_PLAYERS})")
        at = counts.table(key)
        worths = at.table("params")
        params[int(key)] = {k: float(worths.take(k, float, minimum=0.0)) for k in worths.keys()
                            if k in defaults and k not in FIXED}
        worths.finish(k for k in defaults if k not in FIXED)
        about[int(key)] = {k: at.take(k, kind) for k, kind in ABOUT_KEYS.items() if at.has(k)}
        at.finish(("params",) + tuple(ABOUT_KEYS))
    if not params:
        raise counts.error(None, "no player count: a fitted file holds [players.N.params] for at least one count")
    t.finish(("fit", "players"))
    return Fitted(policy, params, about, meta)


def write_fitted(path: Path, fitted: Fitted, header: str) -> Path:
    """Write the file (its header lines as comments) and read it back: what is written is valid."""
    body = {"fit": fitted.fit | {"policy": fitted.policy},
            "players": {str(p): fitted.about.get(p, {}) | {"params": {k: round(v, 4) for k, v in sorted(w.items())}}
                        for p, w in sorted(fitted.params.items())}}
    comments = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(comments + "\n" + tomli_w.dumps(body), encoding="utf-8")
    read_fitted(path)
    return path
