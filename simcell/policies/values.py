"""The one door between the rules and the bots: the value of each kind of action to the seat
deciding, which the legality generator (kernel/legal.py) calls where it lists the action and the
heuristic choice step (heuristic.py) calls for setup decisions. Each reads the decision's
EvalContext (built once per decision by heuristic.evaluator_context) and the worth of cards,
goals and resources that evaluate.py works out; values are in Health Points."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simcell.kernel.codes import code_kind, code_p1
from simcell.kernel.costs import completion_atp, slot_price
from simcell.kernel.jit import kernel_jit_inline
from simcell.policies.evaluate import (
    V_EXHAUST,
    V_FIRST,
    V_GREY,
    V_HARM,
    V_HP,
    V_RES,
    V_SKIP_LAUREATES,
    V_STAGE_GOLGI,
    WS_WORTH,
    acquire_value,
    best_er_value,
    best_golgi_value,
    card_gain,
    card_need,
    free_budding_count,
    keep_value,
    marker_value,
    plus,
    resource_delta,
    spot_net,
)
from simcell.vocabulary import (
    ACT_RETURN,
    ADDITIONAL_RESOURCE,
    ATP,
    CARB,
    GOLGI_CARB,
    LA_ENZYME,
    LA_EXOCYTOSIS,
    LIPID,
    MRNA,
    ORG_GOLGI,
    ORG_ROUGH,
    PROTEIN,
    SOURCE_RADIX,
)


# far below any difference of worth the evaluator makes, far above float64's rounding of them
RETURN_TIE = 1e-9
# the value of a Laureates placement to a bot that skips the Laureates (skip_laureates): below
# every other action's, so that it is taken only when nothing else is legal
SKIPPED = -1e6


class EvalContext(NamedTuple):
    """What one decision's values read (heuristic.evaluator_context fills it once a decision)."""

    seat_view: tuple  # the deciding seat's View (policies/view.py)
    params: np.ndarray  # float64[registry.HEURISTIC_PARAMS] the seat's parameters
    ws: np.ndarray  # float64[evaluate.WS_*, card id] the card workspace
    worth: tuple  # five floats: base worth of one unit of each resource
    gap: tuple  # five floats: units the cards worked toward (greedy: the hand; planner: its
    # targets) still need beyond the stock
    focus_need: float  # extra worth of a needed unit (need x the planner's target focus)
    interest: int  # bit set of the cards of interest (greedy: the hand; planner: its targets and the hand)
    contest: float  # the planner's bonus for the last free Golgi spot or budding location
    fixed: np.ndarray  # float64[vocabulary.FIXED_ROWS] the values fixed_values worked out
    plan: bool  # the planner's decision (it pursues targets; greedy, its whole hand)


@kernel_jit_inline
def grey_first(ev):
    """What placing a grey flask instead of an own flask adds (the grey_first tie-break)."""
    return ev.params[V_GREY]


@kernel_jit_inline
def fixed_value(ev, row):
    """The value fixed_values worked out for row `row` (GameTables.loc_first_collect,
    exhaust_row)."""
    return ev.fixed[row]


@kernel_jit_inline
def settle(ev, value, d):
    """value plus the worth of the five stock changes d, every resource, changed or not (an
    unchanged one adds exactly 0.0), in resource order. Changes to personal stock are gathered
    in d (a tuple of five, so in registers: as an array, each store made the compiler reload the
    parameters, which it cannot tell apart from it) and valued once here; resources that turn
    into a completion or into vesicle cargo count at their base worth only."""
    return settle_gap(ev, ev.gap, value, d)


@kernel_jit_inline
def settle_gap(ev, gap, value, d):
    """settle against the gaps `gap` instead of the decision's."""
    worth = ev.worth
    focus_need = ev.focus_need
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
    v = ev.seat_view
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
    exhausted = 0.0 - ev.params[V_EXHAUST]
    for k in range(gt.n_fixed_pad):  # no call and no branch: vectorised
        d = (gt.fixed_net[0, k], gt.fixed_net[1, k], gt.fixed_net[2, k],
             gt.fixed_net[3, k], gt.fixed_net[4, k])
        out[k] = settle(ev, exhausted if k >= gt.exhaust_row else 0.0, d)


@kernel_jit_inline
def translate_value(ev, gt, loc, k):
    """Translating k mRNA into Protein at the Free Ribosomes."""
    v = ev.seat_view
    d = location_bonus(v, loc)
    d = plus(plus(d, MRNA, np.float64(-k)), PROTEIN, np.float64(k + v.yield_bonus[v.seat, loc]))
    # the mRNA translated was gathered for this Protein: it is weighed against the mRNA the
    # cards need as mRNA (need_to_gap adds the Protein still to make to the mRNA gap)
    gap = ev.gap
    mrna_gap = gap[MRNA] - max(gap[PROTEIN], 0.0)
    return settle_gap(ev, (mrna_gap, gap[1], gap[2], gap[3], gap[4]), 0.0, d)


