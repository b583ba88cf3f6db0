"""Every vocabulary of the game, in one place: names and their integer codes.

The kernel indexes its flat arrays with these codes; the config layer maps the names used in
TOML files to them. This module is plain Python (no numba) so the config layer, the referee
and the reports can import it without compiling anything.
"""

# Resources, in the index order of every per-resource array (RULES.md §1).
RESOURCES = ("mrna", "protein", "carb", "lipid", "atp")
MRNA, PROTEIN, CARB, LIPID, ATP = range(5)
N_RESOURCES = 5
MACROMOLECULES = ("mrna", "protein", "carb", "lipid")  # discard_down applies to these only

# Cell Component card types (RULES.md §4), in the index order of per-type arrays.
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
# Completed-card types (goal criteria, receptor bonuses): the first six card types.
COMPLETED_TYPES = CARD_TYPES[:6]
# Groups usable wherever a completed type is named (RULES.md §5).
TYPE_GROUPS = {
    "hormone": ("protein_hormone", "steroid_hormone"),
    "receptor": ("protein_receptor", "steroid_receptor"),
}
TYPE_OR_GROUP = COMPLETED_TYPES + tuple(TYPE_GROUPS)

# The seed's card counts per type (RULES.md §1).
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

# Where each completable type is completed, and with which vesicle origin.
# Rough ER cards carry `protein`; Smooth ER cards carry `lipid` (RULES.md §4).
ROUGH_ER_TYPES = ("protein_hormone", "protein_receptor", "steroid_receptor")
SMOOTH_ER_TYPES = ("steroid_hormone",)
VESICLE_TYPES = ROUGH_ER_TYPES + SMOOTH_ER_TYPES
RECEPTOR_MATCH = {"protein_receptor": "protein_hormone", "steroid_receptor": "steroid_hormone"}

# Golgi resources a vesicle can carry (RULES.md §3).
GOLGI_RESOURCES = ("carb", "lipid")

# Card fields by type (RULES.md §4): the only keys a card row of that type may hold.
CARD_FIELDS = {
    "enzyme": ("atp", "protein", "carb", "hp"),
    "protein_hormone": ("atp", "protein", "golgi", "hp"),
    "protein_receptor": ("atp", "protein", "golgi", "hp", "bonus_per_match"),
    "steroid_receptor": ("atp", "protein", "golgi", "hp", "bonus_per_match"),
    "steroid_hormone": ("atp", "lipid", "golgi", "hp"),
    "detox": ("atp", "hp"),
    "additional_resource": ("gain",),
}

# Location actions (RULES.md §3). `collect` locations have spots with their own costs and
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
# Actions whose location may carry an epigenetic yield_bonus (RULES.md §7).
YIELD_BONUS_ACTIONS = ("collect", "translate", "protein_synthesis", "steroid_synthesis")

# Vesicle organelles (budding location groups).
ORGANELLES = ("rough_er", "smooth_er", "golgi")

# Health Point sources (RULES.md §8), in the index order of hp_by_source arrays.
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
)

# Event effect vocabulary (RULES.md §6) and hp_if conditions.
EVENT_EFFECTS = ("location_bonus", "all_gain", "card_discount", "discard_down", "hp_if")
HP_IF_CONDITIONS = ("stock_at_least", "stock_at_most", "completed_at_least")

# Goal criteria (RULES.md §5).
GOAL_CRITERIA = ("per_completed", "most_completed", "per_distinct_types", "per_leftover")

# Epigenetic Modification effect vocabulary (RULES.md §7).
EPIGENETIC_EFFECTS = (
    "yield_bonus",
    "cost_discount",
    "extra_vesicle",
    "extra_goal_marker",
    "start_bonus",
)

# Rule switches with a closed set of values.
TURN_ORDERS = ("marker", "rotate")
TIE_RULES = ("split",)

# Player counts the game supports (RULES.md §1).
MIN_PLAYERS, MAX_PLAYERS = 2, 5
