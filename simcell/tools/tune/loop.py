"""`simcell tune`: card values toward the bands, fewest changes first, confirmed on fresh seeds.

A card's contrast against its type responds mostly to its own values (changing one card's value
by d moves its own contrast by d times its response, every other card of its type by at most
1/(m − 1) of that the other way, less as the card leaves the others and the type's reference
down-weighs it), so the search is one root-finding per card rather than a black box over
every value at once (docs/decisions.md):

1. Responses: runs with one card of each type stepped by RESPONSE_STEP in one field, paired
   with the unchanged set on the same games (the cards beyond the band first): each card's own
   response per unit, and its type's mean for the cards not measured. A card that has moved
   then uses its secant (its change of contrast over its change of value between rounds).
2. Rounds: play the current set on the search seed, measure every card; each card shown beyond
   the band (its own 95% interval wholly outside it at some player count: more sensitive than the
   report's simultaneous verdict, the holdout guards against a noisy step) is stepped by the whole
   number of units that brings its predicted contrast nearest zero, in its preferred field, never
   beyond ±range of its original value or below the field's minimum. The games double each round
   (cards that were only inconclusive are resolved, or left, as the intervals shrink). With
   `[tune] types`, each card type whose gap against the average card is shown beyond the type
   band is first stepped as a whole: every card of it in the space by the same whole number of
   units (which leaves the contrasts within the type as they were), chosen as a card's step is,
   from its cards' mean response scaled by the share of the deck outside the type; the cards'
   own steps are then taken from the type's stepped values.
3. Prune (fewest changes first): the changes whose card is predicted within the band without
   them are reverted together and measured; those the set still does not need stay reverted.
4. Board and rules (when `[tune] board` or `rules` names values): the seats' target searched
   over those board values and rule switches on the tuned set, the optional targets of
   [tune.targets] as constraints (tools/tune/board.py). When it keeps any, the rounds and the
   prune run again under them (`second_pass`), from the cards as tuned so far; that pass is
   kept only when it leaves the cards nearer the band than the first pass's values did.
5. Holdout: the original and the tuned set compared by `simcell compare` on a fresh seed at the
   confirmation games, and every target's verdict reported from those games alone.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from simcell.config.load import load_run_config
from simcell.config.variants import Setting, base_config, config_path, write_variant
from simcell.config.tune import TUNE_FIELDS, TuneSpace, card_fields, write_tuned
from simcell.vocabulary import TUNE_FILE
from simcell.tools.tune.report import build_tune, card_state, effect_changes, objective, type_state
from simcell.reports.data import RunData
from simcell.config.rungs import missing_counts, rung_field, same_as_field
from simcell.tools import Plays, ToolError, holdout_seed
from simcell.tools.compare.loop import run_compare
from simcell.tools.tune.board import search_board
from simcell.vocabulary import RESOLVED_FILE

RESPONSE_STEP = 2  # units a response run moves a card by (a larger signal than 1 at equal noise)
MIN_RESPONSE_RUNS, MAX_RESPONSE_RUNS = 2, 6  # response runs per field
AIM = 0.5  # a stepped card aims at a contrast within AIM x the band


def _name(changes: dict[tuple[str, str], int], extra: list = ()) -> str:
    text = json.dumps(sorted([list(k) + [v] for k, v in changes.items()]))
    if extra:
        text += json.dumps([[s.key, v] for s, v in extra])
    return hashlib.sha256(text.encode()).hexdigest()[:10] if changes or extra else "original"


def with_rungs(config: Path, space: TuneSpace, folder: Path) -> Path:
    """The config with a field of each of the tune's rungs beside its first (folder/configs/
    rungs.toml): every run of the tune, the holdout's too, plays them all on the same games."""
    rc = load_run_config(config)
    field = rc.fields[0]
    missing = {r: missing_counts(r, rc.players) for r in space.rungs}
    missing = {r: m for r, m in missing.items() if m}
    if missing:
        raise ToolError(f"{config}: the rung(s) {', '.join(missing)} cannot play "
                        f"{', '.join(str(p) for m in missing.values() for p in m)} players "
                        "(no fitted worths shipped at that count: simcell fit makes them)")
    base = base_config(config)
    fields = [base["field"][0]] + [rung_field(r) for r in space.rungs if not same_as_field(r, field)]
    return write_variant(config, base, "rungs", [(Setting("field", ("field",), ()), fields)], folder)