@kernel_jit_inline
def card_area_value(ev, gt, loc, slot):
    """Buying the card in a Card Area slot."""
    v, params, ws, interest = ev.seat_view, ev.params, ev.ws, ev.interest
    d = location_bonus(v, loc)
    card = max(v.slot_card[slot], 0)  # an empty slot (-1, not listed) as card 0
    d = plus(d, ATP, -np.float64(slot_price(gt, slot, v.discount)))
    target = (interest >> np.int64(card)) & 1
    weight = 1.0 if target else 0.6
    value = 0.0
    value += acquire_value(v, gt, params, ws, card, weight)
    if gt.card_type[card] == ADDITIONAL_RESOURCE:
        d = card_gain(gt, card, 1.0, d)
    # what is paid is weighed against what the cards worked toward need (the gap) with the
    # card's own needs among them, target or not (a target's are in the gap already): a card
    # needing more of what the purchase costs is dearer to buy, and a card made better, and so
    # chosen as a target, never looks dearer to buy; a gain (a location bonus) is weighed
    # without them, so a card needing more does not make the gain worth more
    own = card_need(v, gt, ws, card)
    gap = ev.gap
    return settle_gap(ev, (own_gap(gap[0], own[0], target, d[0]), own_gap(gap[1], own[1], target, d[1]),
                           own_gap(gap[2], own[2], target, d[2]), own_gap(gap[3], own[3], target, d[3]),
                           own_gap(gap[4], own[4], target, d[4])), value, d)


@kernel_jit_inline
def own_gap(gap, own, target, d):
    """A resource's gap for buying a card with `own` needs of it: the gap without the card's
    needs, plus them where the purchase pays (d < 0). Whole numbers: exact."""
    base = gap - own if target else gap
    return base + own if d < 0.0 else base


@kernel_jit_inline
def completion_value(ev, gt, loc, card, action):
    """Completing `card` at an Enzyme, Detoxification or Exocytosis location (`action`)."""
    v, params, ws = ev.seat_view, ev.params, ev.ws
    d = location_bonus(v, loc)
    value = 0.0
    value -= params[V_RES + ATP] * completion_atp(gt, v.cost_discount, v.seat, card)
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
    v, params, ws, interest, contest = ev.seat_view, ev.params, ev.ws, ev.interest, ev.contest
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
    v, params, ws, interest, contest = ev.seat_view, ev.params, ev.ws, ev.interest, ev.contest
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
    v, params = ev.seat_view, ev.params
    d = location_bonus(v, loc)
    value = 0.0
    if not gt.rotate and v.marker != v.seat:
        value += params[V_FIRST]
    if choice == 0:
        d = plus(d, ATP, 1.0)
    else:
        value += marker_value(v, gt, params, choice - 1)
    if params[V_SKIP_LAUREATES] > 0.0:
        return SKIPPED
    return settle(ev, value, d)


@kernel_jit_inline
def exhaust_value(ev, r):
    """Exhausting a flask for one unit of resource r."""
    return settle(ev, 0.0 - ev.params[V_EXHAUST], plus((0.0, 0.0, 0.0, 0.0, 0.0), r, 1.0))


@kernel_jit_inline
def setup_value(ev, gt, code):
    """A setup decision's value: returning a card (ACT_RETURN) or taking a starting combination
    (ACT_COMBO)."""
    v, params, ws = ev.seat_view, ev.params, ev.ws
    d = (0.0, 0.0, 0.0, 0.0, 0.0)
    value = 0.0
    p1 = code_p1(code)
    if code_kind(code) == ACT_RETURN:
        value -= keep_value(v, gt, params, ws, p1, ev.plan)
        # between dealt cards worth the same, hand back the one dearer for its HP: so of two
        # cards where one is at least as good in every figure, the better is never returned
        value += RETURN_TIE * (gt.card_atp[p1] + gt.card_protein[p1] + gt.card_carb[p1]
                               + gt.card_lipid[p1] - gt.card_hp[p1] - gt.card_bonus[p1])
        if gt.card_type[p1] == ADDITIONAL_RESOURCE:
            d = card_gain(gt, p1, -1.0, d)
    else:
        d = plus(plus(d, gt.combos[p1, 0], 1.0), gt.combos[p1, 1], 1.0)
    return settle(ev, value, d)
