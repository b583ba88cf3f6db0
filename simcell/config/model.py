"""The resolved game definition: immutable, fully resolved, and content-hashed.

Everything the kernel will consume lives here, already validated: the board, the card set,
events, goals, epigenetic cards and rule switches. Per-resource vectors follow the order of
`simcell.vocabulary.RESOURCES`; values that depend on the player count are tuples indexed by
`players - MIN_PLAYERS`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from functools import cached_property

from simcell.vocabulary import MIN_PLAYERS, ORGANELLES, RESOURCES

Vector = tuple[int, ...]  # one int per resource, RESOURCES order


@dataclass(frozen=True)
class Spot:
    """One spot of a location. `label` is its letter (a, b, ...) in id order."""

    label: str
    cost: Vector
    gain: Vector


@dataclass(frozen=True)
class Location:
    id: str
    name: str
    action: str
    spots: tuple[Spot, ...]


@dataclass(frozen=True)
class Board:
    supply: Vector
    flasks_per_player: tuple[int, ...]  # by players - 2
    grey_flasks: int
    vesicles_per_player: int
    goal_markers_per_player: int
    two_player_detox_removed: int  # Detoxification cards removed by two_player_remove_detox
    events_set_aside: tuple[int, ...]  # by players - 2
    goals_revealed: tuple[int, ...]  # by players - 2
    cards_dealt: int
    starting_atp: tuple[int, ...]  # by seat
    combos: tuple[tuple[str, str], ...]
    slot_prices: tuple[int, ...]  # by Card Area slot, slot 0 leftmost
    budding_locations: tuple[int, ...]  # by organelle: rough_er, smooth_er, golgi
    first_marker_hp: int
    max_markers_per_goal: int
    locations: tuple[Location, ...]

    def location(self, location_id: str) -> Location:
        for loc in self.locations:
            if loc.id == location_id:
                return loc
        raise KeyError(location_id)

    def location_with(self, action: str) -> Location:
        for loc in self.locations:
            if loc.action == action:
                return loc
        raise KeyError(action)

    def budding(self, organelle: str) -> int:
        return self.budding_locations[ORGANELLES.index(organelle)]

    def flasks(self, players: int) -> int:
        return self.flasks_per_player[players - MIN_PLAYERS]


@dataclass(frozen=True)
class Card:
    """A Cell Component card. Fields a type does not have are 0 (golgi: None)."""

    id: int
    name: str
    type: str
    atp: int = 0
    protein: int = 0
    carb: int = 0
    lipid: int = 0
    golgi: str | None = None
    hp: int = 0
    bonus_per_match: int = 0
    gain: Vector = (0, 0, 0, 0, 0)


@dataclass(frozen=True)
class Effect:
    """One effect of an event or epigenetic card; which fields are set depends on `kind`.

    Event kinds: location_bonus(location, resource, n), all_gain(resource, n), card_discount(n),
    discard_down(limit), hp_if(condition, resource | type, m, n).
    Epigenetic kinds: yield_bonus(location, n), cost_discount(type, a), extra_vesicle(n),
    extra_goal_marker(n), start_bonus(resource, n).
    """

    kind: str
    location: str | None = None
    resource: str | None = None
    type: str | None = None
    condition: str | None = None
    n: int = 0
    m: int = 0
    a: int = 0
    limit: int = 0


@dataclass(frozen=True)
class Event:
    id: int
    name: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class Goal:
    """A goal card; `type` for per/most_completed, `resource` and `n` for per_leftover."""

    id: int
    name: str
    criterion: str
    hp: int
    type: str | None = None
    resource: str | None = None
    n: int = 0


@dataclass(frozen=True)
class Epigenetic:
    id: int
    name: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class Rules:
    """Rule switches (docs/rules.md [config] values that are not board data)."""

    epigenetic: bool
    supply_limited: bool
    grey_per_player: int
    two_player_remove_detox: bool
    turn_order: str
    laureates_holder_may_take: bool
    max_batch: int
    tie_rule: str
    placement_order: str
    laureates_once_each: bool
    starting_hp_by_seat: tuple[int, ...]  # by seat
    first_marker_hp: tuple[int, ...]  # by claim order, the last repeating; () = the board's value
    goals_open_round: int  # no goal marker placed before this round
    laureates_marker_only: bool  # Laureates offers no goal marker

    def settings(self) -> list[tuple[str, object]]:
        """(name, value) of every switch, in declaration order."""
        return [(f.name, getattr(self, f.name)) for f in dataclasses.fields(self)]


RULE_KEYS = tuple(f.name for f in dataclasses.fields(Rules))  # the keys of rules.toml and [rules]


@dataclass(frozen=True)
class GameDefinition:
    """Everything that defines the game played; its content hash identifies a card set."""

    board: Board
    cards: tuple[Card, ...]
    events: tuple[Event, ...]
    goals: tuple[Goal, ...]
    epigenetic: tuple[Epigenetic, ...]
    rules: Rules

    def canonical_json(self) -> str:
        """A canonical text of every value (no file paths, no run settings)."""
        return json.dumps(
            dataclasses.asdict(self), sort_keys=True, separators=(",", ":"), ensure_ascii=True
        )

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the canonical text: changes when any value changes, and only then."""
        return hashlib.sha256(self.canonical_json().encode("ascii")).hexdigest()

    def card(self, card_id: int) -> Card:
        for c in self.cards:
            if c.id == card_id:
                return c
        raise KeyError(card_id)

    def first_marker_hp(self, claims: int) -> int:
        """HP of the first marker placed on a goal card when `claims` goal cards already hold
        one (rules.first_marker_hp, its last value repeating; else the board's one value)."""
        hp = self.rules.first_marker_hp or (self.board.first_marker_hp,)
        return hp[min(claims, len(hp) - 1)]

    def rounds(self, players: int) -> int:
        """Events in the deck + 1 (docs/rules.md §2)."""
        return len(self.events) - self.board.events_set_aside[players - MIN_PLAYERS] + 1


def resource_vector(amounts: dict[str, int]) -> Vector:
    return tuple(int(amounts.get(r, 0)) for r in RESOURCES)