class _Tune:
    """One tune in progress: the config and its space, the values as they stand (each card type's
    whole step in `shift`, each card's own change in the changes a pass carries), the responses
    learnt so far (`slopes`, `type_slopes`), and what it has played and spent."""

    def __init__(self, config: Path, folder: Path, plays: Plays, space: TuneSpace, seed: int | None):
        if space.rungs:
            config = with_rungs(config, space, folder)
        self.config, self.folder, self.plays, self.space = config, folder, plays, space
        self.rc = load_run_config(config)
        self.base = base_config(config)
        bands = dict(self.rc.report.bands)
        self.band, self.band_types = bands["card_open_hand_pp"], bands["card_type_pp"]
        self.at_seed = seed if seed is not None else self.rc.seed
        cards = {c.name: c for c in self.rc.game.cards}
        self.types = {c.name: c.type for c in self.rc.game.cards}
        self.tunable = {name: [f for f in space.fields if f in card_fields(cards[name])]
                        for name in space.cards}
        self.original = {(n, f): getattr(cards[n], f) for n, fs in self.tunable.items() for f in fs}
        self.played = self.runs_played = 0
        self.shift: dict[tuple[str, str], int] = {}  # (type, field) -> the whole type's step ([tune] types)
        self.slopes: dict = {}
        self.type_slopes: dict[tuple[str, str], float] = {}  # a type's gap per unit of its whole step, once it has moved
        self.rounds: list[dict] = []
        self.unreachable: set[str] = set()
        self.seconds: dict[str, float] = {}
        self.spent: list[str] = []  # the stages the budget left out
        self.began = time.perf_counter()

    # -- values, runs and the budget -----------------------------------------------------------
    def anchor(self, key: tuple[str, str]) -> int:
        """A card's value under its type's step alone (a card-level change is measured from it)."""
        return max(TUNE_FIELDS[key[1]], self.original[key] + self.shift.get((self.types[key[0]], key[1]), 0))

    def full(self, changes: dict) -> dict:
        """Every changed value: the types' steps card by card, then the cards' own changes."""
        out = {k: self.anchor(k) for k in self.original if self.anchor(k) != self.original[k]}
        return out | changes

    def measure(self, root: Path) -> tuple:
        return card_state(root), (type_state(root) if self.space.types else None)

    def goal_of(self, measured: tuple) -> float:
        return objective(measured[0], self.band, measured[1], self.band_types)

    def play(self, changes: dict, n: int, where: str, extra: list = ()) -> Path:
        changes = self.full(changes)
        assignments = [(Setting(f'cards."{c}".{f}', ("overrides", "cards", c, f), ()), v)
                       for (c, f), v in sorted(changes.items())] + list(extra)
        name = f"{n}-{_name(changes, extra)}"
        root = self.plays.into(write_variant(self.config, self.base, name, assignments, self.folder),
                               self.folder / where / name, n, self.at_seed)
        run = RunData(root)
        self.played += sum(seg.games for seg in run.segments)
        self.runs_played += 1
        return root

    def within_budget(self, stage: str) -> bool:
        space = self.space
        over = ((space.budget_games is not None and self.played >= space.budget_games)
                or (space.budget_minutes is not None
                    and time.perf_counter() - self.began >= 60 * space.budget_minutes))
        if over:
            self.spent.append(stage)
            self.plays.say(f"tune: the budget is spent ({self.played:,} games, "
                           f"{(time.perf_counter() - self.began) / 60:.1f} min): no {stage}")
        return not over

    # -- the stages ------------------------------------------------------------------------------
    def run(self) -> Path:
        space, plays = self.space, self.plays
        n = space.screen_games
        clock = time.perf_counter()
        plays.say(f"tune: the original set on {n:,} games")
        start = self.play({}, n, "search")
        measured = self.measure(start)
        self.slopes, responses = _responses(space, start, measured[0], self.tunable, self.types,
                                            self.original, self.band,
                                            lambda ch: self.play(ch, n, "responses"))
        self.seconds["responses (and the original set)"] = time.perf_counter() - clock
        self.began = time.perf_counter()
        final, pruned, n = self.card_pass({}, measured, n, [], 1)
        board = self.board_stage(final)
        settings = [(Setting(k, config_path(k), ()), to) for k, _was, to in board["values"]]
        again: dict = {}
        if settings and space.second_pass and self.within_budget("second card pass"):
            final, pruned, again = self.second_pass(final, pruned, settings)
        final = self.full(final)
        _, tuned_config = write_tuned(self.config, final, self.folder, settings)
        _set_aside(self.folder / "compare" / "b", tuned_config, plays)
        fresh = holdout_seed(self.at_seed)
        plays.say(f"tune: the original and the tuned set on fresh seeds ({space.confirm_games:,} games)")
        clock = time.perf_counter()
        run_compare(self.config, tuned_config, self.folder / "compare", plays,
                    games=space.confirm_games, seed=fresh)
        self.seconds["holdout (both sets, their reports, the comparison)"] = time.perf_counter() - clock
        plan = self.plan(final, pruned, board, again, responses, fresh, tuned_config)
        (self.folder / TUNE_FILE).write_text(json.dumps(plan, indent=1))
        return build_tune(self.folder)

    def card_pass(self, changes: dict, measured: tuple, n: int, extra: list, k: int) -> tuple[dict, list, int]:
        """The rounds and the prune from `changes` (measured on n games: the cards' state and the
        types') with the board and rule `extra` settings: (the changes kept, those pruned, the
        last round's games)."""
        space = self.space
        name = "" if k == 1 else f" (pass {k})"
        last: dict[tuple[str, str], tuple[int, np.ndarray]] = {}  # each step: its own part of the value (less its type's step), contrast before
        last_types: dict[tuple[str, str], tuple[int, np.ndarray]] = {}  # ... a type's: its step, gap before
        state, tstate = measured
        for r in range(space.rounds):
            if r and not self.within_budget(f"round {r + 1}{name} or later"):
                break
            clock = time.perf_counter()
            if r:
                n *= 2  # the next round looks closer: inconclusive cards resolve as intervals shrink
                state, tstate = self.measure(self.play(changes, n, "search", extra))
            changes, last, last_types = self._round(r, k, name, n, changes, state, tstate, last, last_types)
            self.seconds[f"round {r + 1}{name}"] = time.perf_counter() - clock
        pruned = []
        if space.prune and changes and self.within_budget(f"prune{name}"):
            clock = time.perf_counter()
            self.plays.say(f"tune: which of the {len(changes)} changes the tuned set needs ({n:,} games){name}")
            changes, pruned = _prune(changes, {key: self.anchor(key) for key in self.original}, self.slopes,
                                     self.types, self.band,
                                     lambda ch: card_state(self.play(ch, n, "prune", extra)))
            self.seconds[f"prune{name}"] = time.perf_counter() - clock
        return changes, pruned, n

    def _round(self, r: int, k: int, name: str, n: int, changes: dict, state, tstate, last: dict,
               last_types: dict) -> tuple[dict, dict, dict]:
        """One round on the measured state: learn from the last round's steps, step the types
        beyond the type band, then the cards beyond the band; returns the changes and this
        round's steps (for the next round's secants)."""
        band, band_types, tunable, types = self.band, self.band_types, self.tunable, self.types
        beyond = (state["contrast_pp_low"] > band) | (state["contrast_pp_high"] < -band)
        out = sorted(set(state.loc[beyond & state["name"].isin(list(tunable)), "name"]))
        goal = self.goal_of((state, tstate))
        types_out = []
        if tstate is not None:
            far = (tstate["gap_pp_low"] > band_types) | (tstate["gap_pp_high"] < -band_types)
            types_out = sorted(set(tstate.loc[far, "type"]) & {types[c] for c in tunable})
        self.plays.say(f"tune round {r + 1} of {self.space.rounds}{name}: {n:,} games, {len(out)} cards "
                       + (f"and {len(types_out)} types " if tstate is not None else "")
                       + f"beyond the band, objective {goal:.2f} pp beyond the band, {len(changes)} values changed"
                       + (f", {len(self.shift)} types stepped" if self.shift else ""))
        self._learn_type_slopes(last_types, state, tstate)
        stepped_types, last_types = self._step_types(types_out, state, tstate)
        changes = self._move_types(dict(changes), stepped_types)
        self._learn_card_slopes(last, changes, state)
        stepped, last = self._step_cards(out, changes, state)
        self.rounds.append({"pass": k, "round": r + 1, "games": n, "beyond the band": len(out),
                            **({"types beyond the band": len(types_out)} if tstate is not None else {}),
                            "beyond the band, pp": round(goal, 2), "values changed": len(changes),
                            "stepped": ", ".join([f"every {t}.{f} {d:+d}" for (t, f), d in sorted(stepped_types.items())]
                                                 + [f"{c}.{f} → {v}" for (c, f), v in sorted(stepped.items())])})
        for key, value in stepped.items():
            if value == self.anchor(key):
                changes.pop(key, None)
            else:
                changes[key] = value
        return changes, last, last_types

    def _learn_type_slopes(self, last_types: dict, state, tstate) -> None:
        """Each type stepped last round: its own secant, kept to its prior's sign, within 2x."""
        for (kind, f), (before, gap_before) in list(last_types.items()):
            rows = tstate[tstate["type"] == kind]
            now = self.shift.get((kind, f), 0)
            if now != before and len(rows) == len(gap_before):
                own = float(np.mean((rows["gap_pp"].to_numpy() - gap_before) / (now - before)))
                prior = _type_slope(kind, f, self.slopes, state, self.types)
                if prior and np.sign(own) == np.sign(prior):  # kept to the sign, within 2x
                    self.type_slopes[(kind, f)] = float(np.clip(abs(own), abs(prior) / 2, abs(prior) * 2)) * np.sign(prior)

    def _step_types(self, types_out: list[str], state, tstate) -> tuple[dict, dict]:
        """The whole-type steps of the types beyond the type band, and each one's step and gap
        before it (for the next round's secant)."""
        last_types, stepped_types = {}, {}
        for kind in types_out:
            fields = [f for f in self.space.fields
                      if any(f in self.tunable[c] for c in self.tunable if self.types[c] == kind)]
            step = _type_step(kind, tstate[tstate["type"] == kind], fields, self.shift, self.type_slopes,
                              lambda f, kind=kind, state=state: _type_slope(kind, f, self.slopes, state, self.types),
                              self.space, self.band_types)
            if step is not None and step[1] != self.shift.get(step[0], 0):
                stepped_types[step[0]] = step[1]
                last_types[step[0]] = (self.shift.get(step[0], 0),
                                       tstate.loc[tstate["type"] == kind, "gap_pp"].to_numpy())
        return stepped_types, last_types

    def _move_types(self, changes: dict, stepped_types: dict) -> dict:
        """Take the types' steps: the type's cards move together, their own changes with them."""
        for (kind, f), d in stepped_types.items():
            before = {key: self.anchor(key) for key in self.original if self.types[key[0]] == kind and key[1] == f}
            self.shift[(kind, f)] = d
            if not d:
                self.shift.pop((kind, f))
            for key, was in before.items():
                if key in changes:
                    lo, hi = max(TUNE_FIELDS[f], self.original[key] - self.space.range), self.original[key] + self.space.range
                    changes[key] = int(np.clip(changes[key] + self.anchor(key) - was, lo, hi))
                    if changes[key] == self.anchor(key):
                        changes.pop(key)
        return changes

    def _learn_card_slopes(self, last: dict, changes: dict, state) -> None:
        """Each card stepped last round: its own secant, kept to its type's sign, within 2x."""
        for (card, f), (before, contrast_before) in list(last.items()):
            now = changes.get((card, f), self.anchor((card, f))) - self.anchor((card, f))  # its own part
            rows = state[state["name"] == card]
            if now != before and len(rows) == len(contrast_before):
                own = float(np.mean((rows["contrast_pp"].to_numpy() - contrast_before) / (now - before)))
                typed = self.slopes.get((self.types[card], f), 0.0)
                # the card's own response, kept to the sign and within 2x either way of its type's
                if typed and np.sign(own) == np.sign(typed):
                    self.slopes[(card, f)] = float(np.clip(abs(own), abs(typed) / 2, abs(typed) * 2)) * np.sign(typed)

    def _step_cards(self, out: list[str], changes: dict, state) -> tuple[dict, dict]:
        """The steps of the cards beyond the band, and each one's own part of its value and its
        contrast before the step (for the next round's secant)."""
        last, stepped = {}, {}
        for card in out:
            step = _step(card, state[state["name"] == card], self.tunable[card], changes, self.original,
                         self.slopes, self.types[card], self.space, self.band, self.anchor)
            if step is None:
                self.unreachable.add(card)
                continue
            key, value, reaches = step
            (self.unreachable.discard if reaches else self.unreachable.add)(card)
            if value != changes.get(key, self.anchor(key)):
                stepped[key] = value
                last[key] = (changes.get(key, self.anchor(key)) - self.anchor(key),
                             state.loc[state["name"] == card, "contrast_pp"].to_numpy())
        return stepped, last

    def board_stage(self, final: dict) -> dict:
        """The board values and rule switches searched for the seats on the tuned cards."""
        space = self.space
        board: dict = {"values": [], "trials": []}
        if (space.board or space.rules) and self.within_budget("board and rules stage"):
            clock = time.perf_counter()
            self.plays.say(f"tune: {', '.join(list(space.board) + [f'rules.{k}' for k in space.rules])} for the seats"
                           f"{' within the targets' if space.targets.as_dict() else ''} "
                           f"({space.board_trials} trials of {space.screen_games:,} games)")
            board = search_board(self.rc.game, space,
                                 lambda extra: self.play(final, space.screen_games, "board", extra),
                                 self.at_seed, self.plays.say)
            self.seconds["board and rules"] = time.perf_counter() - clock
        return board

    def second_pass(self, final: dict, pruned: list, settings: list) -> tuple[dict, list, dict]:
        """The kept board and rule values move the cards too: their rounds again, under them;
        kept only when it brings the cards nearer the band than the first pass's values, both
        under the kept settings on the last round's games (coordinate descent can overshoot)."""
        n = self.space.screen_games
        self.plays.say(f"tune: the cards again under {', '.join(f'{s.key} = {json.dumps(v)}' for s, v in settings)} "
                       f"({n:,} games)")
        first, first_shift = final, dict(self.shift)
        second, pruned_again, n = self.card_pass(final, self.measure(self.play(final, n, "search", settings)),
                                                 n, settings, 2)
        second_shift = dict(self.shift)
        goals = []
        for ch, sh in ((first, first_shift), (second, second_shift)):
            self.shift.clear()
            self.shift.update(sh)
            goals.append(self.goal_of(self.measure(self.play(ch, n, "prune", settings))))
        again = {"games": n, "first pass, pp": round(goals[0], 2), "second pass, pp": round(goals[1], 2),
                 "kept": goals[1] < goals[0]}
        self.plays.say(f"tune: the second pass {'is kept' if again['kept'] else 'is not kept'}: {goals[1]:.2f} pp beyond "
                       f"the band against {goals[0]:.2f} pp with the first pass's values ({n:,} games)")
        if again["kept"]:
            final, pruned = second, pruned + pruned_again
        self.shift.clear()
        self.shift.update(second_shift if again["kept"] else first_shift)
        return final, pruned, again

    def plan(self, final: dict, pruned: list, board: dict, again: dict, responses: list, fresh: int,
             tuned_config: Path) -> dict:
        """tune.json: what was searched, every round, the values proposed and what they cost."""
        space, types, original = self.space, self.types, self.original
        return {
            "config": str(self.config), "seed": self.at_seed,
            "space": {"cards": list(space.cards), "fields": list(space.fields), "range": space.range,
                      "board": list(space.board), "rules": list(space.rules), "types": space.types,
                      "rungs": list(space.rungs)},
            "targets": space.targets.as_dict(),
            "changes": [[c, types[c], f, original[(c, f)], v] for (c, f), v in sorted(final.items())],
            "type_steps": [[t, f, d] for (t, f), d in sorted(self.shift.items())],
            "rounds": self.rounds, "responses": responses,
            "pruned": [[c, types[c], f, original[(c, f)], v] for c, f, v in pruned],
            "board": board, "second_pass": again,
            "slopes": {f"{t}.{f}": s for (t, f), s in self.slopes.items()},
            "type_slopes": {f"{t}.{f}": s for (t, f), s in self.type_slopes.items()},
            "unreachable": sorted(self.unreachable),
            "budget": {"games": space.budget_games, "minutes": space.budget_minutes, "left out": self.spent},
            "games_played": self.played, "runs": self.runs_played,
            "seconds": {k: round(v, 1) for k, v in self.seconds.items()},
            "holdout": {"seed": fresh, "a": "compare/a", "b": "compare/b"},
            "tuned_config": tuned_config.name,
        }


