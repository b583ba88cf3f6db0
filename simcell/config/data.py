"""Parsing and validating the game data files (board, rules, cards, events, goals, epigenetic)
into the immutable records of `simcell.config.model`.

Each `parse_*` function takes a `Table` of the raw TOML (overrides already merged in, with their
origins) and raises `ConfigError` naming the file and key of the first problem.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from simcell.config.errors import allowed
from simcell.config.model import (
    RULE_KEYS,
    Board,
    Card,
    Effect,
    Epigenetic,
    Event,
    Goal,
    Location,
    Rules,
    Spot,
    resource_vector,
)
from simcell.config.tables import MISSING, Table
from simcell.vocabulary import (
    CARD_FIELDS,
    CARD_TYPES,
    EPIGENETIC_EFFECTS,
    EVENT_EFFECTS,
    GOAL_CRITERIA,
    GOLGI_RESOURCES,
    HP_IF_CONDITIONS,
    LOCATION_ACTIONS,
    MAX_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ORGANELLES,
    PLACEMENT_ORDERS,
    RESOURCES,
    SINGLE_LOCATION_ACTIONS,
    TIE_RULES,
    TURN_ORDERS,
    TYPE_OR_GROUP,
    YIELD_BONUS_ACTIONS,
)
from simcell.vocabulary import MAX_BATCH_CODE, MAX_BUDDING, MAX_COLLECT_SPOTS

PLAYER_COUNTS = tuple(str(p) for p in range(MIN_PLAYERS, MAX_PLAYERS + 1))
SPOT_LABELS = "abcdefghijklmnopqrstuvwxyz"
# docs/rules.md's dotted names for two switches: a run config's [rules] may write
# `supply.limited = true` or `laureates.holder_may_take = false` for the flat keys above.
RULE_DOTTED = {"supply": ("limited",), "laureates": ("holder_may_take",)}
# Board values a run config's [rules] table may set as rule variants.
BOARD_RULE_KEYS = ("starting_atp", "slot_prices", "budding_locations")
# The keys of each table of the data files that has required keys, declared (Table.expect) so
# that a misspelt required key is reported as the misspelling, not as the key missing.
BOARD_KEYS = ("components", "setup", "card_area", "budding_locations", "goals", "location")
COMPONENT_KEYS = ("supply", "flasks_per_player", "grey_flasks", "vesicles_per_player",
                  "goal_markers_per_player", "two_player_detox_removed", "events_set_aside",
                  "goals_revealed")
SETUP_KEYS = ("cards_dealt", "starting_atp", "combos")
BOARD_GOAL_KEYS = ("first_marker_hp", "max_markers_per_goal")
LOCATION_KEYS = ("id", "name", "action", "spots")
SPOT_KEYS = ("cost", "gain")
CARD_KEYS = ("id", "name", "type")
EFFECT_KEYS = ("kind", "location", "resource", "n", "limit", "condition", "type", "m", "a")
EFFECT_CARD_KEYS = ("id", "name", "effects")
GOAL_KEYS = ("id", "name", "criterion", "hp", "type", "resource", "n")


# -- shared pieces ------------------------------------------------------------------------
def _resource_table(t: Table, key: str, *, default: Any = MISSING) -> tuple[int, ...]:
    """A {resource = amount} table with non-negative amounts (required unless a default is
    given)."""
    sub = t.table(key, default).expect(RESOURCES)
    amounts = {r: sub.take(r, int, 0, minimum=0) for r in RESOURCES}
    sub.finish()
    return resource_vector(amounts)


def _per_count(t: Table, key: str, minimum: int) -> tuple[int, ...]:
    """A table keyed "2".."5" with one integer per player count."""
    sub = t.table(key).expect(PLAYER_COUNTS)
    values = tuple(sub.take(p, int, minimum=minimum) for p in PLAYER_COUNTS)
    sub.finish()
    return values


# -- rules --------------------------------------------------------------------------------
# the values a rule switch may take that its type does not say: the words of a word switch, the
# range of a whole-number one (None: unbounded); a tune searches within these
RULE_CHOICES = {"turn_order": TURN_ORDERS, "tie_rule": TIE_RULES, "placement_order": PLACEMENT_ORDERS}
RULE_LIMITS = {"grey_per_player": (0, None), "max_batch": (1, MAX_BATCH_CODE), "goals_open_round": (1, None)}


def parse_rules(t: Table) -> Rules:
    t.expect(RULE_KEYS)

    def whole(key):
        lo, hi = RULE_LIMITS[key]
        return t.take(key, int, minimum=lo, maximum=hi)

    rules = Rules(
        epigenetic=t.take("epigenetic", bool),
        supply_limited=t.take("supply_limited", bool),
        grey_per_player=whole("grey_per_player"),
        two_player_remove_detox=t.take("two_player_remove_detox", bool),
        turn_order=t.take("turn_order", str, choices=RULE_CHOICES["turn_order"]),
        laureates_holder_may_take=t.take("laureates_holder_may_take", bool),
        max_batch=whole("max_batch"),
        tie_rule=t.take("tie_rule", str, choices=RULE_CHOICES["tie_rule"]),
        placement_order=t.take("placement_order", str, choices=RULE_CHOICES["placement_order"]),
        laureates_once_each=t.take("laureates_once_each", bool),
        starting_hp_by_seat=tuple(
            t.take_list("starting_hp_by_seat", int, minimum=0, min_length=MAX_PLAYERS)),
        first_marker_hp=tuple(t.take_list("first_marker_hp", int, minimum=0)),
        goals_open_round=whole("goals_open_round"),
        laureates_marker_only=t.take("laureates_marker_only", bool),
    )
    t.finish()
    return rules


# -- board --------------------------------------------------------------------------------
def parse_board(t: Table) -> Board:
    t.expect(BOARD_KEYS)
    comp = t.table("components").expect(COMPONENT_KEYS)
    supply = _resource_table(comp, "supply")
    flasks = _per_count(comp, "flasks_per_player", 0)
    for p, n in zip(PLAYER_COUNTS, flasks):
        if n < 1:
            raise comp.error(
                f"flasks_per_player.{p}", "zero flasks; every player needs at least 1 flask"
            )
    grey = comp.take("grey_flasks", int, minimum=0)
    vesicles = comp.take("vesicles_per_player", int, minimum=0)
    markers = comp.take("goal_markers_per_player", int, minimum=0)
    detox_removed = comp.take("two_player_detox_removed", int, minimum=0)
    set_aside = _per_count(comp, "events_set_aside", 0)
    revealed = _per_count(comp, "goals_revealed", 0)
    comp.finish()

    setup = t.table("setup").expect(SETUP_KEYS)
    dealt = setup.take("cards_dealt", int, minimum=1)
    starting_atp = tuple(
        setup.take_list("starting_atp", int, minimum=0, min_length=MAX_PLAYERS)
    )
    combos_raw = setup.take_list("combos", list, min_length=1)
    combos = []
    for i, combo in enumerate(combos_raw):
        if len(combo) != 2 or any(r not in RESOURCES for r in combo):
            raise setup.error(
                "combos",
                f"item {i} must be two resource names from {allowed(RESOURCES)}, got {combo!r}",
            )
        combos.append((combo[0], combo[1]))
    setup.finish()

    area = t.table("card_area").expect(("slot_prices",))
    slot_prices = tuple(area.take_list("slot_prices", int, minimum=0, min_length=1))
    area.finish()

    bud = t.table("budding_locations").expect(ORGANELLES)
    budding = tuple(bud.take(o, int, maximum=MAX_BUDDING) for o in ORGANELLES)
    for o, n in zip(ORGANELLES, budding):
        if n < 1:
            raise bud.error(o, f"zero budding locations; every organelle needs at least 1, got {n}")
    bud.finish()

    goals = t.table("goals").expect(BOARD_GOAL_KEYS)
    first_hp = goals.take("first_marker_hp", int, minimum=0)
    max_markers = goals.take("max_markers_per_goal", int, minimum=1)
    goals.finish()

    locations = tuple(_parse_location(lt) for lt in t.tables("location"))
    t.finish()
    _check_locations(t, locations, len(slot_prices))
    return Board(
        supply=supply,
        flasks_per_player=flasks,
        grey_flasks=grey,
        vesicles_per_player=vesicles,
        goal_markers_per_player=markers,
        two_player_detox_removed=detox_removed,
        events_set_aside=set_aside,
        goals_revealed=revealed,
        cards_dealt=dealt,
        starting_atp=starting_atp,
        combos=tuple(combos),
        slot_prices=slot_prices,
        budding_locations=budding,
        first_marker_hp=first_hp,
        max_markers_per_goal=max_markers,
        locations=locations,
    )


def _parse_location(t: Table) -> Location:
    t.expect(LOCATION_KEYS)
    loc_id = t.take("id", str)
    t.label = f"location {loc_id!r}"
    name = t.take("name", str, loc_id)
    action = t.take("action", str, choices=LOCATION_ACTIONS)
    if action == "collect":
        spot_tables = t.tables("spots")
        if not spot_tables:
            raise t.error("spots", "a collect location needs at least one spot")
        if len(spot_tables) > len(SPOT_LABELS):
            raise t.error("spots", f"at most {len(SPOT_LABELS)} spots")
        spots = []
        for label, st in zip(SPOT_LABELS, spot_tables):
            st.expect(SPOT_KEYS)
            cost = _resource_table(st, "cost", default={})
            gain = _resource_table(st, "gain", default={})
            st.finish()
            spots.append(Spot(label, cost, gain))
    else:
        n = t.take("spots", int, minimum=1)
        zero = (0,) * len(RESOURCES)
        spots = [Spot(SPOT_LABELS[i], zero, zero) for i in range(n)]
    t.finish()
    return Location(loc_id, name, action, tuple(spots))


def _check_locations(t: Table, locations: tuple[Location, ...], n_slots: int) -> None:
    ids = Counter(loc.id for loc in locations)
    for loc_id, count in ids.items():
        if count > 1:
            raise t.error("location", f"duplicate location id {loc_id!r}")
    actions = Counter(loc.action for loc in locations)
    for action in SINGLE_LOCATION_ACTIONS:
        if actions[action] != 1:
            raise t.error(
                "location",
                f"the board needs exactly one location with action {action!r}, "
                f"found {actions[action]}",
            )
    collect = sum(len(loc.spots) for loc in locations if loc.action == "collect")
    if collect > MAX_COLLECT_SPOTS:
        raise t.error(
            "location",
            f"the collect locations have {collect} spots in all; at most {MAX_COLLECT_SPOTS} "
            "are allowed",
        )
    area = next(loc for loc in locations if loc.action == "card_area")
    if len(area.spots) != n_slots:
        raise t.error(
            "location",
            f"location {area.id!r} has {len(area.spots)} spots but card_area.slot_prices "
            f"lists {n_slots} slots; they must match",
        )


def override_board_rules(board: Board, rules_table: Table) -> Board:
    """Apply the board-valued rule variants of a run config's [rules] table."""
    changes: dict[str, Any] = {}
    if rules_table.has("starting_atp"):
        changes["starting_atp"] = tuple(
            rules_table.take_list("starting_atp", int, minimum=0, min_length=MAX_PLAYERS)
        )
    if rules_table.has("slot_prices"):
        prices = tuple(rules_table.take_list("slot_prices", int, minimum=0, min_length=1))
        if len(prices) != len(board.slot_prices):
            raise rules_table.error(
                "slot_prices",
                f"needs {len(board.slot_prices)} prices, one per Card Area slot, got {len(prices)}",
            )
        changes["slot_prices"] = prices
    if rules_table.has("budding_locations"):
        bud = rules_table.table("budding_locations")
        values = []
        for o, current in zip(ORGANELLES, board.budding_locations):
            n = bud.take(o, int, current, maximum=MAX_BUDDING)
            if n < 1:
                raise bud.error(o, f"zero budding locations; every organelle needs at least 1, got {n}")
            values.append(n)
        bud.finish()
        changes["budding_locations"] = tuple(values)
    if not changes:
        return board
    return dataclasses.replace(board, **changes)


