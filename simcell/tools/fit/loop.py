"""`simcell fit`: a field's worths fitted by self-play, at each player count, until no player
gains much by deviating from them.

Each round, at one player count:

1. **Screen.** One player deviates from the field while the others play it, in duplicate mode
   (every deal under every cyclic seat order, so the deviating player sits in every seat and
   the deal's luck cancels; a field against itself scores exactly the fair share). The
   deviations: `simcell exploit`'s family, then a CMA-ES search over every fitted
   worth at once, each a factor of the field's within [1/span, span]. All on the same deals.
2. **Holdout.** The best few of the screen are played again on fresh deals (the screen's best
   is the largest of many noisy gains, biased upward); the best there is the round's best
   response, and its gain is the field's exploitability over the family and the search.
3. **Stop or adopt.** Within the band (`--band`, 1 pp): fitted. Otherwise, when the gain is
   beyond noise (its interval above zero), the field moves `step` of the way (in log) towards
   the best response, and the next round plays on new deals. A round limit or a time budget
   ends it too; the last round always measures the field the file holds.

Writes fit.json (every round), fitted.toml (the worths at each count: config/fitted.py; a
field plays them with `fitted = { POLICY = "fitted.toml" }`), fitted-config.toml (the config
with its first field playing them) and report.html/md (tools/fit/report.py)."""

from __future__ import annotations

import datetime
import json
import math
import time
from pathlib import Path

import numpy as np

from simcell.config.fitted import FIXED, Fitted, fitted_policy, write_fitted
from simcell.config.load import load_run_config
from simcell.config.variants import Setting, base_config, write_variant
from simcell.policies.registry import builtin
from simcell.vocabulary import FIT_FILE, FITTED_FILE
from simcell.tools.fit.report import build_fit
from simcell.tools import Plays, ToolError, holdout_seed
from simcell.tools.deviations import deviated, deviations

FIT_DEFAULTS = {
    "rounds": 8,  # most rounds per player count
    "trials": 48,  # CMA-ES candidates per round (beside the exploit family's)
    "deals": 2_000,  # deals of the screen (each deal P games)
    "holdout_deals": 8_000,  # deals of each holdout candidate
    "confirm": 3,  # screen's best candidates played again on fresh deals
    "band": 1.0,  # pp: a field no deviation beats by more is fitted
    "step": 0.5,  # share of the way (in log) the field moves towards the best response
    "span": 2.0,  # the search's factors lie within [1/span, span] of the field's worths
}
_FIELD = Setting("field", ("field",), ())


def fitted_names(policy: str) -> list[str]:
    """The worths simcell fit searches: every parameter of the policy but the fixed ones (the
    unit of HP, the tie-break, the temperature, the number of targets, the probe's favour)."""
    return [k for k in builtin(policy).defaults if k not in FIXED]


def _describe(field: dict, worths: dict, top: int = 3) -> str:
    """A search candidate as its largest factors against the field: "goal x1.7, value_atp x0.6"."""
    logs = sorted(((math.log(worths[k] / field[k]), k) for k in worths if field[k] > 0),
                  key=lambda t: -abs(t[0]))
    return ", ".join(f"{k} x{math.exp(x):.2g}" for x, k in logs[:top] if abs(x) > 1e-9) or "the field"


def _interval(m: np.ndarray) -> tuple[float, float, float]:
    mean = float(m.mean())
    half = 1.96 * float(m.std(ddof=1)) / math.sqrt(len(m)) if len(m) > 1 else math.inf
    return mean, mean - half, mean + half