def run_tune(config: Path, folder: Path, plays: Plays, space: TuneSpace, *, seed: int | None = None) -> Path:
    """Tune the config's card values (and any board values and rule switches named) into
    `folder`: the stages of this module's docstring; returns the folder."""
    return _Tune(config, folder, plays, space, seed).run()


def _set_aside(root: Path, tuned_config: Path, plays: Plays) -> None:
    """A holdout run of another tuned set (a tune run again in its folder proposing other values)
    is renamed beside it, neither resumed with the new set's games nor lost."""
    resolved = root / RESOLVED_FILE
    if not resolved.is_file():
        return
    was = json.loads(resolved.read_text())["game"]["content_hash"]
    if was != load_run_config(tuned_config).game.content_hash:
        aside = root.with_name(f"{root.name}-{was[:10]}")
        root.rename(aside)
        plays.say(f"tune: the holdout run of an earlier proposal is kept as {aside}")


def _prune(changes, original, slopes, types, band, measure):
    """(changes, reverted): the changes without those the set does not need. The tuned set is
    measured; a change whose card is predicted within the band without it (its contrast less its
    response times the step) is a candidate; the set without every candidate is measured, and a
    candidate stays reverted when its card is then within the band at every player count (point
    estimate) and no card of its type has gone beyond the band. The holdout confirms the rest."""
    now = measure(changes)
    candidates = []
    for (name, f), v in sorted(changes.items()):
        slope = slopes.get((name, f), slopes.get((types[name], f), 0.0))
        rows = now[now["name"] == name]
        if slope and len(rows) and np.max(np.abs(rows["contrast_pp"] - slope * (v - original[(name, f)]))) <= band:
            candidates.append((name, f))
    if not candidates:
        return changes, []
    trial = {k: v for k, v in changes.items() if k not in candidates}
    after = measure(trial)

    def beyond(state):
        return set(state.loc[(state["contrast_pp_low"] > band) | (state["contrast_pp_high"] < -band), "name"])

    newly = beyond(after) - beyond(now)
    worst = after.assign(d=after["contrast_pp"].abs()).groupby("name")["d"].max()
    kept, reverted = dict(trial), []
    for name, f in candidates:
        if worst.get(name, np.inf) <= band and not any(types[c] == types[name] for c in newly):
            reverted.append((name, f, changes[(name, f)]))
        else:
            kept[(name, f)] = changes[(name, f)]
    return kept, reverted