# -- cards --------------------------------------------------------------------------------
def parse_cards(t: Table) -> tuple[Card, ...]:
    rows = t.expect(("card",)).tables("card")
    t.finish()
    if len(rows) > MAX_CARDS:
        raise t.error("card", f"{len(rows)} cards; at most {MAX_CARDS} are allowed")
    if not rows:
        raise t.error("card", "the card file holds no cards")
    cards = []
    seen_ids: dict[int, str] = {}
    seen_names: dict[str, int] = {}
    for row in rows:
        card = _parse_card(row)
        if card.id in seen_ids:
            raise row.error("id", f"duplicate card id {card.id} ({seen_ids[card.id]!r} has it)")
        if card.name in seen_names:
            raise row.error("name", f"duplicate card name {card.name!r} (card {seen_names[card.name]})")
        seen_ids[card.id] = card.name
        seen_names[card.name] = card.id
        cards.append(card)
    return tuple(sorted(cards, key=lambda c: c.id))


def _parse_card(t: Table) -> Card:
    # until its type is read, a card may hold any card field
    t.expect(CARD_KEYS + tuple(f for fs in CARD_FIELDS.values() for f in fs))
    card_id = t.take("id", int, minimum=0, maximum=MAX_CARDS - 1)
    name = t.take("name", str)
    t.label = f"card {name!r}"
    card_type = t.take("type", str, choices=CARD_TYPES)
    fields = CARD_FIELDS[card_type]
    t.expect(CARD_KEYS + fields)
    values: dict[str, Any] = {}
    for f in fields:
        if f == "golgi":
            values[f] = t.take(f, str, choices=GOLGI_RESOURCES)
        elif f == "gain":
            values[f] = _resource_table(t, "gain")
            if sum(values[f]) == 0:
                raise t.error("gain", "an Additional Resource card must gain something")
        else:
            values[f] = t.take(f, int, minimum=0)
    t.finish(CARD_KEYS + fields)
    return Card(id=card_id, name=name, type=card_type, **values)


