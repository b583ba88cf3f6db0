"""The referee's game state: plain dataclasses holding what is on the table (docs/rules.md §1–§10).

Nothing here knows a rule; the rules modules read and change these fields. Card, event, goal and
epigenetic cards are named by their ids; resources are indexed in `vocabulary.RESOURCES` order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simcell.config.model import Card, GameDefinition
from simcell.vocabulary import (
    CARB,
    GOLGI_CARB,
    GOLGI_LIPID,
    GOLGI_NONE,
    HP_SOURCES,
    LIPID,
    MIN_PLAYERS,
    N_RESOURCES,
    ORG_ROUGH,
    ORGANELLES,
    PROTEIN,
    flow_layout,
)

# What the game is waiting for (`GameState.phase`).
SETUP = "setup"  # chance steps of setup, no decision pending
SETUP_RETURN = "setup_return"  # step 3: the player to move names the dealt card it returns
SETUP_COMBO = "setup_combo"  # step 5: the player to move takes a 2-resource combination
PHASE_ONE = "phase_one"  # flask placement: the player to move takes one action
PHASE_TWO = "phase_two"  # event and refresh, no decision pending
GAME_OVER = "game_over"


@dataclass(frozen=True)
class GameMeta:
    """Who sits where in one game of a run; copied into the records unchanged.

    Empty `seat_player` means player id = seat; empty `seat_policy` means policy 0 everywhere.
    """

    game: int = 0
    deal: int = 0
    rotation: int = 0
    seat_player: tuple[int, ...] = ()
    seat_policy: tuple[int, ...] = ()

    def player_of(self, seat: int) -> int:
        return self.seat_player[seat] if self.seat_player else seat

    def policy_of(self, seat: int) -> int:
        return self.seat_policy[seat] if self.seat_policy else 0


@dataclass
class Vesicle:
    """A Transport Vesicle disk on a budding location (docs/rules.md §3 "Vesicles")."""

    owner: int  # seat
    origin: int  # ORG_ROUGH or ORG_SMOOTH: the ER where it was loaded
    load: int  # Protein (Rough ER) or Lipid (Smooth ER) loaded at its ER
    golgi: int = GOLGI_NONE  # GOLGI_CARB or GOLGI_LIPID once it has visited the Golgi

    def cargo(self) -> list[int]:
        """Everything on the disk, per resource."""
        out = [0] * N_RESOURCES
        out[PROTEIN if self.origin == ORG_ROUGH else LIPID] += self.load
        if self.golgi == GOLGI_CARB:
            out[CARB] += 1
        elif self.golgi == GOLGI_LIPID:
            out[LIPID] += 1
        return out


@dataclass
class LocationBonus:
    """An event's location bonus for the round being played (docs/rules.md §6)."""

    location: int  # location index in board order
    resource: int
    n: int
    claimed: bool = False


@dataclass
class LogEvent:
    """One line-worth of game history for the human log (rendered by `referee.log`)."""

    kind: str
    round: int  # 0 during setup
    seat: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class PlayerState:
    """One seat: stocks, cards, markers, this round's flasks, and what the records count."""

    seat: int
    stock: list[int]  # personal stock per resource
    hp_by_source: list[int]  # HP_SOURCES order
    flows: list[list[int]]  # flow rows (vocabulary.flow_layout) x RESOURCES
    hand: set[int] = field(default_factory=set)
    completed: list[int] = field(default_factory=list)  # card ids, in completion order
    epigenetic: int | None = None  # epigenetic card id (advanced variant)
    disks: int = 0  # Transport Vesicle disks owned
    goal_markers: int = 0  # goal markers owned
    # this round (reset when a round starts)
    flasks_placed: int = 0
    flasks_exhausted_round: int = 0
    grey_placed: int = 0
    out: bool = False
    # records
    dealt: list[int] = field(default_factory=list)
    returned: int | None = None
    bought: list[int] = field(default_factory=list)
    flasks_exhausted: int = 0
    grey_used: int = 0
    laureates_taken: int = 0
    laureates_as_holder: int = 0
    goal_markers_placed: int = 0
    goal_bonus_paid: dict[int, int] = field(default_factory=dict)  # goal id -> its end bonus
    vesicles_lost: int = 0
    placements_by_location: list[int] = field(default_factory=list)
    hp_by_round: list[int] = field(default_factory=list)

    @property
    def hp(self) -> int:
        return sum(self.hp_by_source)

    @property
    def kept(self) -> list[int]:
        return [c for c in self.dealt if c != self.returned]


