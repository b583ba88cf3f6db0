"""`simcell tune`: its search space ([tune] table, or flags), and its output in simcell's own
formats: the tuned card file (the config's resolved card set with the changes applied) and a run
config that plays it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from simcell.config.errors import ConfigError, allowed, card_type_named, card_type_names, nearest
from simcell.config.load import load_run_config
from simcell.config.model import GameDefinition
from simcell.config.rungs import RUNGS, is_search
from simcell.config.cardset import write_card_set
from simcell.config.data import RULE_CHOICES, RULE_LIMITS
from simcell.config.model import RULE_KEYS, Rules
from simcell.config.summary import board_values
from simcell.config.tables import Table, read_toml
from simcell.vocabulary import ADDITIONAL_RESOURCE, CARD_FIELDS, CARD_TYPES, HP_SOURCES

# card fields a tune may change, in the order it prefers them (a designer moves the ATP cost
# first), with the smallest value each may take
TUNE_FIELDS = {"atp": 0, "hp": 1, "protein": 1, "carb": 0, "lipid": 1}
DEFAULT_FIELDS = ("atp", "hp")


@dataclass(frozen=True)
class Targets:
    """The optional targets beside the bands ([tune.targets]): a range [low, high] each figure
    should lie within at every player count of the run."""

    winning_hp: tuple[float, float] | None = None  # the winner's mean final HP
    game_length: tuple[int, int] | None = None  # rounds played
    hp_share: tuple[tuple[str, float, float], ...] = ()  # (HP source, low, high): its % of all HP

    def as_dict(self) -> dict:
        out: dict = {}
        if self.winning_hp:
            out["winning_hp"] = list(self.winning_hp)
        if self.game_length:
            out["game_length"] = list(self.game_length)
        if self.hp_share:
            out["hp_share"] = {s: [lo, hi] for s, lo, hi in self.hp_share}
        return out


@dataclass(frozen=True)
class TuneSpace:
    cards: tuple[str, ...]  # the cards whose values may change, in id order
    fields: tuple[str, ...]  # the fields that may change, preferred first
    range: int  # at most this far from the starting value (whole steps)
    screen_games: int  # games per run in the first round (doubled each round)
    rounds: int  # rounds of measuring and correcting at most
    confirm_games: int  # games of the holdout comparison (the config's by default)
    prune: bool = True  # after the rounds, revert the changes the tuned set does not need
    board: tuple[str, ...] = ()  # board values (board.SECTION.KEY) searched for the seats
    board_trials: int = 16  # board assignments tried (optuna TPE), the current one first
    budget_games: int | None = None  # no further search stage once this many games are played
    budget_minutes: float | None = None  # ... or once this long has passed (the holdout still runs)
    rules: tuple[str, ...] = ()  # rule switches searched with the board values (rules.toml keys)
    second_pass: bool = True  # the card rounds again under the board and rule values the stage keeps
    targets: Targets = Targets()
    types: bool = False  # also step whole card types toward their gap band (card_type_pp)
    # further fields every run plays beside the config's first (config/rungs.py): each card's step
    # is then the one whose worst predicted contrast over every field and count is smallest
    rungs: tuple[str, ...] = ()


def card_fields(card) -> tuple[str, ...]:
    """The fields of TUNE_FIELDS a card's type has."""
    return tuple(f for f in TUNE_FIELDS if f in CARD_FIELDS[card.type])


def tune_space(config: Path, cards: list[str] | None = None, fields: list[str] | None = None,
               range_: int | None = None, screen_games: int | None = None, rounds: int | None = None,
               confirm_games: int | None = None, board: list[str] | None = None,
               board_trials: int | None = None, budget_games: int | None = None,
               budget_minutes: float | None = None, rules: list[str] | None = None,
               types: bool | None = None, rungs: list[str] | None = None) -> TuneSpace:
    """The search space: the config's [tune] table, each flag given replacing its key."""
    rc = load_run_config(config)
    t = Table(read_toml(config), config).table("tune", {})
    names = cards if cards is not None else t.take_list("cards", str, ["all"], min_length=1)
    chosen = fields if fields is not None else t.take_list("fields", str, list(DEFAULT_FIELDS), min_length=1)
    for f in chosen:
        if f not in TUNE_FIELDS:
            raise t.error("fields", f"{f!r} is not a card field a tune may change; allowed: "
                          f"{allowed(TUNE_FIELDS)}")
    space = TuneSpace(
        cards=_cards(rc.game, names, t),
        fields=tuple(f for f in TUNE_FIELDS if f in chosen),
        range=range_ if range_ is not None else t.take("range", int, 2, minimum=1),
        screen_games=screen_games or t.take("screen_games", int, 50_000, minimum=1000),
        rounds=rounds or t.take("rounds", int, 4, minimum=1),
        confirm_games=confirm_games or t.take("confirm_games", int, rc.games, minimum=1000),
        prune=t.take("prune", bool, True),
        board=tuple(board if board is not None else t.take_list("board", str, [])),
        board_trials=board_trials or t.take("board_trials", int, 16, minimum=1),
        budget_games=budget_games or t.take("budget_games", int, None, minimum=1000),
        budget_minutes=budget_minutes or t.take("budget_minutes", (int, float), None, minimum=0.1),
        rules=tuple(rules if rules is not None else t.take_list("rules", str, [])),
        second_pass=t.take("second_pass", bool, True),
        targets=_targets(t.table("targets", {})),
        types=types if types is not None else t.take("types", bool, False),
        rungs=tuple(_rungs(t, rungs if rungs is not None else t.take_list("rungs", str, []))),
    )
    known = board_values(rc.game)
    for key in space.board:
        if key not in known:
            raise t.error("board", f"{key!r} is not a whole-number board value a tune may change"
                          f"{nearest(key, known)}; allowed: {allowed(known)}")
    for key in space.rules:
        if key not in RULE_KEYS:
            raise t.error("rules", f"{key!r} is not a rule switch{nearest(key, RULE_KEYS)}; allowed: "
                          f"{allowed(RULE_KEYS)}")
        if isinstance(getattr(rc.game.rules, key), tuple):
            raise t.error("rules", f"{key!r} is a list, one value per seat or claim; a tune searches "
                          "switches of one value (set the list in the run config's [rules])")
    t.finish(("cards", "fields", "range", "screen_games", "rounds", "confirm_games", "prune", "board",
              "board_trials", "budget_games", "budget_minutes", "rules", "second_pass", "targets", "types",
              "rungs"))
    return space


