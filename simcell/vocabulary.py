"""Every vocabulary of the game, in one place: names and their integer codes.

The kernel indexes its flat arrays with these codes; the config layer maps the names used in
TOML files to them. This module is plain Python (no numba) so the config layer, the referee
and the reports can import it without compiling anything.
"""

from typing import NamedTuple

# Resources, in the index order of every per-resource array (docs/rules.md §1).
RESOURCES = ("mrna", "protein", "carb", "lipid", "atp")
MRNA, PROTEIN, CARB, LIPID, ATP = range(5)
N_RESOURCES = 5
MACROMOLECULES = ("mrna", "protein", "carb", "lipid")  # discard_down applies to these only

# Cell Component card types (docs/rules.md §4), in the index order of per-type arrays.
CARD_TYPES = (
    "enzyme",
    "protein_hormone",
    "steroid_hormone",
    "protein_receptor",
    "steroid_receptor",
    "detox",
    "additional_resource",
)
(
    ENZYME,
    PROTEIN_HORMONE,
    STEROID_HORMONE,
    PROTEIN_RECEPTOR,
    STEROID_RECEPTOR,
    DETOX,
    ADDITIONAL_RESOURCE,
) = range(7)
N_CARD_TYPES = 7
# Each card type's name as the game prints it (a config, --set or --cards may use either name).
CARD_TYPE_LABELS = {
    "enzyme": "Enzyme",
    "protein_hormone": "Protein Hormone",
    "steroid_hormone": "Steroid Hormone",
    "protein_receptor": "Protein Hormone Receptor",
    "steroid_receptor": "Steroid Hormone Receptor",
    "detox": "Detoxification",
    "additional_resource": "Additional Resource",
}
# the same types as a sentence names several: one name per type in every report and tool
CARD_TYPE_PLURALS = {
    "enzyme": "Enzymes",
    "protein_hormone": "Protein Hormones",
    "steroid_hormone": "Steroid Hormones",
    "protein_receptor": "Protein Hormone Receptors",
    "steroid_receptor": "Steroid Hormone Receptors",
    "detox": "Detoxification cards",
    "additional_resource": "Additional Resource cards",
}
# Completed-card types (goal criteria, receptor bonuses): the first six card types.
COMPLETED_TYPES = CARD_TYPES[:6]
# Groups usable wherever a completed type is named (docs/rules.md §5).
TYPE_GROUPS = {
    "hormone": ("protein_hormone", "steroid_hormone"),
    "receptor": ("protein_receptor", "steroid_receptor"),
}
TYPE_OR_GROUP = COMPLETED_TYPES + tuple(TYPE_GROUPS)

# The seed's card counts per type (docs/rules.md §1).
SEED_CARD_COUNTS = {
    "enzyme": 10,
    "protein_hormone": 6,
    "steroid_hormone": 6,
    "protein_receptor": 5,
    "steroid_receptor": 5,
    "additional_resource": 4,
    "detox": 7,
}
MAX_CARDS = 64  # cards are bits of 64-bit masks in the records
# entries State.workspace.legal and .values hold past the most legal actions a decision can
# have (config/arrays.py max_legal): legal._add_if writes one code past the legal ones before
# knowing whether to keep it, and the softmax works out weights in whole vectors of 8
LEGAL_SLACK = 8
# the turn loop keeps a decision's legal actions and their heuristic values in two stack vectors
# of this many int64 and float64 (512 KiB each; play/turns.py): a game whose max_legal
# (config/arrays.py) is larger is refused at the config (config/checks.py). The default
# board's is 720 at the default max_batch and 57,882 at the largest (MAX_BATCH_CODE)
MAX_VALUED = 65536
# the heuristic evaluator values every collect spot and the three exhausts (their stock changes
# are fixed by the board: GameTables.fixed_net) in one vectorised pass, into a scratch array of
# FIXED_ROWS on the stack (policies/values.py fixed_values): so at most this many collect spots
MAX_COLLECT_SPOTS = 60
FIXED_ROWS = 64  # MAX_COLLECT_SPOTS + 3 exhausts, in whole vectors of LEGAL_SLACK

