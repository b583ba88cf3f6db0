"""Plain summaries of a resolved game for people: card counts against the seed's, card values
against the shipped set, the card table with costs in placements, and what `simcell validate`
prints of a run config."""

from __future__ import annotations

import dataclasses
from collections import Counter

from simcell.config.model import Card, GameDefinition
from simcell.config.placements import card_placements
from simcell.vocabulary import CARD_FIELDS, CARD_TYPES, SEED_CARD_COUNTS

CARD_VALUE_FIELDS = ("type", "atp", "protein", "carb", "lipid", "golgi", "hp", "bonus_per_match", "gain")


def count_differences(game: GameDefinition) -> list[str]:
    """One line per card type whose count differs from the seed's (docs/rules.md §1)."""
    counts = Counter(c.type for c in game.cards)
    return [
        f"{t}: {counts.get(t, 0)} cards (seed: {SEED_CARD_COUNTS[t]})"
        for t in CARD_TYPES
        if counts.get(t, 0) != SEED_CARD_COUNTS[t]
    ]


def card_difference_rows(game: GameDefinition, reference: GameDefinition) -> list[dict[str, str]]:
    """One row per card value that differs from `reference` (normally the shipped set), by card
    id: {"card": "11 'Insulin'", "field": "atp" (or "(card)" for an added, removed or renamed
    card), "shipped": the reference's value, "run": this game's}."""
    ref = {c.id: c for c in reference.cards}
    now = {c.id: c for c in game.cards}
    rows = []
    for cid in sorted(set(ref) | set(now)):
        a, b = ref.get(cid), now.get(cid)
        if a is None:
            rows.append({"card": f"{cid} {b.name!r}", "field": "(card)", "shipped": "-",
                         "run": "added"})
            continue
        if b is None:
            rows.append({"card": f"{cid} {a.name!r}", "field": "(card)", "shipped": "present",
                         "run": "removed"})
            continue
        if a.name != b.name:
            rows.append({"card": str(cid), "field": "name", "shipped": repr(a.name),
                         "run": repr(b.name)})
        for f in CARD_VALUE_FIELDS:
            va, vb = getattr(a, f), getattr(b, f)
            if va != vb:
                rows.append({"card": f"{cid} {b.name!r}", "field": f, "shipped": str(va),
                             "run": str(vb)})
    return rows


def card_differences(game: GameDefinition, reference: GameDefinition) -> list[str]:
    """card_difference_rows as lines: "card 11 'Insulin': atp 1 -> 2"."""
    lines = []
    for r in card_difference_rows(game, reference):
        if r["field"] == "(card)":
            lines.append(f"card {r['card']}: {r['run']}")
        elif r["field"] == "name":
            lines.append(f"card {r['card']}: name {r['shipped']} -> {r['run']}")
        else:
            lines.append(f"card {r['card']}: {r['field']} {r['shipped']} -> {r['run']}")
    return lines


def _toml(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def describe_run_config(rc, shipped: GameDefinition) -> list[str]:
    """The lines `simcell validate` prints for a loaded run config: what will be played, with
    which data, rules, overrides and report bands, and how the card set differs from the seed's
    counts and the `shipped` values."""
    game = rc.game
    out = [
        f"config        {rc.source}",
        f"content hash  {game.content_hash}",
        f"players       {', '.join(map(str, rc.players))}",
        f"games         {rc.games:,} per field and player count",
        f"seed          {rc.seed}",
        f"duplicate     {str(rc.duplicate).lower()}",
    ]
    if rc.dask:
        out.append(f"dask          {rc.dask}")
    out += [f"field         {f.name}: {f.describe()}" for f in rc.fields]
    out.append("rounds        " + ", ".join(f"{p}p {game.rounds(p)}" for p in rc.players))
    out.append("rules         " + " ".join(f"{k}={_toml(v)}" for k, v in game.rules.settings()))
    b = game.board
    out.append(f"board         starting_atp={list(b.starting_atp)} slot_prices={list(b.slot_prices)} "
               f"budding rough/smooth/golgi={list(b.budding_locations)}")
    out.append(f"data          {len(game.cards)} cards, {len(game.events)} events, "
               f"{len(game.goals)} goals, {len(game.epigenetic)} epigenetic cards")
    out += [f"  {kind:11s} {path}" for kind, path in rc.data_files]
    out += [f"override      {line}" for line in rc.overrides]
    counts = count_differences(game)
    out.append("card counts   " + ("as the seed" if not counts else "differ from the seed:"))
    out += [f"  {line}" for line in counts]
    diffs = card_differences(game, shipped)
    out.append("card values   " + ("as shipped" if not diffs else
                                   f"{len(diffs)} differ from the shipped set:"))
    out += [f"  {line}" for line in diffs]
    bands = ", ".join(f"{k}={v:g}{' (default)' if k in rc.report.default_bands else ''}"
                      for k, v in rc.report.bands)
    out.append(f"report        blocks={rc.report.blocks} bands: {bands}")
    return out


def card_value_marks(card: Card, shipped: Card | None) -> dict[str, bool | None]:
    """For each of the card table's value fields (CARD_VALUE_FIELDS): None where the card's type
    has no such field, else whether the value differs from `shipped`, the shipped card of its id
    (None for an added card: each value of its type is new)."""
    own = set(CARD_FIELDS[card.type])
    type_changed = shipped is None or shipped.type != card.type
    marks: dict[str, bool | None] = {"type": type_changed}
    for f in CARD_VALUE_FIELDS[1:]:
        if f not in own:
            marks[f] = None
        else:
            marks[f] = type_changed or getattr(shipped, f) != getattr(card, f)
    return marks


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


def board_values(game: GameDefinition) -> dict[str, object]:
    """The board's whole-number values and lists of them, keyed as `simcell sweep --set` and the
    studio address them (board.SECTION.KEY, a section of board.toml), with the game's values
    (its overrides applied). Values of other shapes (per-player-count tables, locations) are not
    listed."""
    from simcell.config.load import shipped_data_path
    from simcell.config.overrides import BOARD_SECTIONS
    from simcell.config.tables import read_toml

    def whole(v) -> bool:
        return (isinstance(v, int) and not isinstance(v, bool)) or (
            isinstance(v, list | tuple) and all(isinstance(x, int) and not isinstance(x, bool) for x in v))

    raw = read_toml(shipped_data_path("board"))
    out: dict[str, object] = {}
    for section in BOARD_SECTIONS:
        for key, value in raw.get(section, {}).items():
            mine = getattr(game.board, key, None)
            if whole(value) and whole(mine) and isinstance(value, list) == isinstance(mine, list | tuple):
                out[f"board.{section}.{key}"] = list(mine) if isinstance(mine, list | tuple) else mine
    return out