@dataclass
class GameState:
    """The whole table. Lists of cards are ordered: the deck top is index 0, slot 0 is leftmost."""

    game: GameDefinition
    players: int
    meta: GameMeta
    rounds: int
    seats: list[PlayerState]
    cards: dict[int, Card]  # card id -> card
    layout: dict[str, int]  # flow row layout (vocabulary.flow_layout)
    phase: str = SETUP
    round: int = 0  # 1-based once play starts
    to_move: int | None = None  # seat whose decision is pending
    # events
    events_set_aside: list[int] = field(default_factory=list)
    event_deck: list[int] = field(default_factory=list)  # next to reveal first
    events_revealed: list[int] = field(default_factory=list)
    # goals: goal ids by goal index, and the seats with a marker on each
    goals_in_play: list[int] = field(default_factory=list)
    goal_markers: list[list[int]] = field(default_factory=list)
    goal_marker_round: dict[tuple[int, int], int] = field(default_factory=dict)  # (goal index, seat) -> round placed
    # cards
    detox_removed: list[int] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    card_area: list[int | None] = field(default_factory=list)  # card id per slot, None if empty
    returned_cards: list[int] = field(default_factory=list)  # setup step 3, seat order
    # board
    spots: list[list[tuple[int, int] | None]] = field(default_factory=list)  # (seat, flask) per spot
    grey_left: int = 0
    budding: list[list[Vesicle | None]] = field(default_factory=list)  # by organelle, by index
    marker: int = 0  # holder of the First Player Marker
    round_start_marker: int = 0  # holder when this round's Phase 1 started
    backwards: bool = False  # placement_order: this pass (snake_pass) or round (snake_round) runs backwards
    laureates_visited: set[int] = field(default_factory=set)  # laureates_once_each: this circle's visitors
    location_bonuses: list[LocationBonus] = field(default_factory=list)
    card_discount: int = 0
    # measurements
    reshuffles: int = 0
    visible: set[int] = field(default_factory=set)  # dealt, or ever shown in the Card Area
    peak_use: list[int] = field(default_factory=lambda: [0] * N_RESOURCES)
    supply_shortfall: list[int] = field(default_factory=lambda: [0] * N_RESOURCES)
    first_player: list[int] = field(default_factory=list)  # marker holder at each round's start
    log: list[LogEvent] = field(default_factory=list)

    # -- lookups -------------------------------------------------------------------------
    def player(self, seat: int) -> PlayerState:
        return self.seats[seat]

    def row(self, kind: str, index: int = 0) -> int:
        """Flow row of a kind (`gain_spot`, `spend_completion`, `cargo_lost`, ...) + offset."""
        return self.layout[kind] + index

    def vesicles(self) -> list[tuple[int, int, Vesicle]]:
        """(organelle, budding index, vesicle) for every vesicle on the board."""
        return [
            (org, i, v)
            for org, locations in enumerate(self.budding)
            for i, v in enumerate(locations)
            if v is not None
        ]

    def free_disks(self, seat: int) -> int:
        on_board = sum(1 for _, _, v in self.vesicles() if v.owner == seat)
        return self.seats[seat].disks - on_board

    def cargo_of(self, seat: int) -> list[int]:
        out = [0] * N_RESOURCES
        for _, _, v in self.vesicles():
            if v.owner == seat:
                for r, n in enumerate(v.cargo()):
                    out[r] += n
        return out

    def held(self, resource: int) -> int:
        """All personal stocks plus all cargo of one resource."""
        stock = sum(p.stock[resource] for p in self.seats)
        cargo = sum(v.cargo()[resource] for _, _, v in self.vesicles())
        return stock + cargo

    def supply_left(self, resource: int) -> int:
        """Limited supply: component count - personal stocks - cargo (docs/rules.md §10)."""
        return self.game.board.supply[resource] - self.held(resource)

    def turn_order_from_marker(self) -> list[int]:
        return [(self.marker + i) % self.players for i in range(self.players)]

    def round_table(self) -> list[int]:
        """The seats from this round's first marker holder on, in increasing seat order; read
        backwards when `backwards` (docs/rules.md §2, placement_order)."""
        table = [(self.round_start_marker + i) % self.players for i in range(self.players)]
        return table[::-1] if self.backwards else table

    def add_log(self, kind: str, seat: int | None = None, **detail: Any) -> None:
        self.log.append(LogEvent(kind, self.round, seat, detail))


def new_game_state(game: GameDefinition, players: int, meta: GameMeta) -> GameState:
    """An empty table for `players` seats: nothing shuffled or dealt yet (before setup step 1)."""
    board = game.board
    layout = flow_layout(len(board.locations))
    seats = [
        PlayerState(
            seat=s,
            stock=[0] * N_RESOURCES,
            hp_by_source=[0] * len(HP_SOURCES),
            flows=[[0] * N_RESOURCES for _ in range(layout["n_rows"])],
            disks=board.vesicles_per_player,
            goal_markers=board.goal_markers_per_player,
            placements_by_location=[0] * len(board.locations),
        )
        for s in range(players)
    ]
    return GameState(
        game=game,
        players=players,
        meta=meta,
        rounds=game.rounds(players),
        seats=seats,
        cards={c.id: c for c in game.cards},
        layout=layout,
        card_area=[None] * len(board.slot_prices),
        spots=[[None] * len(loc.spots) for loc in board.locations],
        grey_left=board.grey_flasks,
        budding=[[None] * board.budding(o) for o in ORGANELLES],
    )


def player_count_index(players: int) -> int:
    """Index into the per-player-count tuples of the board."""
    return players - MIN_PLAYERS