# Where each completable type is completed, and with which vesicle origin.
# Rough ER cards carry `protein`; Smooth ER cards carry `lipid` (docs/rules.md §4).
ROUGH_ER_TYPES = ("protein_hormone", "protein_receptor", "steroid_receptor")
SMOOTH_ER_TYPES = ("steroid_hormone",)
VESICLE_TYPES = ROUGH_ER_TYPES + SMOOTH_ER_TYPES
RECEPTOR_MATCH = {"protein_receptor": "protein_hormone", "steroid_receptor": "steroid_hormone"}

# Columns of GameTables.card_plan (int32[card id, column]): what the heuristic evaluator reads of
# a card's route to completion, laid out so that it needs no branch on the card's type (with
# random hands, a branch or jump table on the type was mispredicted on many cards, at every
# decision). Two "slots" of what completing still takes from personal stock besides ATP:
#   Enzyme: A = (Protein, its protein; one more placement, the Free Ribosome, when short),
#           B = (Carbohydrate, its carb);
#   hormone or receptor: A = (its Golgi resource, 1) until its vesicle is at the Golgi,
#           B = (its ER's resource, its ER load) until its vesicle is loaded;
#   Detoxification (and Additional Resource): nothing (amounts 0).
CP_VESICLE = 0  # 1 for a hormone or receptor (completed through a vesicle), else 0
CP_A_RES, CP_A_N, CP_A_EXTRA = 1, 2, 3  # slot A's resource, amount, extra placement (0/1)
CP_B_RES, CP_B_N = 4, 5  # slot B's resource and amount
CP_PARTNER, CP_PARTNER_BONUS = 6, 7  # a receptor's hormone type and bonus per completed one (0)
CP_ORIGIN, CP_ER_LOAD = 8, 9  # a vesicle card's ER (ORG_ROUGH / ORG_SMOOTH) and the load it needs
N_CARD_PLAN = 10

# Golgi resources a vesicle can carry (docs/rules.md §3).
GOLGI_RESOURCES = ("carb", "lipid")

# Card fields by type (docs/rules.md §4): the only keys a card row of that type may hold.
CARD_FIELDS = {
    "enzyme": ("atp", "protein", "carb", "hp"),
    "protein_hormone": ("atp", "protein", "golgi", "hp"),
    "protein_receptor": ("atp", "protein", "golgi", "hp", "bonus_per_match"),
    "steroid_receptor": ("atp", "protein", "golgi", "hp", "bonus_per_match"),
    "steroid_hormone": ("atp", "lipid", "golgi", "hp"),
    "detox": ("atp", "hp"),
    "additional_resource": ("gain",),
}

# Location actions (docs/rules.md §3). `collect` locations have spots with their own costs and
# gains; every other action belongs to exactly one location of the board.
LOCATION_ACTIONS = (
    "collect",  # pay the spot's cost, gain its yield (Nucleus, Glucose, Mitochondria, Lipid)
    "translate",  # Free Ribosome: k mRNA -> k Protein
    "card_area",  # buy the card in a slot
    "enzyme_synthesis",  # Cytoplasm: complete an Enzyme
    "protein_synthesis",  # Rough ER: place a vesicle, load k Protein for k mRNA
    "steroid_synthesis",  # Smooth ER: place a vesicle, load k Lipid
    "golgi",  # move a vesicle to the Golgi, add 1 Carbohydrate or Lipid
    "exocytosis",  # complete a hormone or receptor with a Golgi vesicle
    "detoxification",  # complete a Detoxification card
    "laureates",  # take the First Player Marker, then +1 ATP or a goal marker
)
SINGLE_LOCATION_ACTIONS = LOCATION_ACTIONS[1:]
(
    LA_COLLECT,
    LA_TRANSLATE,
    LA_CARD_AREA,
    LA_ENZYME,
    LA_PROTEIN_SYNTHESIS,
    LA_STEROID_SYNTHESIS,
    LA_GOLGI,
    LA_EXOCYTOSIS,
    LA_DETOX,
    LA_LAUREATES,
) = range(10)
# Actions whose location may carry an epigenetic yield_bonus (docs/rules.md §7).
YIELD_BONUS_ACTIONS = ("collect", "translate", "protein_synthesis", "steroid_synthesis")

