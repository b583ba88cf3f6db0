"""The heuristic evaluator shared by `greedy` and `planner`: the worth of cards, goals and
resources to one seat, and the one-step value of every legal action, all read from a View.

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

from simcell.kernel.bits import lowest_bit
from simcell.kernel.codes import code_flask, code_kind, code_p1, code_p2, code_p3, code_target
from simcell.vocabulary import (
    ACT_COMBO,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_RETURN,
    ADDITIONAL_RESOURCE,
    ATP,
    CARB,
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
    FLASK_GREY,
    GC_MOST_COMPLETED,
    GC_PER_COMPLETED,
    GC_PER_DISTINCT_TYPES,
    GC_PER_LEFTOVER,
    GOLGI_CARB,
    LA_CARD_AREA,
    LA_COLLECT,
    LA_DETOX,
    LA_ENZYME,
    LA_EXOCYTOSIS,
    LA_GOLGI,
    LA_LAUREATES,
    LA_PROTEIN_SYNTHESIS,
    LA_STEROID_SYNTHESIS,
    LA_TRANSLATE,
    LIPID,
    MRNA,
    N_RESOURCES,
    ORG_GOLGI,
    ORG_ROUGH,
    ORG_SMOOTH,
    PROTEIN,
    SOURCE_RADIX,
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

# Rows of the per-decision card workspace (ws[row, card id], on the turn loop's stack:
# heuristic.list_and_value), filled by
# prepare_cards for the visible cards of interest so each is evaluated once per decision
# (WS_SCORE: the planner's target score, planner.score_candidates).
WS_WORTH, WS_STAGE, WS_TODO, WS_SCORE = 0, 1, 2, 3

# Typical yield of one placement, per resource (the base board's best plain spots), used to turn
# missing resources into placements.
PER_PLACEMENT = (3.0, 3.0, 1.5, 3.0, 3.0)
# PLACEMENTS_FOR[r, x] = x / PER_PLACEMENT[r] (the same division, done once here): a load where
# placements_to_complete would wait on a division
PLACEMENTS_TABLE = 64
PLACEMENTS_FOR = np.array([[x / PER_PLACEMENT[r] for x in range(PLACEMENTS_TABLE)]
                           for r in range(len(PER_PLACEMENT))])


# -- what things are worth ----------------------------------------------------------------------
@kernel_jit_inline
def completion_atp(v, gt, card):
    """Completion ATP of a completable card after the seat's cost_discount (minimum 0)."""
    a = gt.card_atp[card] - v.cost_discount[v.seat, gt.card_type[card]]
    return a if a > 0 else 0


# goal_bonus[t]: end bonus HP one more completed card of type t earns from the goals the seat has
# marked (per_completed); goal_bonus[GOAL_NEW_TYPE]: the extra if it is the seat's first of its
# type (per_distinct_types). Filled once per decision by goal_bonuses.
GOAL_NEW_TYPE = 6


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


@kernel_jit_inline
def completion_hp(v, gt, goal_bonus, card):
    """HP the seat scores now and at the end by completing `card`: its HP, receptor bonuses it
    adds, and per_completed / per_distinct goal bonuses on goals the seat has marked (goal_bonus,
    from goal_bonuses: whole numbers, so the sum is the same in any order)."""
    s = v.seat
    t = gt.card_type[card]
    hp = np.float64(gt.card_hp[card])
    # from the card's route tables, with no branch on its type (GameTables.card_plan): a
    # receptor's bonus per completed hormone of its kind (any other card adds 0, exactly
    # nothing), and for a hormone each completed matching receptor's bonus (card_match is 0
    # for any other card)
    hp += gt.card_plan[card, CP_PARTNER_BONUS] * v.completed_by_type[s, gt.card_plan[card, CP_PARTNER]]
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
    """Prospective worth of completing `card`, weighted by the policy's type weight."""
    return completion_hp(v, gt, goal_bonus, card) * params[V_TYPE + gt.card_type[card]]


@kernel_jit_inline
def completed_of(v, gt, seat, type_bits):
    n = 0
    for t in range(6):
        if (type_bits >> t) & 1:
            n += v.completed_by_type[seat, t]
    return n


