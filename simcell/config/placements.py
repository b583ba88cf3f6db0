"""A card's cost in placements: the fewest flask placements that acquire and complete it from
nothing at the board's best rates, and its HP per placement (docs/method.md, card strength).

Acquiring is one placement at the cheapest Card Area slot (paying that slot's price in ATP).
Completing counts the placements of its route (Free Ribosome and Cytoplasm for an Enzyme; ER,
Golgi and Exocytosis for a vesicle card; the Detoxification spot). The raw resources of the route
(mRNA that becomes Protein, Lipid, the Golgi resource, ATP) are gathered at the `collect` spots,
any spot any number of times, each placement paying its spot's cost from what has been gathered
so far; a breadth-first search over stocks finds the fewest. Exhausting is not a placement and
per-round spot limits are ignored ("best rates").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simcell.vocabulary import ATP, CARB, LIPID, MRNA, N_RESOURCES, ROUGH_ER_TYPES

Vector = tuple[int, ...]


@dataclass(frozen=True)
class CollectSpot:
    """A collect spot's cost and gain as per-resource vectors (RESOURCES order)."""

    cost: Vector
    gain: Vector


def route(card_type: str, fields: dict[str, object], max_batch: int) -> tuple[int, Vector] | None:
    """Placements of the card's own route and the raw resources it consumes, excluding the
    purchase; None for a card that is never completed (Additional Resource)."""
    need = [0] * N_RESOURCES
    need[ATP] = int(fields.get("atp", 0))
    golgi = fields.get("golgi")
    if golgi is not None:
        need[CARB if golgi == "carb" else LIPID] += 1
    if card_type == "enzyme":
        protein = int(fields["protein"])
        need[MRNA] += protein
        need[CARB] += int(fields["carb"])
        ribosome = math.ceil(protein / max_batch) if protein else 0
        return 1 + ribosome, tuple(need)  # Free Ribosome visits, Cytoplasm
    if card_type in ROUGH_ER_TYPES:
        need[MRNA] += int(fields["protein"])
        return 3, tuple(need)  # Rough ER, Golgi, Exocytosis
    if card_type == "steroid_hormone":
        need[LIPID] += int(fields["lipid"])
        return 3, tuple(need)  # Steroid Synthesis, Golgi, Exocytosis
    if card_type == "detox":
        return 1, tuple(need)
    return None


def fewest_collect_placements(need: Vector, spots: tuple[CollectSpot, ...], limit: int = 40) -> int:
    """Fewest placements at collect spots, starting from an empty stock, that leave at least
    `need` of every resource. Returns -1 if `limit` placements do not suffice."""
    if all(n <= 0 for n in need):
        return 0
    max_cost = [max((s.cost[r] for s in spots), default=0) for r in range(N_RESOURCES)]
    level = {tuple(0 for _ in need)}
    seen = set(level)
    for depth in range(1, limit + 1):
        remaining = limit - depth
        # Stock above need plus what later placements could spend is never useful: cap it.
        cap = [need[r] + max_cost[r] * (remaining + 1) for r in range(N_RESOURCES)]
        nxt = set()
        for stock in level:
            for spot in spots:
                if any(stock[r] < spot.cost[r] for r in range(N_RESOURCES)):
                    continue
                new = tuple(
                    min(stock[r] - spot.cost[r] + spot.gain[r], cap[r]) for r in range(N_RESOURCES)
                )
                if all(new[r] >= need[r] for r in range(N_RESOURCES)):
                    return depth
                if new not in seen:
                    seen.add(new)
                    nxt.add(new)
        level = _pareto(nxt)
        if not level:
            return -1
    return -1


def _pareto(states: set[Vector]) -> set[Vector]:
    """Drop stocks dominated by another stock of the same level (never better to hold less)."""
    ordered = sorted(states, key=sum, reverse=True)
    kept: list[Vector] = []
    for s in ordered:
        if not any(all(k[r] >= s[r] for r in range(len(s))) for k in kept):
            kept.append(s)
    return set(kept)


def cost_in_placements(
    card_type: str,
    fields: dict[str, object],
    spots: tuple[CollectSpot, ...],
    cheapest_price: int,
    max_batch: int,
) -> int | None:
    """Fewest placements to buy and complete the card from nothing; None if never completed."""
    r = route(card_type, fields, max_batch)
    if r is None:
        return None
    steps, need = r
    need = list(need)
    need[ATP] += cheapest_price
    gather = fewest_collect_placements(tuple(need), spots)
    if gather < 0:
        return None
    return 1 + steps + gather


def collect_spots(board) -> tuple[CollectSpot, ...]:
    """The board's collect spots as cost/gain vectors."""
    return tuple(
        CollectSpot(spot.cost, spot.gain)
        for loc in board.locations
        if loc.action == "collect"
        for spot in loc.spots
    )


def card_placements(game) -> dict[int, int | None]:
    """Cost in placements of every card of a GameDefinition (None: never completed)."""
    spots = collect_spots(game.board)
    cheapest = min(game.board.slot_prices)
    out: dict[int, int | None] = {}
    for card in game.cards:
        fields = {
            "atp": card.atp,
            "protein": card.protein,
            "carb": card.carb,
            "lipid": card.lipid,
            "golgi": card.golgi,
        }
        out[card.id] = cost_in_placements(card.type, fields, spots, cheapest, game.rules.max_batch)
    return out