# -- effects, events, goals, epigenetic ----------------------------------------------------
def _parse_effect(
    t: Table, kinds: tuple[str, ...], location_ids: dict[str, str]
) -> Effect:
    kind = t.expect(EFFECT_KEYS).take("kind", str, choices=kinds)
    e: dict[str, Any] = {"kind": kind}

    def location(allowed_actions: tuple[str, ...] | None) -> str:
        loc = t.take("location", str, choices=sorted(location_ids))
        if allowed_actions is not None and location_ids[loc] not in allowed_actions:
            ok = sorted(i for i, a in location_ids.items() if a in allowed_actions)
            raise t.error("location", f"{kind} cannot apply at {loc!r}; allowed: {allowed(ok)}")
        return loc

    if kind == "location_bonus":
        e["location"] = location(None)
        e["resource"] = t.take("resource", str, choices=RESOURCES)
        e["n"] = t.take("n", int, minimum=0)
    elif kind == "all_gain":
        e["resource"] = t.take("resource", str, choices=RESOURCES)
        e["n"] = t.take("n", int, minimum=0)
    elif kind == "card_discount":
        e["n"] = t.take("n", int, minimum=0)
    elif kind == "discard_down":
        e["limit"] = t.take("limit", int, minimum=0)
    elif kind == "hp_if":
        cond = t.take("condition", str, choices=HP_IF_CONDITIONS)
        e["condition"] = cond
        if cond == "completed_at_least":
            e["type"] = t.take("type", str, choices=TYPE_OR_GROUP)
        else:
            e["resource"] = t.take("resource", str, choices=RESOURCES)
        e["m"] = t.take("m", int, minimum=0)
        e["n"] = t.take("n", int)
    elif kind == "yield_bonus":
        e["location"] = location(YIELD_BONUS_ACTIONS)
        e["n"] = t.take("n", int, minimum=0)
    elif kind == "cost_discount":
        e["type"] = t.take("type", str, choices=TYPE_OR_GROUP)
        e["a"] = t.take("a", int, minimum=0)
    elif kind in ("extra_vesicle", "extra_goal_marker"):
        e["n"] = t.take("n", int, 1, minimum=0)
    elif kind == "start_bonus":
        e["resource"] = t.take("resource", str, choices=RESOURCES)
        e["n"] = t.take("n", int, minimum=0)
    t.finish()
    return Effect(**e)


