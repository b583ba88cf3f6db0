"""The environment's action encoding: every action code the game's rules could ever list for one
game definition and player count (the bit-fields of `vocabulary.encode_action`), in ascending code
order, numbered 0, 1, 2, ... A Discrete action is an index into this table; the referee's legal
actions become a mask over it. docs/env.md describes the table."""

from __future__ import annotations

from simcell.config.model import GameDefinition
from simcell.vocabulary import (
    ACT_COMBO,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ACT_RETURN,
    CARD_TYPES,
    DETOX,
    ENZYME,
    EXHAUST_RESOURCES,
    FLASK_GREY,
    FLASK_OWN,
    GOLGI_CARB,
    GOLGI_LIPID,
    MIN_PLAYERS,
    ORG_GOLGI,
    ORG_ROUGH,
    ORG_SMOOTH,
    ORGANELLES,
    SOURCE_RADIX,
    VESICLE_TYPES,
    encode_action,
)

# A placement's parameters (p1, p2, p3); the flask and the location are added when encoding.
Params = tuple[int, int, int]


class ActionTable:
    """Action index <-> action code for one game definition and player count."""

    def __init__(self, game: GameDefinition, players: int) -> None:
        codes = {encode_action(ACT_PASS)}
        codes |= {encode_action(ACT_EXHAUST, p1=r) for r in EXHAUST_RESOURCES}
        codes |= {encode_action(ACT_RETURN, p1=c.id) for c in game.cards}
        codes |= {encode_action(ACT_COMBO, p1=i) for i in range(len(game.board.combos))}
        for li, location in enumerate(game.board.locations):
            for params in placement_params(game, players, location.action, len(location.spots)):
                for flask in (FLASK_OWN, FLASK_GREY):
                    codes.add(encode_action(ACT_PLACE, flask, li, *params))
        self.codes: list[int] = sorted(codes)
        self.index_of: dict[int, int] = {code: i for i, code in enumerate(self.codes)}

    def __len__(self) -> int:
        return len(self.codes)

    def code(self, index: int) -> int:
        return self.codes[index]

    def index(self, code: int) -> int:
        try:
            return self.index_of[code]
        except KeyError:
            raise ValueError(f"action code {code} is outside the environment's action table") from None


def placement_params(game: GameDefinition, players: int, action: str, spots: int) -> list[Params]:
    """Every (p1, p2, p3) a location of this action may ever list (the rules' upper bounds: any
    k up to max_batch, any victim, any card of the fitting type)."""
    batch = range(1, game.rules.max_batch + 1)
    budding = {o: game.board.budding(name) for o, name in enumerate(ORGANELLES)}

    def victims(organelle: int) -> range:  # 0 = no victim, else budding index + 1
        return range(budding[organelle] + 1)

    def cards_of(*types: str) -> list[int]:
        return sorted(c.id for c in game.cards if c.type in types)

    if action == "collect":
        return [(s, 0, 0) for s in range(spots)]
    if action == "translate":
        return [(k, 0, 0) for k in batch]
    if action == "card_area":
        return [(slot, 0, 0) for slot in range(len(game.board.slot_prices))]
    if action == "enzyme_synthesis":
        return [(c, 0, 0) for c in cards_of(CARD_TYPES[ENZYME])]
    if action == "protein_synthesis":
        return [(k, v, 0) for k in batch for v in victims(ORG_ROUGH)]
    if action == "steroid_synthesis":
        return [(k, v, 0) for k in batch for v in victims(ORG_SMOOTH)]
    if action == "golgi":
        return [
            (org * SOURCE_RADIX + i, g, v)
            for org in (ORG_ROUGH, ORG_SMOOTH)
            for i in range(budding[org])
            for g in (GOLGI_CARB, GOLGI_LIPID)
            for v in victims(ORG_GOLGI)
        ]
    if action == "exocytosis":
        return [(i, c, 0) for i in range(budding[ORG_GOLGI]) for c in cards_of(*VESICLE_TYPES)]
    if action == "detoxification":
        return [(c, 0, 0) for c in cards_of(CARD_TYPES[DETOX])]
    if action == "laureates":
        goals = game.board.goals_revealed[players - MIN_PLAYERS]
        return [(g, 0, 0) for g in range(1 + goals)]
    raise ValueError(f"location action {action!r} has no action encoding")