# Vesicle organelles (budding location groups).
ORGANELLES = ("rough_er", "smooth_er", "golgi")

# Health Point sources (docs/rules.md §8), in the index order of hp_by_source arrays. The first six
# are the completed types, in COMPLETED_TYPES order.
HP_SOURCES = (
    "enzyme",
    "protein_hormone",
    "steroid_hormone",
    "protein_receptor",
    "steroid_receptor",
    "detox",
    "goal_marker",
    "goal_bonus",
    "receptor_bonus",
    "event",
    "start",  # rules.starting_hp_by_seat, at setup
)

SRC_GOAL_MARKER, SRC_GOAL_BONUS, SRC_RECEPTOR_BONUS, SRC_EVENT, SRC_START = 6, 7, 8, 9, 10

# Event effect vocabulary (docs/rules.md §6) and hp_if conditions.
EVENT_EFFECTS = ("location_bonus", "all_gain", "card_discount", "discard_down", "hp_if")
EV_LOCATION_BONUS, EV_ALL_GAIN, EV_CARD_DISCOUNT, EV_DISCARD_DOWN, EV_HP_IF = range(5)
HP_IF_CONDITIONS = ("stock_at_least", "stock_at_most", "completed_at_least")
COND_STOCK_AT_LEAST, COND_STOCK_AT_MOST, COND_COMPLETED_AT_LEAST = range(3)

# Goal criteria (docs/rules.md §5).
GOAL_CRITERIA = ("per_completed", "most_completed", "per_distinct_types", "per_leftover")
GC_PER_COMPLETED, GC_MOST_COMPLETED, GC_PER_DISTINCT_TYPES, GC_PER_LEFTOVER = range(4)

# Epigenetic Modification effect vocabulary (docs/rules.md §7).
EPIGENETIC_EFFECTS = (
    "yield_bonus",
    "cost_discount",
    "extra_vesicle",
    "extra_goal_marker",
    "start_bonus",
)

# Rule switches with a closed set of values.
TURN_ORDERS = ("marker", "rotate")
# rules.placement_order: who places next in Phase 1 (docs/rules.md §2); the kernel's codes follow
PLACEMENT_ORDERS = ("clockwise", "snake_pass", "snake_round")
PO_CLOCKWISE, PO_SNAKE_PASS, PO_SNAKE_ROUND = 0, 1, 2
TIE_RULES = ("split",)

# Player counts the game supports (docs/rules.md §1).
MIN_PLAYERS, MAX_PLAYERS = 2, 5