class _Count:
    """The fit at one player count: its rounds, on the tool's match pool."""

    def __init__(self, rc, policy, players, plays: Plays, settings, seed, say):
        self.rc, self.policy, self.p, self.plays, self.s, self.seed, self.say = (
            rc, policy, players, plays, settings, seed, say)
        self.names = fitted_names(policy)
        given = rc.fields[0].params_for(players).get(policy, {})
        start = builtin(policy).defaults_at(players) | given
        self.field = {k: float(start[k]) for k in self.names}
        self.start = dict(self.field)

    def margins(self, worths: dict, seed: int, deals: int) -> np.ndarray:
        return self.plays.margins(self.rc.game, self.p, self.policy, self.field, worths, seed, deals)

    def candidates(self, seed: int, rnd: int) -> list[dict]:
        """Every deviation of the screen with its mean margin on the screen's deals."""
        from cmaes import CMA

        s = self.s
        out = []
        for label, key, factor in deviations(self.policy):
            if key not in self.field:
                continue
            worths = dict(self.field) | {key: deviated(key, self.field[key], factor)}
            out.append({"label": label, "worths": worths,
                        "screen_pp": float(self.margins(worths, seed, s["deals"]).mean())})
        # CMA-ES over the log-factors, from the field itself, in whole generations
        bound = math.log(s["span"])
        n = len(self.names)
        cma = CMA(mean=np.zeros(n), sigma=0.3, bounds=np.tile([-bound, bound], (n, 1)),
                  seed=self.seed * 131 + rnd)
        for _ in range(max(1, round(s["trials"] / cma.population_size)) if s["trials"] else 0):
            told = []
            for _ in range(cma.population_size):
                x = cma.ask()
                worths = {k: self.field[k] * math.exp(v) for k, v in zip(self.names, x)}
                m = float(self.margins(worths, seed, s["deals"]).mean())
                told.append((x, -m))
                out.append({"label": f"search: {_describe(self.field, worths)}", "worths": worths,
                            "screen_pp": m})
            cma.tell(told)
        return sorted(out, key=lambda c: -c["screen_pp"])

    def round(self, rnd: int) -> dict:
        s = self.s
        t0 = time.perf_counter()
        seed = self.seed + 7919 * rnd + 104_729 * self.p
        screen = self.candidates(seed, rnd)
        fresh = holdout_seed(seed)
        held = []
        for c in screen[: s["confirm"]]:
            mean, lo, hi = _interval(self.margins(c["worths"], fresh, s["holdout_deals"]))
            held.append(c | {"gain_pp": mean, "low": lo, "high": hi})
        best = max(held, key=lambda c: c["gain_pp"])
        return {"round": rnd, "field": dict(self.field), "screen_seed": seed, "holdout_seed": fresh,
                "screen": [{"label": c["label"], "screen_pp": c["screen_pp"]} for c in screen],
                "holdout": [{k: c[k] for k in ("label", "screen_pp", "gain_pp", "low", "high", "worths")}
                            for c in held],
                "best": {k: best[k] for k in ("label", "gain_pp", "low", "high", "worths")},
                "seconds": round(time.perf_counter() - t0, 1)}

    def adopt(self, worths: dict) -> None:
        step = self.s["step"]
        self.field = {k: self.field[k] * (worths[k] / self.field[k]) ** step if self.field[k] > 0
                      else worths[k] for k in self.names}

    def fit(self, budget_minutes: float | None) -> dict:
        s, t0 = self.s, time.perf_counter()
        rounds = []
        stopped = "rounds"
        for rnd in range(1, s["rounds"] + 1):
            r = self.round(rnd)
            rounds.append(r)
            b = r["best"]
            self.say(f"fit {self.p}p round {rnd}: the best deviation gains {b['gain_pp']:+.2f} pp "
                     f"({b['low']:+.2f} to {b['high']:+.2f}; {b['label']}) [{r['seconds']:.0f} s]")
            minutes = (time.perf_counter() - t0) / 60
            if b["gain_pp"] <= s["band"]:
                stopped = "fitted"
                break
            if b["low"] <= 0:
                stopped = "noise"  # beyond the band, not beyond noise: more deals would tell
                break
            last = rnd == s["rounds"] or (budget_minutes is not None
                                          and minutes + r["seconds"] / 60 > budget_minutes)
            if last:  # the field as it is measured; adopting would leave it unmeasured
                stopped = "rounds" if rnd == s["rounds"] else "budget"
                break
            self.adopt(b["worths"])
            r["adopted"] = True
        first, final = rounds[0]["best"], rounds[-1]["best"]
        return {"players": self.p, "rounds": rounds, "stopped": stopped,
                "minutes": round((time.perf_counter() - t0) / 60, 2),
                "start": self.start, "fitted": dict(self.field),
                "before": {k: first[k] for k in ("label", "gain_pp", "low", "high")},
                "after": {k: final[k] for k in ("label", "gain_pp", "low", "high")}}