def _unique_id_and_name(row: Table, kind: str, ids: set[int], names: set[str]) -> tuple[int, str]:
    """A data row's id and name, refused when another row of its kind has either; the row is
    named by them in its messages from here on ("event 'Autophagy'")."""
    item_id = row.take("id", int, minimum=0)
    name = row.take("name", str)
    row.label = f"{kind} {name!r}"
    if item_id in ids:
        raise row.error("id", f"duplicate {kind} id {item_id}")
    if name in names:
        raise row.error("name", f"duplicate {kind} name {name!r}")
    ids.add(item_id)
    names.add(name)
    return item_id, name


def _parse_effect_cards(t: Table, key: str, kinds: tuple[str, ...], board: Board) -> list[tuple[int, str, tuple[Effect, ...]]]:
    location_ids = {loc.id: loc.action for loc in board.locations}
    out = []
    ids: set[int] = set()
    names: set[str] = set()
    for row in t.expect((key,)).tables(key):
        card_id, name = _unique_id_and_name(row.expect(EFFECT_CARD_KEYS), key, ids, names)
        effect_tables = row.tables("effects")
        if not effect_tables:
            raise row.error("effects", "needs at least one effect")
        effects = tuple(_parse_effect(et, kinds, location_ids) for et in effect_tables)
        row.finish()
        out.append((card_id, name, effects))
    t.finish()
    return sorted(out)


