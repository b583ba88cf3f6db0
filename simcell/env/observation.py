"""What one seat may know (docs/rules.md §9), as a flat integer vector built from the referee's
state: the public table, every player's public stocks and counts, and the observer's own hand.
Never read here: other hands (only their sizes), the deck order, the set-aside and unrevealed
events, the undealt epigenetic cards, which Detoxification cards a 2-player game removed.

The blocks follow the kernel's user-policy observation (`simcell/kernel/observation.py`), with
every card set spread into one 0/1 entry per card id; `ObservationLayout.blocks` names them and
docs/env.md lists them."""

from __future__ import annotations

import numpy as np

from simcell.config.model import GameDefinition
from simcell.vocabulary import HP_SOURCES, MIN_PLAYERS, N_RESOURCES, ORGANELLES
from simcell.referee.legal import markers_left, slot_price, unplaced_own_flasks
from simcell.referee.state import PHASE_ONE, SETUP_COMBO, SETUP_RETURN, GameState

# The phase entry of the header: what the seat to move is deciding.
PHASES = {SETUP_RETURN: 1, SETUP_COMBO: 2, PHASE_ONE: 3}
HEADER = ("phase", "round", "events left", "to move", "marker holder", "grey flasks left",
          "card discount", "deck size", "observer seat", "holder at round start")
PLAYER_COUNTS = ("unplaced own flasks", "own flasks exhausted this round",
                 "grey flasks placed this round", "out", "goal markers left", "free disks",
                 "holder at round start", "flasks exhausted this game", "hand size",
                 "epigenetic card")
VESICLE = ("owner", "origin", "load", "golgi resource")


class ObservationLayout:
    """Sizes and offsets of the observation vector for one game definition and player count."""

    def __init__(self, game: GameDefinition, players: int) -> None:
        self.players = players
        self.n_cards = 1 + max(c.id for c in game.cards)  # one entry per card id
        self.events = [e.id for e in game.events]
        self.goals = [g.id for g in game.goals]
        self.n_goals = game.board.goals_revealed[players - MIN_PLAYERS]
        self.n_slots = len(game.board.slot_prices)
        self.n_spots = sum(len(loc.spots) for loc in game.board.locations)
        self.n_locations = len(game.board.locations)
        self.budding = max(game.board.budding(o) for o in ORGANELLES)
        c, p = self.n_cards, players
        per_player = N_RESOURCES + len(HP_SOURCES) + 2 * c + len(PLAYER_COUNTS)
        self.blocks: list[tuple[str, int]] = [
            ("header", len(HEADER)),
            ("event revealed in round", len(self.events)),
            ("location bonus", 2 * self.n_locations),
            ("goals in play", self.n_goals),
            ("goal markers", self.n_goals * p),
            ("card area", self.n_slots),
            ("slot prices", self.n_slots),
            ("discard pile", c),
            ("spots", self.n_spots),
            ("vesicles", len(ORGANELLES) * self.budding * len(VESICLE)),
            ("players", p * per_player),
            ("own hand", c),
            ("own returned card", 1),
        ]
        self.per_player = per_player
        self.size = sum(n for _, n in self.blocks)

    def offset(self, block: str) -> int:
        at = 0
        for name, n in self.blocks:
            if name == block:
                return at
            at += n
        raise KeyError(block)


def observe(state: GameState, seat: int, layout: ObservationLayout) -> np.ndarray:
    """Seat's observation of `state` (int64, `layout.size` entries)."""
    out: list[int] = []
    c = layout.n_cards
    out += [
        PHASES.get(state.phase, 0),
        state.round,
        len(state.event_deck),
        -1 if state.to_move is None else state.to_move,
        state.marker,
        state.grey_left,
        state.card_discount,
        len(state.deck),
        seat,
        state.round_start_marker,
    ]
    revealed = {e: r + 1 for r, e in enumerate(state.events_revealed)}
    out += [revealed.get(e, 0) for e in layout.events]
    bonus = [[-1, 0] for _ in range(layout.n_locations)]
    for b in state.location_bonuses:
        if not b.claimed:
            bonus[b.location] = [b.resource, b.n]
    out += [x for pair in bonus for x in pair]
    out += [layout.goals.index(g) for g in state.goals_in_play]
    out += [-1] * (layout.n_goals - len(state.goals_in_play))
    for gi in range(layout.n_goals):
        on_card = state.goal_markers[gi] if gi < len(state.goal_markers) else []
        out += [1 if s in on_card else 0 for s in range(layout.players)]
    out += [-1 if card is None else card for card in state.card_area]
    out += [slot_price(state, slot) for slot in range(layout.n_slots)]
    out += _bits(state.discard, c)
    out += [-1 if occupant is None else occupant[0] for spots in state.spots for occupant in spots]
    for org in range(len(ORGANELLES)):
        places = state.budding[org] + [None] * (layout.budding - len(state.budding[org]))
        for v in places:
            out += [-1, 0, 0, -1] if v is None else [v.owner, v.origin, v.load, v.golgi]
    for p in state.seats:
        out += list(p.stock)
        out += list(p.hp_by_source)
        out += _bits(p.completed, c)
        out += _bits(p.bought, c)
        out += [
            unplaced_own_flasks(state, p.seat),
            p.flasks_exhausted_round,
            p.grey_placed,
            int(p.out),
            markers_left(state, p.seat),
            state.free_disks(p.seat),
            int(state.round_start_marker == p.seat),
            p.flasks_exhausted,
            len(p.hand),
            -1 if p.epigenetic is None else p.epigenetic,
        ]
    me = state.seats[seat]
    out += _bits(me.hand, c)
    out.append(-1 if me.returned is None else me.returned)
    return np.asarray(out, dtype=np.int64)


def _bits(card_ids, n: int) -> list[int]:
    bits = [0] * n
    for i in card_ids:
        bits[i] = 1
    return bits