def _rungs(t: Table, names: list[str]) -> list[str]:
    """The fields a tune steers over beside the config's own: heuristic rungs (a search rung would
    play each of the tune's millions of games at a few hundred a second)."""
    for n in names:
        if n not in RUNGS:
            raise t.error("rungs", f"{n!r} is not a rung{nearest(n, RUNGS)}; allowed: {allowed(RUNGS)}")
        if is_search(n):
            raise t.error("rungs", f"{n!r} is a search policy: a tune plays millions of games, a search "
                          "field a few hundred a second; check the tuned set under it with simcell compare")
    if len(set(names)) != len(names):
        raise t.error("rungs", f"a rung is named twice: {', '.join(names)}")
    return names


def _targets(t: Table) -> Targets:
    def span(table: Table, key: str, kind) -> tuple | None:
        v = table.take_list(key, kind, None)
        if v is not None and (len(v) != 2 or v[0] > v[1]):
            raise table.error(key, f"expects [low, high] with low <= high, got {v}")
        return tuple(v) if v is not None else None

    shares = t.table("hp_share", {})
    for source in shares.keys():
        if source not in HP_SOURCES:
            raise shares.error(source, f"is not an HP source{nearest(source, HP_SOURCES)}; allowed: "
                               f"{allowed(HP_SOURCES)}")
    out = Targets(winning_hp=span(t, "winning_hp", (int, float)), game_length=span(t, "game_length", int),
                  hp_share=tuple((s, *span(shares, s, (int, float))) for s in HP_SOURCES if shares.has(s)))
    shares.finish()
    t.finish(("winning_hp", "game_length", "hp_share"))
    return out


def rule_values(rules: Rules, key: str, range_: int) -> list:
    """The values a tune tries for a rule switch, its current value first: both of a yes/no
    switch, every word of a word switch, a whole number within ±range and its limits."""
    now = getattr(rules, key)
    if isinstance(now, bool):
        return [now, not now]
    if key in RULE_CHOICES:
        return [now] + [c for c in RULE_CHOICES[key] if c != now]
    lo, hi = RULE_LIMITS[key]
    top = now + range_ if hi is None else min(hi, now + range_)
    return [now] + [v for v in range(max(lo, now - range_), top + 1) if v != now]


def _cards(game: GameDefinition, names: list[str], t: Table) -> tuple[str, ...]:
    """"all", card type names and card names, as the cards a player completes, in id order."""
    completable = [c for c in sorted(game.cards, key=lambda c: c.id)
                   if c.type != CARD_TYPES[ADDITIONAL_RESOURCE]]
    by_name = {c.name for c in completable}
    types = {c.type for c in completable}
    out: set[str] = set()
    for n in names:
        kind = card_type_named(n)
        if n == "all":
            out |= by_name
        elif n in by_name:
            out.add(n)
        elif kind in types:
            out |= {c.name for c in completable if c.type == kind}
        else:
            raise ConfigError(t.path, "tune.cards", f"{n!r} is neither 'all', a card type nor a card "
                              f"a player completes{nearest(n, sorted(by_name | types))}; the types: "
                              f"{card_type_names()}")
    return tuple(c.name for c in completable if c.name in out)


def write_tuned(config: Path, changes: dict[tuple[str, str], int], folder: Path,
                settings: list = ()) -> tuple[Path, Path]:
    """folder/tuned-cards.toml, the config's resolved card set with `changes` ((card, field) ->
    value) applied, and folder/tuned.toml, the config playing it with the board `settings`
    ((Setting, value)) set (config/cardset.py)."""
    return write_card_set(config, changes, folder, stem="tuned", by="simcell tune", settings=list(settings))