def parse_events(t: Table, board: Board) -> tuple[Event, ...]:
    events = tuple(Event(i, n, e) for i, n, e in _parse_effect_cards(t, "event", EVENT_EFFECTS, board))
    for k, ev in enumerate(events):
        bonus_locations = [e.location for e in ev.effects if e.kind == "location_bonus"]
        discounts = [e for e in ev.effects if e.kind == "card_discount"]
        if len(set(bonus_locations)) < len(bonus_locations) or len(discounts) > 1:
            raise t.error(
                f"event[{k}].effects",
                f"event {ev.name!r} has two location_bonus effects at one location or two "
                "card_discount effects; bonuses never stack (docs/rules.md §6): merge them into one",
            )
    need = max(board.events_set_aside)
    if len(events) < need:
        raise t.error("event", f"{len(events)} events, but up to {need} are set aside at setup")
    return events


def parse_epigenetic(t: Table, board: Board) -> tuple[Epigenetic, ...]:
    return tuple(
        Epigenetic(i, n, e)
        for i, n, e in _parse_effect_cards(t, "epigenetic", EPIGENETIC_EFFECTS, board)
    )


def parse_goals(t: Table, board: Board) -> tuple[Goal, ...]:
    goals = []
    ids: set[int] = set()
    names: set[str] = set()
    for row in t.expect(("goal",)).tables("goal"):
        goal_id, name = _unique_id_and_name(row.expect(GOAL_KEYS), "goal", ids, names)
        criterion = row.take("criterion", str, choices=GOAL_CRITERIA)
        g: dict[str, Any] = {"id": goal_id, "name": name, "criterion": criterion}
        g["hp"] = row.take("hp", int, minimum=0)
        if criterion in ("per_completed", "most_completed"):
            g["type"] = row.take("type", str, choices=TYPE_OR_GROUP)
        elif criterion == "per_leftover":
            g["resource"] = row.take("resource", str, choices=RESOURCES)
            g["n"] = row.take("n", int, minimum=1)
        row.finish()
        goals.append(Goal(**g))
    t.finish()
    need = max(board.goals_revealed)
    if len(goals) < need:
        raise t.error("goal", f"{len(goals)} goal cards, but up to {need} are revealed at setup")
    return tuple(sorted(goals, key=lambda g: g.id))

