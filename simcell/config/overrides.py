"""Overrides of single data values from a run config, merged into the raw data before it is
validated, with the origin of each overridden value so that errors point at the run config.

    [overrides.cards."Insulin"]            atp = 3          (any field of that card's type)
    [overrides.cards."Insulin"]            atp = "+1"       (a whole number field, relative)
    [overrides.types.detox]                atp = "+1"       (every card of the type; its name or
                                                             the game's, "Detoxification")
    [overrides.events."Autophagy"]         effects = [...]  (name or effects)
    [overrides.goals."Detoxification"]     hp = 6
    [overrides.epigenetic."ER Expansion"]  effects = [...]
    [overrides.board.components]           grey_flasks = 1  (any key of a board section)
    [overrides.board.free_ribosome]        spots = 3        (a location's spot count or name)
    [overrides.board.mitochondria.c]       gain = { atp = 7 }   (a collect spot's cost or gain)
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from simcell.config.data import SPOT_LABELS
from simcell.config.errors import allowed, card_type_named, card_type_names, nearest
from simcell.config.tables import Table
from simcell.vocabulary import CARD_FIELDS, CARD_TYPE_LABELS

Origins = dict[str, tuple[Path | str, str]]

# kind in [overrides] -> key of the array of tables in the data file
ENTRY_KINDS = {
    "cards": "card",
    "events": "event",
    "goals": "goal",
    "epigenetic": "epigenetic",
}
BOARD_SECTIONS = ("components", "setup", "card_area", "budding_locations", "goals")
# [overrides.types.T]: a field of every card of type T (applied before [overrides.cards], so a
# card's own override is applied on top)
TYPES = "types"
# a relative value: "+1", "-2" (a string, as TOML reads +1 as the number 1)
RELATIVE = re.compile(r"[+-]\d+")
# every field some card type has: a key none has is a misspelling ("unknown field")
ANY_CARD_FIELD = {f for fields in CARD_FIELDS.values() for f in fields}


def apply_overrides(
    raw: dict[str, dict[str, Any]], overrides: Table
) -> tuple[dict[str, dict[str, Any]], dict[str, Origins], list[str]]:
    """Merge `overrides` into a deep copy of the raw data files.

    Returns the merged raw data by kind, the origins by kind (keys in the data file's key
    space) and one human-readable line per overridden value.
    """
    merged = copy.deepcopy(raw)
    origins: dict[str, Origins] = {kind: {} for kind in raw}
    applied: list[str] = []
    kinds = sorted(overrides.keys(), key=lambda k: k != TYPES)  # a type's cards, then each card's
    for kind in kinds:
        if kind == TYPES:
            _override_types(merged["cards"], overrides.table(TYPES), origins["cards"], applied)
        elif kind in ENTRY_KINDS:
            _override_entries(kind, merged[kind], overrides.table(kind), origins[kind], applied)
        elif kind == "board":
            _override_board(merged["board"], overrides.table("board"), origins["board"], applied)
    overrides.finish(tuple(ENTRY_KINDS) + ("board", TYPES))
    return merged, origins, applied


def _no_field(values: Table, key: str, settable, whose: str, card_field: bool = False,
              has: str = "has"):
    """The error for an override of a field `whose` does not have: a field of another card type
    ("card 'Insulin' has no field 'lipid'"), else a misspelling ("unknown field 'protien' of
    card 'Insulin' (did you mean 'protein'?)")."""
    if card_field:
        return values.error(key, f"{whose} {has} no field {key!r} to override; allowed: "
                                 f"{allowed(settable)}")
    return values.error(key, f"unknown field {key!r} of {whose}{nearest(key, settable)}; "
                             f"allowed: {allowed(settable)}")


def _set(row: dict[str, Any], key: str, value: Any, values: Table) -> Any:
    """Set row[key] to `value`, or by it where it is relative ("+1"); the value set."""
    if isinstance(value, str) and RELATIVE.fullmatch(value.strip()):
        old = row.get(key)
        if not isinstance(old, int) or isinstance(old, bool):
            raise values.error(key, f"a relative value ({value!r}) needs a whole number to change; "
                               f"the value is {_show(old)}")
        row[key] = old + int(value)
    else:
        row[key] = copy.deepcopy(value)
    return row[key]


def _override_types(data: dict[str, Any], table: Table, origins: Origins, applied: list[str]) -> None:
    rows = data.get("card", [])
    if not isinstance(rows, list):
        return  # a malformed data file: parsing it reports the problem
    for written in table.keys():
        kind = card_type_named(written)
        if kind is None:
            raise table.error(written, f"no card type {written!r}; the types: {card_type_names()}")
        values = table.table(written)
        settable = CARD_FIELDS[kind]
        mine = [(i, row) for i, row in enumerate(rows) if isinstance(row, dict) and row.get("type") == kind]
        for key in values.keys():
            if key not in settable:
                raise _no_field(values, key, settable, f"{CARD_TYPE_LABELS[kind]} cards",
                                card_field=key in ANY_CARD_FIELD, has="have")
            for i, row in mine:
                old = copy.deepcopy(row.get(key))
                _set(row, key, values.data[key], values)
                origins[f"card[{i}].{key}"] = (values.file, values.keypath(key))
                origins[f"@{row.get('name')}.{key}"] = (values.file, values.keypath(key))
                value = values.data[key]
                written_as = value if isinstance(value, str) and RELATIVE.fullmatch(value.strip()) \
                    else f"= {_show(value)}"
                applied.append(f"card {row.get('name')!r}: {key} {_show(old)} -> {_show(row[key])} "
                               f"(types.{kind}.{key} {written_as})")
        values.finish(values.keys())


def _override_entries(
    kind: str, data: dict[str, Any], table: Table, origins: Origins, applied: list[str]
) -> None:
    array_key = ENTRY_KINDS[kind]
    rows = data.get(array_key, [])
    if not isinstance(rows, list):
        return  # a malformed data file: parsing it reports the problem
    by_name = {
        row["name"]: i
        for i, row in enumerate(rows)
        if isinstance(row, dict) and isinstance(row.get("name"), str)
    }
    for name in table.keys():
        if name not in by_name:
            kind_named = card_type_named(name) if kind == "cards" else None
            raise table.error(
                name,
                f"no {array_key} named {name!r}"
                + (f"; {name!r} is a card type: [overrides.types.{kind_named}] (types.{kind_named}.FIELD "
                   "with --set) sets every card of it" if kind_named else nearest(name, [n for n in by_name if n])),
            )
        i = by_name[name]
        row = rows[i]
        values = table.table(name)
        if kind == "cards":
            settable = CARD_FIELDS.get(row.get("type"), ())
        elif kind == "goals":
            settable = ("criterion", "type", "resource", "n", "hp")
        else:
            settable = ("effects",)
        for key in values.keys():
            if key not in settable:
                raise _no_field(values, key, settable, f"{array_key} {name!r}",
                                card_field=kind == "cards" and key in ANY_CARD_FIELD)
            old = copy.deepcopy(row.get(key))
            if kind == "cards":
                _set(row, key, values.data[key], values)
            else:
                row[key] = copy.deepcopy(values.data[key])
            origins[f"{array_key}[{i}].{key}"] = (values.file, values.keypath(key))
            origins[f"@{name}.{key}"] = (values.file, values.keypath(key))  # for later checks
            applied.append(f"{array_key} {name!r}: {key} {_show(old)} -> {_show(row[key])}")
        values.finish(values.keys())


def _override_board(
    data: dict[str, Any], table: Table, origins: Origins, applied: list[str]
) -> None:
    locations = data.get("location", [])
    if not isinstance(locations, list):
        locations = []  # a malformed board file: parsing it reports the problem
    by_id = {
        loc["id"]: i
        for i, loc in enumerate(locations)
        if isinstance(loc, dict) and isinstance(loc.get("id"), str)
    }
    known = BOARD_SECTIONS + tuple(i for i in by_id if i)
    for key in table.keys():
        sub = table.table(key)
        if key in BOARD_SECTIONS:
            section = data.setdefault(key, {})
            if not isinstance(section, dict):
                continue  # a malformed board file: parsing it reports the problem
            for k in sub.keys():
                if k not in section:
                    raise sub.error(
                        k, f"unknown field {k!r} in board section {key!r}{nearest(k, section)}; "
                        f"allowed: {allowed(section)}"
                    )
                old = section[k]
                section[k] = copy.deepcopy(sub.data[k])
                origins[f"{key}.{k}"] = (sub.file, sub.keypath(k))
                applied.append(f"board {key}.{k}: {_show(old)} -> {_show(section[k])}")
        elif key in by_id:
            i = by_id[key]
            loc = locations[i]
            spots = loc.get("spots")
            for k in sub.keys():
                if k in ("spots", "name") and not (k == "spots" and isinstance(spots, list)):
                    old = loc.get(k)
                    loc[k] = copy.deepcopy(sub.data[k])
                    origins[f"location[{i}].{k}"] = (sub.file, sub.keypath(k))
                    applied.append(f"board {key}.{k}: {_show(old)} -> {_show(loc[k])}")
                elif (
                    isinstance(spots, list)
                    and k in tuple(SPOT_LABELS[: len(spots)])
                    and isinstance(spots[SPOT_LABELS.index(k)], dict)
                ):
                    j = SPOT_LABELS.index(k)
                    spot_table = sub.table(k)
                    for field in spot_table.keys():
                        if field not in ("cost", "gain"):
                            raise _no_field(spot_table, field, ("cost", "gain"), f"spot {key}.{k}")
                        old = spots[j].get(field, {})
                        spots[j][field] = copy.deepcopy(spot_table.data[field])
                        origins[f"location[{i}].spots[{j}].{field}"] = (
                            spot_table.file, spot_table.keypath(field)
                        )
                        applied.append(
                            f"board {key}.{k}.{field}: {_show(old)} -> {_show(spots[j][field])}"
                        )
                else:
                    options = ("name",) + (
                        tuple(SPOT_LABELS[: len(spots)]) if isinstance(spots, list) else ("spots",)
                    )
                    raise sub.error(
                        k, f"location {key!r} has nothing named {k!r} to override"
                        f"{nearest(k, options)}; allowed: {allowed(options)}"
                    )
        else:
            raise table.error(
                key, f"no board section or location {key!r}{nearest(key, known)}; "
                f"allowed: {allowed(known)}"
            )


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "(unset)"
    return str(value)

