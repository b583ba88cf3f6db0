"""The heuristic evaluator shared by `greedy` and `planner`: the worth of cards, goals and
resources to one seat, read from a View, and the per-decision card workspace. The value of each
kind of action, which adds these up, is in values.py.

Values are in Health Points. An action's value is the change it makes to the seat's position:
resources at their base worth plus, for units a card of interest still needs, the `need` worth;
HP scored now; a share of a card's prospective HP when it enters the hand, when its vesicle is
loaded at an ER, when that vesicle reaches the Golgi (the shares add up to the card's HP at
completion); goal markers and the First Player Marker; minus an exhausted placement.
Parameter positions come from registry.HEURISTIC_PARAMS. Cards are read only when visible to the
seat (its hand, the Card Area, completed cards), so a card's values never change play in a game
where the card was not visible.
"""

from __future__ import annotations

import numpy as np

from simcell.kernel.bits import lowest_bit, popcount
from simcell.kernel.costs import completion_atp
from simcell.kernel.scoring import completed_in, first_marker_worth
from simcell.vocabulary import (
    ADDITIONAL_RESOURCE,
    ATP,
    CP_A_EXTRA,
    CP_A_N,
    CP_A_RES,
    CP_B_N,
    CP_B_RES,
    CP_ER_LOAD,
    CP_ORIGIN,
    CP_PARTNER,
    CP_PARTNER_BONUS,
    CP_VESICLE,
    GC_MOST_COMPLETED,
    GC_PER_COMPLETED,
    GC_PER_DISTINCT_TYPES,
    GC_PER_LEFTOVER,
    MRNA,
    N_RESOURCES,
    ORG_GOLGI,
    PROTEIN,
)
from simcell.kernel.jit import kernel_jit_inline
from simcell.policies.registry import HP_INDEX

V_RES = HP_INDEX["value_mrna"]  # five consecutive: mRNA, Protein, Carbohydrate, Lipid, ATP
V_NEED = HP_INDEX["need"]
V_HP = HP_INDEX["hp"]
V_CARD = HP_INDEX["card"]
V_STAGE_ER = HP_INDEX["stage_er"]
V_STAGE_GOLGI = HP_INDEX["stage_golgi"]
V_GOAL = HP_INDEX["goal"]
V_FIRST = HP_INDEX["first_player"]
V_HARM = HP_INDEX["harm"]
V_EXHAUST = HP_INDEX["exhaust"]
V_GREY = HP_INDEX["grey_first"]
V_TEMPERATURE = HP_INDEX["temperature"]
V_TARGETS = HP_INDEX["targets"]
V_FOCUS = HP_INDEX["target_focus"]
V_CONTEST = HP_INDEX["contest"]
V_TYPE = HP_INDEX["w_enzyme"]  # six consecutive, in COMPLETED_TYPES order
V_FAVOUR_CARD = HP_INDEX["favour_card"]
V_FAVOUR = HP_INDEX["favour"]
V_SKIP_LAUREATES = HP_INDEX["skip_laureates"]

# Rows of the per-decision card workspace (ws[row, card id], on the turn loop's stack:
# heuristic.list_and_value), filled by
# prepare_cards for the visible cards of interest so each is evaluated once per decision
# (WS_SCORE: the planner's target score, planner.score_candidates).
WS_WORTH, WS_STAGE, WS_TODO, WS_SCORE = 0, 1, 2, 3

# Typical yield of one placement, per resource (the base board's best plain spots), used to turn
# missing resources into placements. Carbohydrate: the Glucose Transporter's 1.5 a placement
# costs 1.5 ATP, half a placement more, so 1.0 a placement.
PER_PLACEMENT = (3.0, 3.0, 1.0, 3.0, 3.0)
# PLACEMENTS_FOR[r, x] = x / PER_PLACEMENT[r] (the same division, done once here): a load where
# placements_to_complete would wait on a division
PLACEMENTS_TABLE = 64
PLACEMENTS_FOR = np.array([[x / PER_PLACEMENT[r] for x in range(PLACEMENTS_TABLE)]
                           for r in range(len(PER_PLACEMENT))])


# -- what things are worth ----------------------------------------------------------------------
# goal_bonus[t]: end bonus HP one more completed card of type t earns from the goals the seat has
# marked (per_completed, and the better chance in a most_completed race); goal_bonus[GOAL_NEW_TYPE]:
# the extra if it is the seat's first of its type (per_distinct_types). Filled once per decision
# by goal_bonuses.
GOAL_NEW_TYPE = 6

