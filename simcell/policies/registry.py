"""The registry of built-in policies: name -> the kernel's policy id and the parameters a config
may set, with their defaults.

Plain Python (no numba) so the config layer can validate a policy field without compiling. The
numba layer reads parameter *positions* from here (HEURISTIC_PARAMS, ROLLOUT_PARAMS), so a
parameter's name, default and index live in one place. A user policy is named
"path/to/file.py:function" instead of a registry name (simcell/policies/user.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Kernel policy ids (play/dispatch.py switches on these).
KERNEL_RANDOM, KERNEL_GREEDY, KERNEL_PLANNER, KERNEL_ROLLOUT, KERNEL_USER = range(5)

# The game loops the kernel compiles (play/game.py), one entry point each, so a run compiles
# only the loop its fields play: every seat `random` (no policy dispatch, no evaluator), no
# search policy (no search code), or a search policy in some seat.
LOOP_RANDOM, LOOP_POLICIES, LOOP_SEARCH = range(3)


def game_loop(kernel_policies) -> int:
    """The game loop a field whose players have these kernel policy ids plays in."""
    ids = {int(k) for k in kernel_policies}
    if ids <= {KERNEL_RANDOM}:
        return LOOP_RANDOM
    return LOOP_SEARCH if KERNEL_ROLLOUT in ids else LOOP_POLICIES

# Parameters of the heuristic evaluator shared by `greedy` and `planner` (evaluate.py), in
# vector order. Values are in Health Points: what one unit of each thing is worth to the bot.
HEURISTIC_PARAMS: dict[str, float] = {
    # worth of one unit of personal stock, whatever the hand (the printed ATP convention of
    # docs/method.md, scaled so that one placement's yield is worth about 0.4 HP)
    "value_mrna": 0.14,
    "value_protein": 0.28,
    "value_carb": 0.5,
    "value_lipid": 0.14,
    "value_atp": 0.14,
    "need": 0.35,  # extra worth of a unit a card in hand (greedy) or a target (planner) still needs
    "hp": 1.0,  # worth of one Health Point scored now
    "card": 0.45,  # share of a card's prospective HP credited when it enters the hand
    "stage_er": 0.35,  # share of a hormone's or receptor's HP credited when its ER vesicle is loaded
    "stage_golgi": 0.65,  # ... and when that vesicle reaches the Golgi with the right resource
    # worth of a goal marker on a goal card, times the card's expected end bonus (the expectation
    # counts the cards completed and in hand only, so above 1 credits those still to come)
    "goal": 0.6,
    "first_player": 0.35,  # worth of holding the First Player Marker for the next round
    "harm": 0.08,  # worth of each unit of a rival's cargo destroyed by displacement
    "exhaust": 0.45,  # worth of the placement given up when a flask is exhausted
    "grey_first": 0.02,  # tie-break: place a grey flask before an own flask
    "temperature": 0.05,  # softmax temperature (0: always the best action, ties to the lowest code)
    # planner only: how targets are chosen and weighted
    "targets": 2.0,  # cards the planner commits to (hand and Card Area)
    "target_focus": 2.0,  # multiplier on `need` for the resources a target still needs
    "contest": 0.25,  # bonus for taking the last free Golgi spot or budding location a target needs
    "w_enzyme": 1.0,  # card-type weights (archetypes change these)
    "w_protein_hormone": 1.0,
    "w_steroid_hormone": 1.0,
    "w_protein_receptor": 1.0,
    "w_steroid_receptor": 1.0,
    "w_detox": 1.0,
    # one card the bot prioritises (`simcell probe`): card `favour_card - 1` (0: none; a config
    # names the card, config/load.py turns the name into its id + 1) is worth `favour` times its
    # worth, wherever the bot values it (buying, keeping, loading, targeting)
    "favour_card": 0.0,
    "favour": 1.0,
    # 1: the bot never places at the Laureates (any other legal action first): the deviation the
    # report's Laureates figure plays (tools/laureates); 0: plays as usual
    "skip_laureates": 0.0,
}
HP_INDEX = {name: i for i, name in enumerate(HEURISTIC_PARAMS)}

# `rollout`: its row is the heuristic row (the planner's values that rank its candidates, and the
# planner players of its playouts) followed by these (play/rollout.py).
ROLLOUT_PARAMS: dict[str, float] = {
    "playouts": 4.0,  # deals of the hidden cards searched per decision, every candidate on each
    "candidates": 4.0,  # most candidate actions searched, the best by the planner's values
    # the decisions that matter: only actions valued within `window` HP of the best are
    # candidates, so a decision with one clear best is taken without search (<= 0: no window)
    "window": 0.5,
    # policy decisions a playout plays before the position evaluator closes it (0: to the end)
    "horizon": 16.0,
    "playout_temperature": 0.0,  # softmax temperature of the planner players of the playouts
    # the position evaluator's weights (policies/position.py): HP earned count 1; the stock at
    # its worth, the cards in hand at their worth x the share they can still be finished, the
    # worth of those with a vesicle at an ER and at the Golgi, the goals' expected bonus, the
    # First Player Marker
    # (fitted at each count, POSITION_AT_PLAYERS; these are the 5-player fit)
    "leaf_stock": 0.436,
    "leaf_hand": 0.016,
    "leaf_er": 0.21,
    "leaf_golgi": 0.409,
    "leaf_goals": 0.712,
    "leaf_marker": 1.403,
    # 1: the playouts see the true hidden cards and event order, not deals of them: the
    # `oracle`, an upper reference (registry entry below), never a field's default
    "sees_all": 0.0,
}
# The position evaluator's weights at each player count: benchmarks/fit_position.py (2026-12-06;
# 400 planner games a count, non-negative least squares of each seat's final HP above the table
# on its terms above the table). Played as they were (the defaults' weights), a search closed
# by the evaluator lost to its own full playouts.
POSITION_AT_PLAYERS: dict[int, dict[str, float]] = {
    2: {"leaf_stock": 1.226, "leaf_hand": 0.212, "leaf_er": 0.126, "leaf_golgi": 0.207,
        "leaf_goals": 0.012, "leaf_marker": 0.0},
    3: {"leaf_stock": 0.918, "leaf_hand": 0.150, "leaf_er": 0.226, "leaf_golgi": 0.299,
        "leaf_goals": 0.145, "leaf_marker": 0.0},
    4: {"leaf_stock": 0.496, "leaf_hand": 0.096, "leaf_er": 0.221, "leaf_golgi": 0.306,
        "leaf_goals": 0.249, "leaf_marker": 0.0},
    5: {"leaf_stock": 0.436, "leaf_hand": 0.016, "leaf_er": 0.210, "leaf_golgi": 0.409,
        "leaf_goals": 0.712, "leaf_marker": 1.403},
}
ROLLOUT_INDEX = {name: len(HEURISTIC_PARAMS) + i for i, name in enumerate(ROLLOUT_PARAMS)}

N_PARAMS = len(HEURISTIC_PARAMS) + len(ROLLOUT_PARAMS)  # width of the kernel's parameter rows

_GREEDY_NAMES = tuple(n for n in HEURISTIC_PARAMS if n not in (
    "targets", "target_focus", "contest", "w_enzyme", "w_protein_hormone", "w_steroid_hormone",
    "w_protein_receptor", "w_steroid_receptor", "w_detox"))


@dataclass(frozen=True)
class BuiltinPolicy:
    kernel_id: int
    defaults: dict[str, float]  # parameters a config may set (name -> default)
    layout: tuple[str, ...]  # the kernel vector's names, in order (unset ones take the defaults)
    about: str
    at_players: dict[int, dict[str, float]] = field(default_factory=dict)  # defaults at a count

    def defaults_at(self, players: int | None) -> dict[str, float]:
        """The defaults at a player count (`defaults` where the count has none of its own)."""
        return self.at_players.get(players, self.defaults) if players is not None else self.defaults


def _heuristic(kernel_id: int, names: tuple[str, ...], about: str, **changes: float) -> BuiltinPolicy:
    base = HEURISTIC_PARAMS | changes
    return BuiltinPolicy(kernel_id, {n: base[n] for n in names}, tuple(HEURISTIC_PARAMS), about)


_PLANNER_NAMES = tuple(HEURISTIC_PARAMS)

# The planner's defaults differ from the shared ones where benchmarks/exploiter.py found better
# weights against a field of planners (2026-11-30), then where benchmarks/fit_planner.py found
# that one player gains by deviating from the field in `simcell exploit`'s family, until no
# deviation did (2026-12-05: the Enzymes' and Steroid Receptors' weights, the goal markers' and
# Lipid's worths; figures in docs/decisions.md).
PLANNER_TUNED: dict[str, float] = {
    "value_mrna": 0.18, "value_protein": 0.21, "value_carb": 0.36, "value_lipid": 0.086,
    "value_atp": 0.10, "need": 0.28, "card": 0.33, "stage_er": 0.47, "stage_golgi": 0.71,
    "goal": 1.64, "first_player": 0.23, "harm": 0.05, "exhaust": 0.73, "target_focus": 0.85,
    "contest": 0.24, "temperature": 0.0, "w_enzyme": 0.667, "w_steroid_receptor": 1.225,
}


# The planner's defaults at one player count, where benchmarks/fit_planner.py, fitted at that
# count alone, found a deviation that gains there and loses at the other counts (2026-12-06;
# docs/decisions.md, Policies): a competent player plays a duel and a five-player game differently.
PLANNER_AT_PLAYERS: dict[int, dict[str, float]] = {
    2: {"value_mrna": 0.098, "value_atp": 0.122, "first_player": 0.325, "w_detox": 1.225},
    5: {"w_detox": 1.225},
}


def _planner(about: str, **factors: float) -> BuiltinPolicy:
    """The planner with some of its defaults multiplied by `factors` (the archetypes). The
    planner itself (no factors) plays its defaults at each player count (PLANNER_AT_PLAYERS).
    An archetype is a style, its card-type weights, over the planner's worths: it takes the
    planner's worths of resources and markers at each count (what a duel's economy is worth),
    times its factors, but not the planner's type weights at a count (its style sets those;
    given the 5-player w_detox, detox_goals played Erythropoietin one ATP cheaper worse). On
    the shared ATP worth a 2-player steroid_pipeline dealt Oxytocin at 0 ATP gathered too
    little ATP and won less (docs/decisions.md)."""
    base = HEURISTIC_PARAMS | PLANNER_TUNED
    defaults = {n: base[n] * factors.get(n, 1.0) for n in _PLANNER_NAMES}
    if not factors:
        at_players = {p: defaults | c for p, c in PLANNER_AT_PLAYERS.items()}
    else:
        at_players = {p: defaults | {n: x * factors.get(n, 1.0) for n, x in c.items()
                                     if not n.startswith("w_")}
                      for p, c in PLANNER_AT_PLAYERS.items()}
        at_players = {p: d for p, d in at_players.items() if d != defaults}
    return BuiltinPolicy(KERNEL_PLANNER, defaults, tuple(HEURISTIC_PARAMS), about, at_players)


def _search(about: str, **changes: float) -> BuiltinPolicy:
    """A search policy: the planner's defaults (at each player count) and the search's own."""
    planner = _planner(about)
    # whether it sees the hidden cards is the policy's name (rollout or oracle), not a setting
    own = {k: v for k, v in ROLLOUT_PARAMS.items() if k != "sees_all"} | changes
    counts = set(planner.at_players) | set(POSITION_AT_PLAYERS)
    return BuiltinPolicy(KERNEL_ROLLOUT, planner.defaults | own,
                         tuple(HEURISTIC_PARAMS) + tuple(ROLLOUT_PARAMS), about,
                         {p: planner.defaults_at(p) | own | POSITION_AT_PLAYERS.get(p, {})
                          for p in counts})


BUILTIN_POLICIES: dict[str, BuiltinPolicy] = {
    "random": BuiltinPolicy(KERNEL_RANDOM, {}, (), "uniform over the legal actions"),
    "greedy": _heuristic(KERNEL_GREEDY, _GREEDY_NAMES, "one-step evaluation of every legal action"),
    "planner": _planner("commits to target cards and closes their gap"),
    "rollout": _search("searches the decisions that matter: for deals of the hidden cards and "
                       "events it cannot see, plays its best candidate actions on with planner "
                       "players and closes each playout with the evaluator"),
    "oracle": _search("the rollout's search on the true hidden cards and event order: an upper "
                      "reference that sees what no player sees, never a field's default",
                      sees_all=1.0),
    # archetypes: the planner with some worths multiplied (its type weights, goal markers)
    "enzyme_focused": _planner(
        "planner that favours Enzymes", w_enzyme=1.6,
        w_protein_hormone=0.8, w_steroid_hormone=0.8, w_protein_receptor=0.8, w_steroid_receptor=0.8),
    "protein_pipeline": _planner(
        "planner that favours Protein Hormones and their receptors",
        w_enzyme=0.8, w_protein_hormone=1.5, w_protein_receptor=1.5, w_steroid_hormone=0.8,
        w_steroid_receptor=0.9),
    "steroid_pipeline": _planner(
        "planner that favours Steroid Hormones and their receptors",
        w_enzyme=0.8, w_protein_hormone=0.8, w_protein_receptor=0.8, w_steroid_hormone=1.5,
        w_steroid_receptor=1.5),
    "detox_goals": _planner(
        "planner that favours Detoxification and goal markers", w_detox=1.5, goal=1.5,
        first_player=1.5),
    "balanced": _planner("planner with every card type weighted as the planner weighs it (its defaults)"),
}

ARCHETYPES = ("enzyme_focused", "protein_pipeline", "steroid_pipeline", "detox_goals", "balanced")


# A built-in policy under a label, "planner#probe", is the same policy with parameters of its own
# (a field's params are keyed by the name as written), so one seat can play a variant of the
# others' policy; the records' `policy` column names it as written.
LABEL_MARK = "#"


def is_user_policy(name: str) -> bool:
    """A user policy is written "file.py:function"."""
    return ":" in name and name.split(":", 1)[0].endswith(".py")


def builtin_name(name: str) -> str:
    """The registry name of a built-in policy written with or without a label."""
    return name.split(LABEL_MARK, 1)[0]


def builtin(name: str) -> BuiltinPolicy:
    """The registry entry of a built-in policy name (labelled or not); KeyError if none."""
    return BUILTIN_POLICIES[builtin_name(name)]


def kernel_id(name: str) -> int:
    """The kernel's policy id for a policy name (user policies share one id)."""
    return KERNEL_USER if is_user_policy(name) else builtin(name).kernel_id