# ---------------------------------------------------------------------------------------------
# Action codes (docs/rules.md §3 "Action encoding"). One int64 per action, a bit-field:
#
#     code = kind << 40 | flask << 36 | target << 28 | p1 << 16 | p2 << 8 | p3
#
# kind   ACT_PASS, ACT_EXHAUST, ACT_PLACE, ACT_RETURN (setup), ACT_COMBO (setup)
# flask  FLASK_OWN or FLASK_GREY (placements only; 0 otherwise)
# target the location index in board order (placements only; 0 otherwise)
# p1..p3 by kind and by the location's action:
#   exhaust            p1 = resource index (MRNA, LIPID or ATP)
#   return             p1 = card id                 combo    p1 = combo index (board.toml order)
#   collect            p1 = spot index within the location (0 = a, 1 = b, ...)
#   translate          p1 = k
#   card_area          p1 = slot (0 leftmost)
#   enzyme_synthesis   p1 = card id
#   protein_synthesis  p1 = k, p2 = victim + 1 (victim: Rough ER budding index; 0 = no victim)
#   steroid_synthesis  p1 = k, p2 = victim + 1 (Smooth ER budding index)
#   golgi              p1 = source organelle * 16 + source budding index (ORG_ROUGH or ORG_SMOOTH),
#                      p2 = Golgi resource (GOLGI_CARB or GOLGI_LIPID), p3 = victim + 1 (Golgi index)
#   exocytosis         p1 = Golgi budding index of the vesicle, p2 = card id
#   detoxification     p1 = card id
#   laureates          p1 = 0 for +1 ATP, 1 + goal index for a goal marker (goal index = position
#                      among the revealed goals)
# Legal actions are listed in ascending code order. Identical spots are one choice: the code names
# the location, and the placement takes its lowest free spot.
# ---------------------------------------------------------------------------------------------
ACT_PASS, ACT_EXHAUST, ACT_PLACE, ACT_RETURN, ACT_COMBO = range(5)
ACTION_KINDS = ("pass", "exhaust", "place", "return", "combo")
FLASK_OWN, FLASK_GREY = 0, 1
ORG_ROUGH, ORG_SMOOTH, ORG_GOLGI = 0, 1, 2
GOLGI_CARB, GOLGI_LIPID = 0, 1  # index into GOLGI_RESOURCES
GOLGI_NONE = -1
SOURCE_RADIX = 16  # golgi p1 = organelle * SOURCE_RADIX + index
MAX_BUDDING = 15  # budding locations per organelle must fit the source field
MAX_BATCH_CODE = 4095  # p1 holds 12 bits: max_batch must not exceed it
EXHAUST_RESOURCES = (MRNA, LIPID, ATP)

SHIFT_KIND, SHIFT_FLASK, SHIFT_TARGET, SHIFT_P1, SHIFT_P2 = 40, 36, 28, 16, 8
MASK_P1, MASK_P2, MASK_P3, MASK_TARGET, MASK_FLASK, MASK_KIND = 0xFFF, 0xFF, 0xFF, 0xFF, 0xF, 0xFF


def encode_action(kind: int, flask: int = 0, target: int = 0, p1: int = 0, p2: int = 0, p3: int = 0) -> int:
    """The integer code of an action (plain Python; the kernel inlines the same arithmetic)."""
    return (
        (kind << SHIFT_KIND)
        | (flask << SHIFT_FLASK)
        | (target << SHIFT_TARGET)
        | (p1 << SHIFT_P1)
        | (p2 << SHIFT_P2)
        | p3
    )


def decode_action(code: int) -> tuple[int, int, int, int, int, int]:
    """(kind, flask, target, p1, p2, p3) of an action code."""
    return (
        (code >> SHIFT_KIND) & MASK_KIND,
        (code >> SHIFT_FLASK) & MASK_FLASK,
        (code >> SHIFT_TARGET) & MASK_TARGET,
        (code >> SHIFT_P1) & MASK_P1,
        (code >> SHIFT_P2) & MASK_P2,
        code & MASK_P3,
    )


# ---------------------------------------------------------------------------------------------
# Chance streams (docs/rules.md §11). A stream is keyed by (master seed, player count, deal, purpose,
# index); a shuffle orders item ids by item_hash(key, id), ties by id. Purposes:
# ---------------------------------------------------------------------------------------------
CHANCE_EVENT_ORDER = 0
CHANCE_EVENT_REMOVAL = 1
CHANCE_GOAL_ORDER = 2
CHANCE_DECK_ORDER = 3
CHANCE_SETUP_SHUFFLE = 4
CHANCE_RESHUFFLE = 5  # index i = 1, 2, ... for the i-th reshuffle of the discard pile
CHANCE_EPIGENETIC_DEAL = 6
CHANCE_DETOX_REMOVAL = 7
CHANCE_POLICY = 8  # index = seat << 32 | that seat's decision number (setup included)
CHANCE_PURPOSES = (
    "event_order",
    "event_removal",
    "goal_order",
    "deck_order",
    "setup_shuffle",
    "reshuffle",
    "epigenetic_deal",
    "detox_removal",
    "policy",
)