# The seat's chance of winning a most_completed goal at the end by its lead now (its cards of the
# goal's types minus the most any rival has), at leads -2, -1, 0, +1, +2 and beyond; between
# whole leads, linear (race_chance).
RACE_CHANCE = np.array([0.05, 0.1, 0.4, 0.8, 0.95])


@kernel_jit_inline
def race_chance(lead):
    """The chance of winning a most_completed race at `lead` (RACE_CHANCE, linear between whole
    leads, flat beyond +-2): it never falls as the lead grows."""
    x = min(max(lead, -2.0), 2.0) + 2.0
    i = min(int(x), 3)
    f = x - i
    return RACE_CHANCE[i] * (1.0 - f) + RACE_CHANCE[i + 1] * f


@kernel_jit_inline
def race_lead(v, gt, bits):
    """The seat's completed cards of the types in `bits` minus the most any rival completed."""
    s = v.seat
    best = 0
    for o in range(gt.players):
        if o != s:
            best = max(best, completed_in(v.completed_by_type, o, bits))
    return completed_in(v.completed_by_type, s, bits) - best


@kernel_jit_inline
def goal_bonuses(v, gt, goal_bonus):
    s = v.seat
    for t in range(GOAL_NEW_TYPE + 1):
        goal_bonus[t] = 0.0
    for gi in range(gt.goals_revealed):
        if v.goal_mark[gi, s] == 0:
            continue
        g = v.goals[gi]
        crit = gt.goal_criterion[g]
        if crit == GC_PER_COMPLETED:
            for t in range(GOAL_NEW_TYPE):
                if (gt.goal_types[g] >> t) & 1:
                    goal_bonus[t] += gt.goal_hp[g]
        elif crit == GC_PER_DISTINCT_TYPES:
            goal_bonus[GOAL_NEW_TYPE] += gt.goal_hp[g]
        elif crit == GC_MOST_COMPLETED:
            # one more card of the race's types raises the seat's lead by one: the bonus times
            # the better chance of winning the race (never negative)
            lead = np.float64(race_lead(v, gt, gt.goal_types[g]))
            gain = gt.goal_hp[g] * (race_chance(lead + 1.0) - race_chance(lead))
            for t in range(GOAL_NEW_TYPE):
                if (gt.goal_types[g] >> t) & 1:
                    goal_bonus[t] += gain


@kernel_jit_inline
def completion_hp(v, gt, goal_bonus, card):
    """HP the seat scores now and at the end by completing `card`: its HP, the receptor bonuses
    it adds, and the goal bonuses on goals the seat has marked (goal_bonus, from goal_bonuses).
    A receptor's bonus counts each completed hormone of its kind and half of each in hand (a card
    in hand is completed later as often as not); a hormone adds the bonus of each completed
    receptor of its kind. The pair's prospect is the receptor's alone, so a receptor's bonus
    raises no other card's worth in hand (which could then be kept or targeted before it)."""
    s = v.seat
    t = gt.card_type[card]
    hp = np.float64(gt.card_hp[card])
    # from the card's route tables, with no branch on its type (GameTables.card_plan): a
    # receptor's bonus per hormone of its kind (any other card adds 0, exactly nothing), and for
    # a hormone each completed matching receptor's bonus (card_match is 0 for any other card)
    partner = gt.card_plan[card, CP_PARTNER]
    hp += gt.card_plan[card, CP_PARTNER_BONUS] * (
        v.completed_by_type[s, partner] + 0.5 * popcount(v.hand & gt.type_mask[partner]))
    done = v.completed[s] & gt.card_match[card]
    while done != 0:
        c = lowest_bit(done)
        done &= done - np.int64(1)
        hp += gt.card_bonus[c]
    hp += goal_bonus[t]
    hp += goal_bonus[GOAL_NEW_TYPE] if v.completed_by_type[s, t] == 0 else 0.0
    return hp


@kernel_jit_inline
def card_worth(v, gt, params, goal_bonus, card):
    """Prospective worth of completing `card`, weighted by the policy's type weight (and by
    `favour` for the favoured card: every valuation of a card reads this worth)."""
    worth = completion_hp(v, gt, goal_bonus, card) * params[V_TYPE + gt.card_type[card]]
    # no favoured card (0) matches no card id + 1, so default play is bit for bit unchanged
    return worth * params[V_FAVOUR] if card + 1 == params[V_FAVOUR_CARD] else worth


@kernel_jit_inline
def held_of(v, gt, bits):
    """Cards of the types in `bits` in the seat's hand."""
    held = 0
    cards = v.hand
    while cards != 0:
        c = lowest_bit(cards)
        cards &= cards - np.int64(1)
        if (bits >> gt.card_type[c]) & 1:
            held += 1
    return held