@kernel_jit_inline
def goal_expectation(v, gt, gi):
    """The seat's expected end bonus from goal gi if it holds a marker there."""
    s = v.seat
    g = v.goals[gi]
    crit = gt.goal_criterion[g]
    hp = gt.goal_hp[g]
    bits = gt.goal_types[g]
    if crit == GC_PER_COMPLETED:
        held = 0
        cards = v.hand
        while cards != 0:
            c = lowest_bit(cards)
            cards &= cards - np.int64(1)
            if (bits >> gt.card_type[c]) & 1:
                held += 1
        return hp * (completed_of(v, gt, s, bits) + 0.5 * held + 0.5)
    if crit == GC_MOST_COMPLETED:
        mine = completed_of(v, gt, s, bits)
        best = 0
        for o in range(gt.players):
            if o != s:
                best = max(best, completed_of(v, gt, o, bits))
        if mine > best:
            return hp * 0.8
        return hp * (0.4 if mine == best else 0.1)
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
    """Worth of putting a goal marker on goal gi now."""
    now = gt.first_marker_hp if v.goal_nmark[gi] == 0 else 0
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
def add_card_need(v, gt, ws, card, weight, need):
    """Add what completing `card` still takes from personal stock to need[resource] (an
    Additional Resource card, held only during setup, needs nothing), its vesicle's stage read
    from the card workspace (0 for a card without a vesicle, prepare_cards)."""
    if gt.card_type[card] == ADDITIONAL_RESOURCE:
        return
    need[ATP] += weight * completion_atp(v, gt, card)
    # the card's two slots (vocabulary.CP_*), with no branch on its type: a slot a card does not
    # have, or has already served (its vesicle's stage), adds weight * 0, exactly nothing
    stage = ws[WS_STAGE, card]
    plan = gt.card_plan
    need[plan[card, CP_A_RES]] += weight * (plan[card, CP_A_N] * np.int64(stage < 2))
    need[plan[card, CP_B_RES]] += weight * (plan[card, CP_B_N] * np.int64(stage < 1))


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
    atp = completion_atp(v, gt, card) - v.stock[s, ATP]
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
    """Worth of a card entering the hand (weight > 0) or going back (weight < 0): `card` share
    of its worth, scaled by whether it can still be completed; 0 for an Additional Resource
    card, whose gain is a stock change (card_gain)."""
    if gt.card_type[card] == ADDITIONAL_RESOURCE:
        return 0.0
    left = placements_left(v, gt) - 1.0
    todo = ws[WS_TODO, card]
    if left < todo:
        return 0.0
    feasible = 1.0 - todo / (left + 1.0)
    return weight * params[V_CARD] * ws[WS_WORTH, card] * feasible


@kernel_jit_inline
def free_budding_count(v, gt, org):
    free = 0
    for i in range(gt.budding[org]):
        if v.ves_owner[org, i] < 0:
            free += 1
    return free


# -- the value of one action -------------------------------------------------------------------
# A decision's evaluator context `ev` (heuristic.evaluator_context): the View, the parameter
# row, the card workspace, the per-unit worths and gaps (tuples of five), focus * need, the
# cards of interest, the contest bonus, and a scratch row for fixed_values (filled by the turn
# loop's listing, heuristic.list_and_value, before it lists). The placement values below take
# it with the placement's fields, so the legality generator can value each placement where it
# lists it (kernel/legal.py, `valued`), each site reading only its own kind's code, and
# action_value reads them for a listed code.
@kernel_jit_inline
def settle(ev, value, d):
    """value plus the worth of the five stock changes d, every resource, changed or not (an
    unchanged one adds exactly 0.0), in resource order. Changes to personal stock are gathered
    in d (a tuple of five, so in registers: as an array, each store made the compiler reload the
    parameters, which it cannot tell apart from it) and valued once here; resources that turn
    into a completion or into vesicle cargo count at their base worth only."""
    worth = ev[3]
    gap = ev[4]
    focus_need = ev[5]
    value += resource_delta(worth[0], gap[0], focus_need, d[0])
    value += resource_delta(worth[1], gap[1], focus_need, d[1])
    value += resource_delta(worth[2], gap[2], focus_need, d[2])
    value += resource_delta(worth[3], gap[3], focus_need, d[3])
    value += resource_delta(worth[4], gap[4], focus_need, d[4])
    return value


@kernel_jit_inline
def location_bonus(v, loc):
    """The stock changes of claiming a location's unclaimed location_bonus (none: all 0)."""
    d = (0.0, 0.0, 0.0, 0.0, 0.0)
    if v.bonus_res[loc] >= 0:
        d = plus(d, v.bonus_res[loc], np.float64(v.bonus_n[loc]))
    return d