# ---------------------------------------------------------------------------------------------
# Trace: a flat int64 array per game, a sequence of entries, each starting with its tag.
#   TRACE_SHUFFLE, purpose, index, n, id_0 ... id_{n-1}
#       a chance outcome: the ordered ids (cards, events, goals or epigenetic cards) that came out
#       of shuffling what the state says is being shuffled; first id = top / first.
#   TRACE_DECISION, seat, automatic (0/1), n_legal, legal_0 ... legal_{n-1}, chosen
#       a decision: the kernel's legal action codes in ascending order and the action taken.
#   TRACE_END
# Events removed / goals: the event_removal shuffle lists all events (the first r set aside);
# the event_order shuffle lists the rest in deck order (top first); goal_order lists all goals
# (the first goals_revealed are in play, goal index = position).
# ---------------------------------------------------------------------------------------------
TRACE_SHUFFLE, TRACE_DECISION, TRACE_END = 1, 2, 3

# ---------------------------------------------------------------------------------------------
# Personal-stock and cargo flows (per player: rows below x RESOURCES columns). For every player
# and resource: sum of GAIN rows - sum of SPEND rows = final personal stock; for cargo:
# CARGO_LOADED - CARGO_RETURNED - CARGO_LOST = cargo still on the player's vesicles at the end.
# Rows that carry a location or a card type are followed by one row per location (board order)
# or per completed type (COMPLETED_TYPES order); see flow_row_names().
# ---------------------------------------------------------------------------------------------
FLOW_GAIN_KINDS = (
    "setup_atp",  # starting ATP by seat
    "setup_pick",  # the 2-resource combination
    "additional_resource",  # Additional Resource card gains (setup or purchase)
    "start_bonus",  # epigenetic start_bonus
    "spot",  # per location: the spot's yield; Free Ribosome: the Protein received
    "yield_bonus",  # epigenetic yield_bonus paid to personal stock
    "location_bonus",  # event location bonus
    "exhaust",  # exhausting a flask
    "event",  # all_gain events
)
FLOW_SPEND_KINDS = (
    "spot_cost",  # per location: the spot's cost; Free Ribosome and Rough ER: the mRNA traded
    "card_price",  # ATP paid at the Card Area
    "completion",  # per completed type: what completing the card cost from personal stock
    "loaded",  # personal resources put on a vesicle (Steroid Synthesis Lipid, Golgi resource)
    "discard_down",  # returned by a discard_down event
)
FLOW_CARGO_KINDS = (
    "cargo_loaded",  # all cargo put on the player's vesicles (incl. Protein from the supply)
    "cargo_returned",  # cargo returned to the supply at exocytosis
    "cargo_lost",  # cargo returned to the supply when the vesicle was displaced
)


def flow_row_names(location_ids: tuple[str, ...]) -> tuple[str, ...]:
    """Names of the flow rows, in row order, for a board with these location ids."""
    names: list[str] = []
    for kind in FLOW_GAIN_KINDS:
        if kind == "spot":
            names += [f"gain_spot_{loc}" for loc in location_ids]
        else:
            names.append(f"gain_{kind}")
    for kind in FLOW_SPEND_KINDS:
        if kind == "spot_cost":
            names += [f"spend_spot_{loc}" for loc in location_ids]
        elif kind == "completion":
            names += [f"spend_completion_{t}" for t in COMPLETED_TYPES]
        else:
            names.append(f"spend_{kind}")
    names += list(FLOW_CARGO_KINDS)
    return tuple(names)