@kernel_jit_inline
def goal_expectation(v, gt, gi):
    """The seat's expected end bonus from goal gi if it holds a marker there (a card of the
    goal's types in hand counts half a completed one)."""
    s = v.seat
    g = v.goals[gi]
    crit = gt.goal_criterion[g]
    hp = gt.goal_hp[g]
    bits = gt.goal_types[g]
    if crit == GC_PER_COMPLETED:
        return hp * (completed_in(v.completed_by_type, s, bits) + 0.5 * held_of(v, gt, bits) + 0.5)
    if crit == GC_MOST_COMPLETED:
        return hp * race_chance(race_lead(v, gt, bits) + 0.5 * held_of(v, gt, bits))
    if crit == GC_PER_DISTINCT_TYPES:
        n = 0
        for t in range(6):
            if v.completed_by_type[s, t] > 0:
                n += 1
        return hp * (n + 1.0)
    if crit == GC_PER_LEFTOVER:
        return hp * (v.stock[s, gt.goal_res[g]] // max(gt.goal_n[g], 1))
    return 0.0


@kernel_jit_inline
def marker_value(v, gt, params, gi):
    """Worth of putting a goal marker on goal gi now: a first marker's HP falls with the goal
    cards already claimed when rules.first_marker_hp says so."""
    now = first_marker_worth(gt, v.goal_nmark) if v.goal_nmark[gi] == 0 else 0
    return params[V_HP] * now + params[V_GOAL] * goal_expectation(v, gt, gi)


# -- what the seat still needs ---------------------------------------------------------------
@kernel_jit_inline
def vesicle_stage(v, gt, card):
    """How far the seat's best vesicle is along `card`'s route: 2 at the Golgi with the right
    resource (ready), 1 loaded enough at the right ER, 0 none."""
    s = v.seat
    origin = gt.card_plan[card, CP_ORIGIN]
    need = gt.card_plan[card, CP_ER_LOAD]
    best = 0
    for idx in range(gt.budding[ORG_GOLGI]):
        if (v.ves_owner[ORG_GOLGI, idx] == s and v.ves_origin[ORG_GOLGI, idx] == origin
                and v.ves_load[ORG_GOLGI, idx] >= need
                and v.ves_golgi[ORG_GOLGI, idx] == gt.card_golgi[card]):
            return 2
    for idx in range(gt.budding[origin]):
        if v.ves_owner[origin, idx] == s and v.ves_load[origin, idx] >= need:
            best = 1
    return best


@kernel_jit_inline
def card_need(v, gt, ws, card):
    """What completing `card` still takes from personal stock, as five stock amounts (an
    Additional Resource card, held only during setup, needs nothing), its vesicle's stage read
    from the card workspace (0 for a card without a vesicle, prepare_cards)."""
    n = (0.0, 0.0, 0.0, 0.0, 0.0)
    if gt.card_type[card] == ADDITIONAL_RESOURCE:
        return n
    n = plus(n, ATP, np.float64(completion_atp(gt, v.cost_discount, v.seat, card)))
    # the card's two slots (vocabulary.CP_*), with no branch on its type: a slot a card does not
    # have, or has already served (its vesicle's stage), adds 0, exactly nothing
    stage = ws[WS_STAGE, card]
    plan = gt.card_plan
    n = plus(n, plan[card, CP_A_RES], np.float64(plan[card, CP_A_N] * np.int64(stage < 2)))
    return plus(n, plan[card, CP_B_RES], np.float64(plan[card, CP_B_N] * np.int64(stage < 1)))


@kernel_jit_inline
def add_card_need(v, gt, ws, card, weight, need):
    """Add card_need of `card`, times `weight`, to need[resource]."""
    n = card_need(v, gt, ws, card)
    for r in range(N_RESOURCES):
        need[r] += weight * n[r]


@kernel_jit_inline
def placements_left(v, gt):
    """Own placements the seat can still make this game (this round's unplaced flasks too)."""
    return v.own_left[v.seat] + (gt.rounds - v.round) * gt.flasks


@kernel_jit_inline
def placements_for(r, x):
    """x / PER_PLACEMENT[r] for a whole number x > 0: placements that gather x units of r."""
    return PLACEMENTS_FOR[r, x] if x < PLACEMENTS_TABLE else x / PER_PLACEMENT[r]


@kernel_jit_inline
def placements_to_complete(v, gt, card, in_hand, stage):
    """Placements still needed to complete `card` (buying it, gathering, its route), its vesicle
    at `stage` (vesicle_stage; 0 for a card without a vesicle, as prepare_cards sets it)."""
    s = v.seat
    plan = gt.card_plan
    n = 0.0 if in_hand else 1.0
    miss = 0.0
    # with no branch on the card's type (vocabulary.CP_*): what is not short adds
    # placements_for(r, 0) = 0.0, exactly nothing, in the order ATP, slot A, slot B
    atp = completion_atp(gt, v.cost_discount, v.seat, card) - v.stock[s, ATP]
    miss += placements_for(ATP, max(atp, 0))
    a_res = plan[card, CP_A_RES]
    a = plan[card, CP_A_N] * np.int64(stage < 2) - v.stock[s, a_res]
    # an Enzyme short of Protein: mRNA first, then the Free Ribosome (CP_A_EXTRA)
    miss += placements_for(a_res, max(a, 0)) + (np.float64(plan[card, CP_A_EXTRA]) if a > 0 else 0.0)
    b_res = plan[card, CP_B_RES]
    b = plan[card, CP_B_N] * np.int64(stage < 1) - v.stock[s, b_res]
    miss += placements_for(b_res, max(b, 0))
    # one placement to complete an Enzyme or Detoxification card; a vesicle card's route has
    # three (ER, Golgi, Exocytosis), less its vesicle's stage (0 for any other card)
    n += (1.0 + 2.0 * plan[card, CP_VESICLE]) - stage
    return n + miss


# -- resource deltas -----------------------------------------------------------------------
@kernel_jit_inline
def resource_delta(worth, gap, focus_need, d):
    """Worth of d more (or -d fewer) units of a resource in personal stock: `worth` a unit, and
    `focus_need` more a unit the cards of interest need beyond the stock (`gap`, need_to_gap).
    Every operand but the worths is a whole number, so gap - d is exactly need - (have + d)."""
    before = gap if gap > 0 else 0.0
    after = gap - d
    after = after if after > 0 else 0.0
    return worth * d + focus_need * (before - after)


@kernel_jit_inline
def plus(d, r, x):
    """The five stock changes d (a tuple, kept in registers) with x more of resource r."""
    return (d[0] + (x if r == 0 else 0.0), d[1] + (x if r == 1 else 0.0),
            d[2] + (x if r == 2 else 0.0), d[3] + (x if r == 3 else 0.0),
            d[4] + (x if r == 4 else 0.0))


@kernel_jit_inline
def spot_net(gt, spot, r, bonus):
    """Net stock change in resource r of collecting at `spot` with a yield bonus."""
    gain = gt.spot_gain[spot, r]
    return gain - gt.spot_cost[spot, r] + (bonus if gain > 0 else 0)


@kernel_jit_inline
def card_gain(gt, card, sign, d):
    """d with an Additional Resource card's gain added (sign 1) or taken back (sign -1)."""
    return (d[0] + sign * gt.card_gain[card, 0], d[1] + sign * gt.card_gain[card, 1],
            d[2] + sign * gt.card_gain[card, 2], d[3] + sign * gt.card_gain[card, 3],
            d[4] + sign * gt.card_gain[card, 4])


@kernel_jit_inline
def need_to_gap(v, need):
    """need[r] -= the seat's stock of r, once per decision (action_value's resource_delta reads
    the gap, not the stock)."""
    for r in range(N_RESOURCES):
        need[r] -= v.stock[v.seat, r]
    # Protein still to make is mRNA still to gather: gathering it is progress toward an Enzyme
    # (translate_value weighs the mRNA it spends against the gap without this part)
    need[MRNA] += max(need[PROTEIN], 0.0)


@kernel_jit_inline
def best_er_value(v, gt, params, ws, org, load, interest):
    """Worth of a new vesicle at ER `org` with `load`: the stage_er share of the best card of
    interest it can serve, if no vesicle of the seat serves that card already."""
    best = 0.0
    cards = interest & gt.vesicle_type_mask
    while cards != 0:
        c = lowest_bit(cards)
        cards &= cards - np.int64(1)
        # a select, not branches: whether a card of interest fits is as random as its type
        fits = ((gt.card_plan[c, CP_ORIGIN] == org) & (gt.card_plan[c, CP_ER_LOAD] <= load)
                & (ws[WS_STAGE, c] == 0))
        w = ws[WS_WORTH, c]
        best = w if fits & (w > best) else best
    return params[V_STAGE_ER] * best


@kernel_jit_inline
def best_golgi_value(v, gt, params, ws, origin, load, golgi, interest):
    """Worth of moving a vesicle to the Golgi with resource `golgi`: the step from the ER stage
    to the Golgi stage of the best card of interest it then serves."""
    best = 0.0
    cards = interest & gt.vesicle_type_mask
    while cards != 0:
        c = lowest_bit(cards)
        cards &= cards - np.int64(1)
        fits = ((gt.card_plan[c, CP_ORIGIN] == origin) & (gt.card_plan[c, CP_ER_LOAD] <= load)
                & (gt.card_golgi[c] == golgi) & (ws[WS_STAGE, c] < 2))
        w = ws[WS_WORTH, c]
        best = w if fits & (w > best) else best
    return (params[V_STAGE_GOLGI] - params[V_STAGE_ER]) * best


@kernel_jit_inline
def acquire_value(v, gt, params, ws, card, weight):
    """Worth of a card bought into the hand: `weight` times the `card` share of its worth,
    scaled by whether it can still be completed; 0 for an Additional Resource card, whose gain
    is a stock change (card_gain)."""
    if gt.card_type[card] == ADDITIONAL_RESOURCE:
        return 0.0
    left = placements_left(v, gt) - 1.0
    todo = ws[WS_TODO, card]
    if left < todo:
        return 0.0
    feasible = 1.0 - todo / (left + 1.0)
    return weight * params[V_CARD] * ws[WS_WORTH, card] * feasible


# The planner's setup keep ranks dealt cards by worth per placement still needed, as it ranks its
# targets (planner.target_score: one placement more than the card's own), scaled by KEEP_SCALE
# placements, about a typical card's, so a kept card weighs about what it did against an
# Additional Resource card's gain.
KEEP_SLACK = 1.0
KEEP_SCALE = 4.0


@kernel_jit_inline
def keep_value(v, gt, params, ws, card, plan):
    """Worth of keeping dealt `card` at the setup (handing it back costs this), as the seat's
    play will pursue it: the planner (`plan`) finishes its targets, the cards of most worth per
    placement, so it keeps by that (by worth alone it kept a dear card it rarely finished over
    a cheap one it always did: a Detoxification card handed back for an Enzyme made one ATP
    cheaper); greedy works toward its whole hand, so it keeps by worth, as it buys
    (acquire_value; by worth per placement it handed back a hormone or receptor for a cheaper
    Enzyme). 0 for an Additional Resource card, whose gain is a stock change (card_gain)."""
    if not plan:
        return acquire_value(v, gt, params, ws, card, 1.0)
    if gt.card_type[card] == ADDITIONAL_RESOURCE:
        return 0.0
    return params[V_CARD] * ws[WS_WORTH, card] * KEEP_SCALE / (ws[WS_TODO, card] + KEEP_SLACK)


@kernel_jit_inline
def free_budding_count(v, gt, org):
    free = 0
    for i in range(gt.budding[org]):
        if v.ves_owner[org, i] < 0:
            free += 1
    return free


# -- the card workspace of one decision --------------------------------------------------------
@kernel_jit_inline
def prepare_cards(v, gt, params, ws, goal_bonus):
    """Evaluate once each card the policies may read this decision: the hand and the Card Area
    (worth, vesicle stage, placements still needed from the hand). The listing values every
    Card Area slot, listed or not, and an empty slot as card 0 (kernel/legal.py), so card 0's
    entries are set too (to 0 unless it is one of these)."""
    goal_bonuses(v, gt, goal_bonus)
    ws[WS_WORTH, 0] = 0.0
    ws[WS_STAGE, 0] = 0.0
    ws[WS_TODO, 0] = 0.0
    cards = v.hand
    for slot in range(gt.n_slots):
        c = v.slot_card[slot]
        cards |= (np.int64(1) << np.int64(c)) if c >= 0 else np.int64(0)
    # the vesicle stages first, each kind of card in a loop of its own (no branch on the
    # type, which was mispredicted on many cards): 0 for a card without a vesicle
    vesicle_cards = cards & gt.vesicle_type_mask
    rest = cards & ~vesicle_cards
    while rest != 0:
        c = lowest_bit(rest)
        rest &= rest - np.int64(1)
        ws[WS_STAGE, c] = 0.0
    while vesicle_cards != 0:
        c = lowest_bit(vesicle_cards)
        vesicle_cards &= vesicle_cards - np.int64(1)
        ws[WS_STAGE, c] = vesicle_stage(v, gt, c)
    while cards != 0:
        c = lowest_bit(cards)
        cards &= cards - np.int64(1)
        if gt.card_type[c] == ADDITIONAL_RESOURCE:
            ws[WS_WORTH, c] = 0.0
            ws[WS_TODO, c] = 0.0
            continue
        ws[WS_WORTH, c] = card_worth(v, gt, params, goal_bonus, c)
        ws[WS_TODO, c] = placements_to_complete(v, gt, c, True, ws[WS_STAGE, c])