def policy_names(field_policies: tuple[str, ...]) -> tuple[str, ...]:
    """Distinct policy names in first-seen order (record column `policy` indexes this)."""
    return tuple(dict.fromkeys(field_policies))


def param_values(name: str, params: dict[str, float] | None = None,
                 players: int | None = None) -> dict[str, float]:
    """A built-in policy's parameters by name, in its layout's order: its defaults (at `players`,
    where they depend on the count) with `params` applied."""
    spec = builtin(name)
    base = HEURISTIC_PARAMS | ROLLOUT_PARAMS if spec.kernel_id != KERNEL_RANDOM else {}
    base = base | spec.defaults_at(players) | (params or {})
    return {n: float(base[n]) for n in spec.layout}


def param_vector(name: str, params: dict[str, float] | None = None,
                 players: int | None = None) -> list[float]:
    """The kernel's parameter row of a policy: its layout's defaults (at `players`, where they
    depend on the count) with `params` applied, padded to N_PARAMS."""
    params = params or {}
    if is_user_policy(name):
        values = [float(v) for _, v in sorted(params.items())]
    else:
        values = list(param_values(name, params, players).values())
    if len(values) > N_PARAMS:
        raise ValueError(f"policy {name!r} takes at most {N_PARAMS} parameters")
    return values + [0.0] * (N_PARAMS - len(values))