def flow_layout(n_locations: int) -> dict[str, int]:
    """First row index of each flow kind (the kernel and the referee index flows with this)."""
    layout: dict[str, int] = {}
    row = 0
    for kind in FLOW_GAIN_KINDS:
        layout[f"gain_{kind}"] = row
        row += n_locations if kind == "spot" else 1
    for kind in FLOW_SPEND_KINDS:
        layout[f"spend_{kind}"] = row
        row += n_locations if kind == "spot_cost" else (len(COMPLETED_TYPES) if kind == "completion" else 1)
    for kind in FLOW_CARGO_KINDS:
        layout[kind] = row
        row += 1
    layout["n_rows"] = row
    layout["n_gain_rows"] = layout["spend_spot_cost"]
    layout["n_spend_end"] = layout["cargo_loaded"]
    return layout


# ---------------------------------------------------------------------------------------------
# Records out of the kernel: each field declared once here. The kernel's record columns
# (kernel/state.PlayerRecords, GameRecords), the structured dtypes of a chunk's records, the
# Parquet columns of the run directory (runner/records.py) and docs/runs.md's table of columns
# are all made from these declarations.
# ---------------------------------------------------------------------------------------------
class RecordField(NamedTuple):
    """One field of a record: its name, element type (numpy dtype string; "u8" masks are int64
    bit patterns in the kernel's columns), the axis it has one value per label of (None: one
    value; RECORD_AXES), what it holds, and how the run directory's Parquet table writes it: the
    column name, or the prefix of one column per label (`column`_<label>; None: not written),
    the Parquet type when it differs, the first index written, and the rule setting it is
    written under (None: always)."""

    name: str
    dtype: str
    axis: str | None = None
    doc: str = ""
    column: str | None = ""  # "" = the field's name
    parquet: str | None = None
    first: int = 0
    when: str | None = None  # "supply_limited", or "two_player_detox" (2 players with the option)


# axis -> what its labels are (the Parquet suffixes and docs/runs.md's description)
RECORD_AXES = {
    "source": "HP_SOURCES",
    "round": "round 1, 2, ...",
    "type": "COMPLETED_TYPES",
    "location": "the board's location ids",
    "resource": "RESOURCES",
    "flow": "flow_row_names x RESOURCES",
    "event": "0, 1, ... (reveal order)",
    "goal": "0, 1, ... (goal index)",
    "goal_card": "goal card ids (the game's goals file)",
}

PLAYER_RECORD = (
    RecordField("game", "i8", doc="game index within the run (per player count and field)",
                parquet="i4"),
    RecordField("deal", "i8", doc="deal index (= game in normal mode; shared by the rotations of "
                "a deal in duplicate mode)", column=None),
    RecordField("rotation", "i1", doc="rotation of the field within the deal (0 in normal mode)"),
    RecordField("seat", "i1", doc="seat 0 = first player at setup"),
    RecordField("player", "i1", doc="player id: the field's policy slot"),
    RecordField("policy", "i1", doc="index into the field's policy labels"),
    RecordField("final_hp", "i2", doc="final Health Points"),
    RecordField("hp_by_source", "i2", "source", "HP by source; they add up to final_hp",
                column="hp"),
    RecordField("hp_by_round", "i2", "round", "HP after each round's Phase 2 (the final round: "
                "after its Phase 1, before end-game scoring); -1 past the last round",
                column="hp_round"),
    RecordField("win_share", "f8", doc="1 for an outright win, 1/k for a k-way tie, else 0"),
    RecordField("rank", "i1", doc="1 + the players with strictly more HP"),
    RecordField("dealt_mask", "u8", doc="card-id bit set: the cards dealt at setup"),
    RecordField("kept_mask", "u8", doc="card-id bit set: the cards kept at setup"),
    RecordField("bought_mask", "u8", doc="card-id bit set: the cards bought from the Card Area"),
    RecordField("completed_mask", "u8", doc="card-id bit set: the cards completed"),
    RecordField("completed_by_type", "i1", "type", "cards completed by type",
                column="completed"),
    RecordField("flasks_exhausted", "i2", doc="flasks exhausted over the game"),
    RecordField("grey_used", "i2", doc="grey flasks placed over the game"),
    RecordField("laureates_taken", "i2", doc="Laureates taken"),
    RecordField("laureates_as_holder", "i2", doc="Laureates taken while already holding the "
                "First Player Marker"),
    RecordField("goal_markers_placed", "i1", doc="goal markers placed"),
    RecordField("goal_marker_round", "i1", "goal_card", "round in which the player's goal marker "
                "went on each goal card; 0: none there", column="marker_round"),
    RecordField("goal_marker_order", "i1", "goal_card", "that marker's place in the goal card's "
                "claim order: 1 = the first marker on the card, 2 = the second, ...; 0: none there",
                column="marker_order"),
    RecordField("goal_bonus_by_goal", "i2", "goal_card", "end bonus paid by each goal card (they "
                "add up to hp_goal_bonus)", column="goal_bonus"),
    RecordField("vesicles_lost", "i2", doc="own vesicles displaced by rivals"),
    RecordField("vesicles_left", "i1", doc="own vesicles still on the board at the end"),
    RecordField("placements_by_location", "i2", "location", "placements (own and grey flasks)",
                column="placed"),
    RecordField("flows", "i2", "flow", "personal-stock flows; summed into the `flows` block "
                "aggregate instead of written per player", column=None),
    RecordField("stock", "i2", "resource", "personal stock at the end", column="stock"),
)