def _responses(space, start, state, tunable, types, original, band, play):
    """Responses per unit of each field: each card's own (the paired change of its opening-hand
    effect when it alone of its type is stepped by RESPONSE_STEP), and per card type the mean of
    its cards' (over every type where a type's has the other sign). The cards beyond the band are
    measured first, one card of each type a run, in as many runs as the type with most of them
    needs (at least MIN_RESPONSE_RUNS, at most MAX_RESPONSE_RUNS)."""
    distance = state.assign(d=state["contrast_pp"].abs()).groupby("name")["d"].max()
    beyond = set(state.loc[(state["contrast_pp_low"] > band) | (state["contrast_pp_high"] < -band), "name"])
    order = sorted(distance.index, key=lambda c: (c not in beyond, -distance[c]))
    per_type: dict[str, int] = {}
    for c in beyond & set(tunable):
        per_type[types[c]] = per_type.get(types[c], 0) + 1
    n_runs = min(MAX_RESPONSE_RUNS, max([MIN_RESPONSE_RUNS] + list(per_type.values())))
    slopes, runs = {}, []
    for f in space.fields:
        own: dict[str, float] = {}
        for k in range(n_runs):
            picked = {}
            for t in sorted({types[c] for c in tunable if f in tunable[c]}):
                of_type = [c for c in order if types.get(c) == t and f in tunable.get(c, ())]
                if len(of_type) > k:
                    picked[of_type[k]] = original[(of_type[k], f)] + RESPONSE_STEP
            if not picked:
                continue
            root = play({(c, f): v for c, v in picked.items()})
            diff = effect_changes(start, root)
            for c in picked:
                own[c] = float(diff.loc[diff["name"] == c, "open_hand_win_pp_diff"].mean()) / RESPONSE_STEP
            runs.append({"field": f, "cards": sorted(picked), "run": root.parent.name + "/" + root.name})
        pooled = float(np.mean(list(own.values()))) if own else 0.0
        for t in {types[c] for c in own}:
            mean = float(np.mean([v for c, v in own.items() if types[c] == t]))
            slopes[(t, f)] = mean if np.sign(mean) == np.sign(pooled) and mean != 0 else pooled
        for c, v in own.items():
            typed = slopes[(types[c], f)]
            # a card's own response, kept to its type's sign and within 3x either way of it
            if typed and np.sign(v) == np.sign(typed):
                slopes[(c, f)] = float(np.clip(abs(v), abs(typed) / 3, abs(typed) * 3)) * np.sign(typed)
    return slopes, runs


