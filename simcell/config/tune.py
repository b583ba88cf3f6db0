"""`simcell tune`: its search space ([tune] table, or flags), and its output in simcell's own
formats: the tuned card file (the config's resolved card set with the changes applied) and a run
config that plays it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from simcell.config.errors import ConfigError, allowed, nearest
from simcell.config.load import load_run_config
from simcell.config.model import GameDefinition
from simcell.config.cardset import write_card_set
from simcell.config.summary import board_values
from simcell.config.tables import Table, read_toml
from simcell.vocabulary import ADDITIONAL_RESOURCE, CARD_FIELDS, CARD_TYPES

# card fields a tune may change, in the order it prefers them (a designer moves the ATP cost
# first), with the smallest value each may take
TUNE_FIELDS = {"atp": 0, "hp": 1, "protein": 1, "carb": 0, "lipid": 1}
DEFAULT_FIELDS = ("atp", "hp")


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


def card_fields(card) -> tuple[str, ...]:
    """The fields of TUNE_FIELDS a card's type has."""
    return tuple(f for f in TUNE_FIELDS if f in CARD_FIELDS[card.type])


def tune_space(config: Path, cards: list[str] | None = None, fields: list[str] | None = None,
               range_: int | None = None, screen_games: int | None = None, rounds: int | None = None,
               confirm_games: int | None = None, board: list[str] | None = None,
               board_trials: int | None = None, budget_games: int | None = None,
               budget_minutes: float | None = None) -> TuneSpace:
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
    )
    known = board_values(rc.game)
    for key in space.board:
        if key not in known:
            raise t.error("board", f"{key!r} is not a whole-number board value a tune may change"
                          f"{nearest(key, known)}; allowed: {allowed(known)}")
    t.finish(("cards", "fields", "range", "screen_games", "rounds", "confirm_games", "prune", "board",
              "board_trials", "budget_games", "budget_minutes"))
    return space


def _cards(game: GameDefinition, names: list[str], t: Table) -> tuple[str, ...]:
    """"all", card type names and card names, as the cards a player completes, in id order."""
    completable = [c for c in sorted(game.cards, key=lambda c: c.id)
                   if c.type != CARD_TYPES[ADDITIONAL_RESOURCE]]
    by_name = {c.name for c in completable}
    types = {c.type for c in completable}
    out: set[str] = set()
    for n in names:
        if n == "all":
            out |= by_name
        elif n in types:
            out |= {c.name for c in completable if c.type == n}
        elif n in by_name:
            out.add(n)
        else:
            raise ConfigError(t.path, "tune.cards", f"{n!r} is neither 'all', a card type nor a card "
                              f"a player completes{nearest(n, sorted(by_name | types))}")
    return tuple(c.name for c in completable if c.name in out)


def write_tuned(config: Path, changes: dict[tuple[str, str], int], folder: Path,
                settings: list = ()) -> tuple[Path, Path]:
    """folder/tuned-cards.toml, the config's resolved card set with `changes` ((card, field) ->
    value) applied, and folder/tuned.toml, the config playing it with the board `settings`
    ((Setting, value)) set (config/cardset.py)."""
    return write_card_set(config, changes, folder, stem="tuned", by="simcell tune", settings=list(settings))