GAME_RECORD = (
    RecordField("game", "i8", doc="game index within the run", parquet="i4"),
    RecordField("deal", "i8", doc="deal index", parquet="i4"),
    RecordField("rotation", "i1", doc="rotation of the field within the deal"),
    RecordField("players", "i1", doc="player count (the segment's)", column=None),
    RecordField("tie", "?", doc="the win was split"),
    RecordField("rounds", "i1", doc="rounds played (the segment's)", column=None),
    RecordField("event_order", "i1", "event", "event ids in reveal order; -1 padded",
                column="event"),
    RecordField("events_removed", "u8", doc="bit set of the event ids set aside at setup"),
    RecordField("goals_in_play", "i1", "goal", "goal ids by goal index; -1 padded",
                column="goal"),
    RecordField("first_player", "i1", "round", "marker holder at the start of each round from "
                "round 2 (round 1's is seat 0); -1 past the last round",
                column="first_player_round", first=1),
    RecordField("peak_use", "i2", "resource", "most of each resource in use (stocks and cargo) "
                "at once", column="peak"),
    RecordField("supply_shortfall", "i2", "resource", "gains cut by the limited supply",
                column="shortfall", when="supply_limited"),
    RecordField("reshuffles", "i1", doc="discard-pile reshuffles"),
    RecordField("detox_removed", "u8", doc="bit set of the Detoxification cards removed at 2 "
                "players", when="two_player_detox"),
    RecordField("visible_mask", "u8", doc="card-id bit set of the cards visible in the game "
                "(docs/rules.md §11): dealt, or ever in the Card Area"),
)


def record_axis_sizes(n_locations: int, max_rounds: int, n_events: int,
                      n_goals_max: int, n_goals: int = 0) -> dict[str, tuple[int, ...]]:
    """The shape of each record axis for a game of these sizes."""
    return {
        "source": (len(HP_SOURCES),),
        "round": (max_rounds,),
        "type": (len(COMPLETED_TYPES),),
        "location": (n_locations,),
        "resource": (N_RESOURCES,),
        "flow": (flow_layout(n_locations)["n_rows"], N_RESOURCES),
        "event": (n_events,),
        "goal": (n_goals_max,),
        "goal_card": (n_goals,),
    }


def record_dtype(fields: tuple[RecordField, ...], sizes: dict[str, tuple[int, ...]]) -> list[tuple]:
    """The numpy structured dtype (as a list) of records with these fields and axis sizes."""
    return [(f.name, f.dtype) if f.axis is None else (f.name, f.dtype, sizes[f.axis])
            for f in fields]