@kernel_jit_inline
def collect_value(ev, gt, loc, j):
    """Collecting at spot j of a Collect location."""
    v = ev[0]
    spot = gt.loc_first_spot[loc] + j
    bonus = v.yield_bonus[v.seat, loc]
    d = location_bonus(v, loc)
    # integer sums, exact in float: a select, not a branch per resource
    d = (d[0] + spot_net(gt, spot, 0, bonus), d[1] + spot_net(gt, spot, 1, bonus),
         d[2] + spot_net(gt, spot, 2, bonus), d[3] + spot_net(gt, spot, 3, bonus),
         d[4] + spot_net(gt, spot, 4, bonus))
    return settle(ev, 0.0, d)


@kernel_jit_inline
def fixed_values(ev, gt, out):
    """out[row] = the value of each action whose stock changes the board fixes
    (GameTables.fixed_net): collecting at each collect spot, for a seat without a yield bonus
    at the spot's location and a location without an unclaimed location_bonus (collect_value
    then), and exhausting for mRNA, Lipid, ATP (exhaust_value). All at once, in whole vectors,
    by the same operations as those functions' (the zero bonuses add exactly nothing), so the
    same values to the bit; the padding's are never read."""
    exhausted = 0.0 - ev[1][V_EXHAUST]
    for k in range(gt.n_fixed_pad):  # no call and no branch: vectorised
        d = (gt.fixed_net[0, k], gt.fixed_net[1, k], gt.fixed_net[2, k],
             gt.fixed_net[3, k], gt.fixed_net[4, k])
        out[k] = settle(ev, exhausted if k >= gt.exhaust_row else 0.0, d)


@kernel_jit_inline
def translate_value(ev, gt, loc, k):
    """Translating k mRNA into Protein at the Free Ribosomes."""
    v = ev[0]
    d = location_bonus(v, loc)
    d = plus(plus(d, MRNA, np.float64(-k)), PROTEIN, np.float64(k + v.yield_bonus[v.seat, loc]))
    return settle(ev, 0.0, d)


@kernel_jit_inline
def card_area_value(ev, gt, loc, slot):
    """Buying the card in a Card Area slot."""
    v, params, ws, interest = ev[0], ev[1], ev[2], ev[6]
    d = location_bonus(v, loc)
    card = max(v.slot_card[slot], 0)  # an empty slot (-1, not listed) as card 0
    price = gt.slot_prices[slot] - v.discount
    d = plus(d, ATP, -np.float64(price if price > 0 else 0))
    weight = 1.0 if (interest >> np.int64(card)) & 1 else 0.6
    value = 0.0
    value += acquire_value(v, gt, params, ws, card, weight)
    if gt.card_type[card] == ADDITIONAL_RESOURCE:
        d = card_gain(gt, card, 1.0, d)
    return settle(ev, value, d)


@kernel_jit_inline
def completion_value(ev, gt, loc, card, action):
    """Completing `card` at an Enzyme, Detoxification or Exocytosis location (`action`)."""
    v, params, ws = ev[0], ev[1], ev[2]
    d = location_bonus(v, loc)
    value = 0.0
    value -= params[V_RES + ATP] * completion_atp(v, gt, card)
    if action == LA_ENZYME:
        value -= (params[V_RES + PROTEIN] * gt.card_protein[card]
                  + params[V_RES + CARB] * gt.card_carb[card])
    share = 1.0 - params[V_STAGE_GOLGI] if action == LA_EXOCYTOSIS else 1.0
    value += params[V_HP] * ws[WS_WORTH, card] * share
    return settle(ev, value, d)


@kernel_jit_inline
def displacement_value(v, gt, params, contest, org, victim):
    """Worth of taking a budding location of organelle `org`: harm done to the vesicle
    displaced at victim - 1, or (victim 0) `contest` when it is the last free one."""
    if victim > 0:
        return params[V_HARM] * v.ves_load[org, victim - 1]
    if contest > 0.0 and free_budding_count(v, gt, org) == 1:
        return contest
    return 0.0  # adds exactly nothing: the value it is added to is never -0.0


@kernel_jit_inline
def er_value(ev, gt, loc, org, k, victim):
    """Loading a vesicle of k units at the Rough (org ORG_ROUGH) or Smooth ER, displacing the
    vesicle at budding index victim - 1 (victim 0: a free budding location)."""
    v, params, ws, interest, contest = ev[0], ev[1], ev[2], ev[6], ev[7]
    d = location_bonus(v, loc)
    res = MRNA if org == ORG_ROUGH else LIPID
    value = 0.0
    value -= params[V_RES + res] * k  # the spent units become the vesicle's cargo
    value += best_er_value(v, gt, params, ws, org, k + v.yield_bonus[v.seat, loc], interest)
    value += displacement_value(v, gt, params, contest, org, victim)
    return settle(ev, value, d)