def run_fit(config: Path, folder: Path, plays: Plays, *, seed: int | None = None,
            budget_minutes: float | None = None, **settings) -> Path:
    """Fit the first field's policy at each player count (the command's, else the config's)."""
    rc = load_run_config(config)
    field = rc.fields[0]
    policy = field.policy
    if policy is None or not fitted_policy(policy):
        raise ToolError(f"{config}: fit improves a heuristic policy (greedy, planner or an archetype) "
                        f"played in every seat; the first field, {field.name!r}, is {field.describe()}")
    if plays.margins is None:
        raise ToolError("fit needs a match pool (plays.margins)")
    s = FIT_DEFAULTS | {k: v for k, v in settings.items() if v is not None}
    at_seed = seed if seed is not None else rc.seed
    counts = plays.players or rc.players
    plan = {"config": str(config), "policy": policy, "field": field.name, "seed": at_seed,
            "settings": s, "budget_minutes": budget_minutes, "names": fitted_names(policy),
            "date": datetime.date.today().isoformat(), "counts": []}
    folder.mkdir(parents=True, exist_ok=True)
    for p in counts:
        plays.say(f"fit {p} players: {policy}, {len(deviations(policy))} family deviations and "
                  f"{s['trials']} searched a round on {s['deals']:,} deals, the best "
                  f"{s['confirm']} on {s['holdout_deals']:,} fresh deals")
        plan["counts"].append(_Count(rc, policy, p, plays, s, at_seed, plays.say).fit(budget_minutes))
        (folder / FIT_FILE).write_text(json.dumps(plan, indent=1))
    _write_files(config, folder, plan, rc)
    return build_fit(folder)


def _write_files(config: Path, folder: Path, plan: dict, rc) -> None:
    policy = plan["policy"]
    about = {}
    for c in plan["counts"]:
        b, a = c["before"], c["after"]
        about[c["players"]] = {
            "rounds": len(c["rounds"]), "minutes": c["minutes"], "stopped": c["stopped"],
            "best_deviation": a["label"], "exploitability_pp": round(a["gain_pp"], 3),
            "exploitability_low_pp": round(a["low"], 3), "exploitability_high_pp": round(a["high"], 3),
            "exploitability_before_pp": round(b["gain_pp"], 3),
            "exploitability_before_low_pp": round(b["low"], 3),
            "exploitability_before_high_pp": round(b["high"], 3)}
    fitted = Fitted(policy, {c["players"]: c["fitted"] for c in plan["counts"]}, about,
                    {"config": str(config), "game": rc.game.content_hash, "date": plan["date"],
                     "seed": plan["seed"]})
    header = (f"{policy}'s worths fitted by self-play: simcell fit {config} ({plan['date']}).\n"
              "A field plays them with fitted = { " + policy + ' = "' + FITTED_FILE + '" }; '
              "each count's [players.N] says how they were fitted\n"
              "(exploitability: the most win share one player gains by deviating, pp, 95% interval).")
    write_fitted(folder / FITTED_FILE, fitted, header)
    fields = [dict(base_config(config)["field"][0])]
    fields[0]["fitted"] = {policy: f"../{FITTED_FILE}"}  # written in folder/configs
    # the field's own worths would stand over the file's: only those the fit does not search stay
    own = {k: v for k, v in fields[0].get("params", {}).get(policy, {}).items() if k not in plan["names"]}
    fields[0]["params"] = {k: v for k, v in fields[0].get("params", {}).items() if k != policy}
    if own:
        fields[0]["params"][policy] = own
    if not fields[0]["params"]:
        del fields[0]["params"]
    counts = sorted(c["players"] for c in plan["counts"])
    path = write_variant(config, base_config(config), "fitted",
                         [(_FIELD, fields), (Setting("run.players", ("run", "players"), ()), counts)], folder)
    plan["fitted_config"] = str(path.relative_to(folder))
    (folder / FIT_FILE).write_text(json.dumps(plan, indent=1))