def _step(name, rows, fields, changes, original, slopes, card_type, space, band, anchor=None):
    """((card, field), new value, whether it is predicted within the band) for a card beyond the
    band. Fields in preference order: the one it already moves in, then the space's order; the
    first field with a value predicted within the band takes the smallest move predicted within
    AIM x the band, else its value predicted nearest zero; if no field reaches the band, the move
    predicted nearest zero over every field. The response is the card's own (secant, `slopes[(card, field)]`) once it
    has moved, else its type's. `anchor(key)` is the card's value under its type's step (the
    original when the types are not stepped). None if no field has a usable response."""
    moved = [f for f in fields if (name, f) in changes]
    contrast = rows["contrast_pp"].to_numpy()
    options = []
    for f in moved + [f for f in fields if f not in moved]:
        slope = slopes.get((name, f), slopes.get((card_type, f), 0.0))
        if slope == 0 or not np.isfinite(slope):
            continue
        now = changes.get((name, f), anchor((name, f)) if anchor else original[(name, f)])
        values = range(max(TUNE_FIELDS[f], original[(name, f)] - space.range), original[(name, f)] + space.range + 1)
        if (name, f) in changes:  # a card that has moved steps one unit a round: no oscillation
            values = [v for v in values if abs(v - now) <= 1]
        predicted = {v: float(np.max(np.abs(contrast + slope * (v - now)))) for v in values}
        options.append((f, now, predicted))
    return _pick(name, options, band)


