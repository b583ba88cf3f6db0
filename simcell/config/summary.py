"""Plain summaries of a resolved game for people: card counts against the seed's, card values
against the shipped set, and the card table with costs in placements."""

from __future__ import annotations

import dataclasses
from collections import Counter

from simcell.config.model import GameDefinition
from simcell.config.placements import card_placements
from simcell.kernel.enums import CARD_TYPES, SEED_CARD_COUNTS

CARD_VALUE_FIELDS = ("type", "atp", "protein", "carb", "lipid", "golgi", "hp", "bonus_per_match", "gain")


def count_differences(game: GameDefinition) -> list[str]:
    """One line per card type whose count differs from the seed's (RULES.md §1)."""
    counts = Counter(c.type for c in game.cards)
    return [
        f"{t}: {counts.get(t, 0)} cards (seed: {SEED_CARD_COUNTS[t]})"
        for t in CARD_TYPES
        if counts.get(t, 0) != SEED_CARD_COUNTS[t]
    ]


def card_differences(game: GameDefinition, reference: GameDefinition) -> list[str]:
    """One line per card value that differs from `reference` (normally the shipped set)."""
    ref = {c.id: c for c in reference.cards}
    now = {c.id: c for c in game.cards}
    lines = []
    for cid in sorted(set(ref) | set(now)):
        a, b = ref.get(cid), now.get(cid)
        if a is None:
            lines.append(f"card {cid} {b.name!r}: added")
            continue
        if b is None:
            lines.append(f"card {cid} {a.name!r}: removed")
            continue
        if a.name != b.name:
            lines.append(f"card {cid}: name {a.name!r} -> {b.name!r}")
        for f in CARD_VALUE_FIELDS:
            va, vb = getattr(a, f), getattr(b, f)
            if va != vb:
                lines.append(f"card {cid} {b.name!r}: {f} {va} -> {vb}")
    return lines


def card_rows(game: GameDefinition) -> list[dict[str, object]]:
    """The card table: values, cost in placements and HP per placement (None when never
    completed)."""
    placements = card_placements(game)
    rows = []
    for c in game.cards:
        pl = placements[c.id]
        row = dataclasses.asdict(c)
        row["placements"] = pl
        row["hp_per_placement"] = (c.hp / pl) if pl else None
        rows.append(row)
    return rows