@kernel_jit_inline
def golgi_value(ev, gt, loc, src, golgi, victim):
    """Moving the vesicle at source `src` (organelle * SOURCE_RADIX + index) to the Golgi with
    Golgi resource `golgi`, displacing the Golgi vesicle at victim - 1 (victim 0: none)."""
    v, params, ws, interest, contest = ev[0], ev[1], ev[2], ev[6], ev[7]
    d = location_bonus(v, loc)
    org = src // SOURCE_RADIX
    value = 0.0
    value -= params[V_RES + (CARB if golgi == GOLGI_CARB else LIPID)]
    value += best_golgi_value(v, gt, params, ws, org, v.ves_load[org, src % SOURCE_RADIX],
                              golgi, interest)
    value += displacement_value(v, gt, params, contest, ORG_GOLGI, victim)
    return settle(ev, value, d)


@kernel_jit_inline
def laureates_value(ev, gt, loc, choice):
    """The Laureates: choice 0 takes the ATP, 1 + gi puts a goal marker on goal gi."""
    v, params = ev[0], ev[1]
    d = location_bonus(v, loc)
    value = 0.0
    if not gt.rotate and v.marker != v.seat:
        value += params[V_FIRST]
    if choice == 0:
        d = plus(d, ATP, 1.0)
    else:
        value += marker_value(v, gt, params, choice - 1)
    return settle(ev, value, d)


@kernel_jit_inline
def exhaust_value(ev, r):
    """Exhausting a flask for one unit of resource r."""
    return settle(ev, 0.0 - ev[1][V_EXHAUST], plus((0.0, 0.0, 0.0, 0.0, 0.0), r, 1.0))


@kernel_jit_inline
def place_value(ev, gt, code):
    """A placement code's value, without grey_first (dispatched on its location's action)."""
    loc = code_target(code)
    action = gt.loc_action[loc]
    p1 = code_p1(code)
    if action == LA_COLLECT:
        return collect_value(ev, gt, loc, p1)
    if action == LA_TRANSLATE:
        return translate_value(ev, gt, loc, p1)
    if action == LA_CARD_AREA:
        return card_area_value(ev, gt, loc, p1)
    if action == LA_EXOCYTOSIS:
        return completion_value(ev, gt, loc, code_p2(code), action)
    if action == LA_ENZYME or action == LA_DETOX:
        return completion_value(ev, gt, loc, p1, action)
    if action == LA_PROTEIN_SYNTHESIS:
        return er_value(ev, gt, loc, ORG_ROUGH, p1, code_p2(code))
    if action == LA_STEROID_SYNTHESIS:
        return er_value(ev, gt, loc, ORG_SMOOTH, p1, code_p2(code))
    if action == LA_GOLGI:
        return golgi_value(ev, gt, loc, p1, code_p2(code), code_p3(code))
    if action == LA_LAUREATES:
        return laureates_value(ev, gt, loc, p1)
    return settle(ev, 0.0, location_bonus(ev[0], loc))


@kernel_jit_inline
def action_value(ev, gt, code):
    """One-step value of a legal action code for the context's seat."""
    kind = code_kind(code)
    if kind == ACT_PASS:
        return 0.0
    if kind == ACT_EXHAUST:
        return exhaust_value(ev, code_p1(code))
    if kind == ACT_RETURN or kind == ACT_COMBO:
        return setup_value(ev, gt, code)
    value = place_value(ev, gt, code)
    if code_flask(code) == FLASK_GREY:  # last: a grey placement is its own-flask twin + grey_first
        value += ev[1][V_GREY]
    return value


@kernel_jit_inline
def setup_value(ev, gt, code):
    """A setup decision's value: returning a card (ACT_RETURN) or taking a starting combination
    (ACT_COMBO)."""
    v, params, ws = ev[0], ev[1], ev[2]
    d = (0.0, 0.0, 0.0, 0.0, 0.0)
    value = 0.0
    p1 = code_p1(code)
    if code_kind(code) == ACT_RETURN:
        value -= acquire_value(v, gt, params, ws, p1, -1.0)
        if gt.card_type[p1] == ADDITIONAL_RESOURCE:
            d = card_gain(gt, p1, -1.0, d)
    else:
        d = plus(plus(d, gt.combos[p1, 0], 1.0), gt.combos[p1, 1], 1.0)
    return settle(ev, value, d)


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