def _pick(name, options, band):
    """From (field, value now, {value: predicted distance}) in preference order: the preferred
    field that reaches the band takes its smallest move predicted within AIM x the band, else
    its value predicted nearest zero; if none reaches, the move predicted nearest zero."""
    for f, now, predicted in options:
        aimed = [v for v, x in predicted.items() if x <= AIM * band]
        if aimed:
            return (name, f), min(aimed, key=lambda v: abs(v - now)), True
        inside = [v for v, x in predicted.items() if x <= band]
        if inside:
            return (name, f), min(inside, key=lambda v: (predicted[v], abs(v - now))), True
    if not options:
        return None
    f, v, x = min(((f, v, x) for f, now, predicted in options for v, x in predicted.items()),
                  key=lambda t: t[2])
    return (name, f), v, x <= band


def _type_slope(kind, f, slopes, state, types) -> float:
    """A type's gap per unit when every card of it moves together: its cards' mean own response,
    less the part that moves the average card with them (the type's share of the cards)."""
    per_card = slopes.get((kind, f), 0.0)
    counts = state.groupby("players")["name"].nunique()
    deck = float(counts.mean()) if len(counts) else 0.0
    share = sum(1 for t in types.values() if t == kind) / deck if deck else 0.0
    return per_card * max(0.0, 1.0 - share)


def _type_step(kind, rows, fields, shift, type_slopes, prior, space, band):
    """((type, field), the whole type's new step, whether predicted within the band) for a type
    whose gap is beyond the type band: a step within ±range, one unit a round once it has moved
    (no oscillation), chosen as `_step` chooses a card's; the response its own secant once it
    has moved, else `prior(field)`. None without a usable response."""
    gap = rows["gap_pp"].to_numpy()
    moved = [f for f in fields if (kind, f) in shift]
    options = []
    for f in moved + [f for f in fields if f not in moved]:
        slope = type_slopes.get((kind, f)) or prior(f)
        if not slope or not np.isfinite(slope):
            continue
        now = shift.get((kind, f), 0)
        values = range(-space.range, space.range + 1)
        if (kind, f) in shift:
            values = [v for v in values if abs(v - now) <= 1]
        options.append((f, now, {v: float(np.max(np.abs(gap + slope * (v - now)))) for v in values}))
    return _pick(kind, options, band)