def player_record_dtype(n_locations: int, max_rounds: int, n_goals: int) -> list[tuple]:
    """One row per (game, player); n_goals: the goal cards of the game's data."""
    return record_dtype(PLAYER_RECORD, record_axis_sizes(n_locations, max_rounds, 0, 0, n_goals))


def game_record_dtype(n_events: int, n_goals_max: int, max_rounds: int) -> list[tuple]:
    """One row per game."""
    return record_dtype(GAME_RECORD, record_axis_sizes(0, max_rounds, n_events, n_goals_max))


# ---------------------------------------------------------------------------------------------
# Block aggregates of a run directory (blocks/*.parquet), each summed over the games of a block
# ---------------------------------------------------------------------------------------------
# 2: each goal marker's card, round and claim order; bonus by goal. 3: the HP source "start"
RECORD_SCHEMA_VERSION = 3
# record columns a later schema added, with the value every game of an older run held: a report
# reads an older run directory with them filled in
RECORD_COLUMNS_ADDED = {"hp_start": 0}
WIN_SHARE_SCALE = 60  # win shares are 1/k for k <= 5 tied players: x60 is an exact integer

# the names of each aggregate's axes after the block axis (long tables on disk)
KERNEL_AGGREGATES = {
    "offered": ("card", "slot", "price"),
    "bought": ("card", "slot", "price"),
    "discarded": ("card",),
    "acquired": ("card", "round"),
    "completed": ("card", "round"),
    "occupancy": ("spot", "round", "pick"),
}
SEAT_MEASURES = (
    "games",
    "win_share_x60",  # win share x WIN_SHARE_SCALE
    "wins_outright",
    "final_hp",
    "final_hp_sq",
    "above_table_xp",  # players x final_hp - the table's total HP
    "above_table_xp_sq",
    "cards_completed",
) + tuple(f"hp_{s}" for s in HP_SOURCES)
RUNNER_AGGREGATES = {
    "seat": ("policy", "seat", "measure"),
    "flows": ("policy", "seat", "flow", "resource"),
}


# ---------------------------------------------------------------------------------------------
# On-disk names: a run directory's files, and the plan file that marks each designer tool's folder
# (docs/runs.md); written and read by name from here only
# ---------------------------------------------------------------------------------------------
RUN_FILE = "run.json"  # the run's metadata: games played, invocations, hashes, complete or not
RESOLVED_FILE = "resolved.json"  # the resolved game and run settings
CARDS_FILE = "cards.csv"  # the card set with costs in placements (the card analytics read it)
REPORT_FOLDER = "report"  # a run's balance report, beside its records
TABLES_FOLDER = "tables"  # inside a report folder: every table as CSV
RUNGS_FOLDER = "rungs"  # inside a run directory: the run played again under each rung
RUNGS_FILE = "rungs.json"  # in RUNGS_FOLDER: which rung runs there are, and the rungs not played
# inside a run directory: its first deals again with one player never taking the Laureates
LAUREATES_FOLDER = "laureates"
LAUREATES_FILE = "laureates.json"  # in LAUREATES_FOLDER: its runs and games, or why none was played
# the plan file of each designer tool's folder (its presence says which tool wrote the folder)
SEATS_FILE = "seats.json"
SWEEP_FILE = "sweep.json"
CALIBRATE_FILE = "calibrate.json"
PROBE_FILE = "probe.json"
EXPLOIT_FILE = "exploit.json"  # config [report] exploit names such a folder
FIT_FILE = "fit.json"
LADDER_FILE = "ladder.json"
TUNE_FILE = "tune.json"
# what those tools write for other runs to read: a calibration's measured ATP equivalent (the
# reports; bands set in ATP, [report.bands] seat_win_share_atp, in the config layer), a fitted
# field's worths (a field's `fitted` key)
CALIBRATION_FILE = "calibration.json"
FITTED_FILE = "fitted.toml"
