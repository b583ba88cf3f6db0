"""Legal actions of the player to move in Phase 1 (docs/rules.md §2-3, docs/kernel-contract.md),
written in ascending code order (the loops run in code order, so no sort) to the workspace's
list (phase_one_legal) or, in the turn loop, to its stack vector (phase_one_listing's `legal`:
no State array is stored to while listing, so the rules' loads from the State stay valid).

`phase_one_listing` can also value each action where it lists it, for the heuristic policies:
with `valued`, vals[i] (the turn loop's values vector) is the evaluator's value of legal[i]
(policies/values.py, the one door between the rules and the bots; `ev` is the decision's
EvalContext). Each listing site knows its placement's kind, so it calls that kind's value
function alone, instead of decoding and dispatching every listed code again. The rules do not
depend on it: without `valued` nothing is valued and `ev` is not read. The rules
alone (the random loop, the search's legal step, tests) pass `ev = None`: every valuing
branch tests `valued and ev is not None`, which numba prunes before typing when `ev` is None
(it prunes on a None argument, not on a constant False), so they compile without the
evaluator."""

from __future__ import annotations

import numpy as np
from simcell.kernel.jit import kernel_jit_inline

from simcell.kernel.bits import lowest_bit
from simcell.kernel.costs import completion_atp, slot_price
from simcell.kernel.codes import code_exhaust, code_pass, code_place
from simcell.vocabulary import (
    ATP,
    CARB,
    DETOX,
    ENZYME,
    FLASK_GREY,
    FLASK_OWN,
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
    ORG_GOLGI,
    ORG_ROUGH,
    ORG_SMOOTH,
    PROTEIN,
    PROTEIN_HORMONE,
    PROTEIN_RECEPTOR,
    SHIFT_FLASK,
    SOURCE_RADIX,
    STEROID_HORMONE,
    STEROID_RECEPTOR,
)
from simcell.kernel.stock import golgi_resource
from simcell.policies.values import (
    card_area_value,
    collect_value,
    completion_value,
    er_value,
    fixed_value,
    golgi_value,
    grey_first,
    laureates_value,
    translate_value,
)
from simcell.kernel.state import (
    G_DISCOUNT,
    G_GREY_LEFT,
    G_LAUREATES_CIRCLE,
    G_ROUND,
    G_ROUND_HOLDER,
    G_TO_MOVE,
)

GREY_BIT = np.int64(FLASK_GREY) << np.int64(SHIFT_FLASK)


@kernel_jit_inline
def free_spot(st, gt, loc):
    """Lowest free spot of a location, or -1."""
    first = gt.loc_first_spot[loc]
    for j in range(gt.loc_n_spots[loc]):
        if st.spot_occ[first + j] < 0:
            return first + j
    return -1


@kernel_jit_inline
def free_budding(st, gt, org):
    """Lowest free budding location of an organelle, or -1."""
    for i in range(gt.budding[org]):
        if st.ves_owner[org, i] < 0:
            return i
    return -1


@kernel_jit_inline
def vesicle_fits(st, gt, seat, gidx, card):
    """Can the seat's vesicle at Golgi index gidx complete `card` (type, origin, load, Golgi
    resource, ATP)? The Golgi resource never counts toward the ER-load requirement."""
    t = gt.card_type[card]
    origin = st.ves_origin[ORG_GOLGI, gidx]
    if t == PROTEIN_HORMONE or t == PROTEIN_RECEPTOR or t == STEROID_RECEPTOR:
        if origin != ORG_ROUGH or st.ves_load[ORG_GOLGI, gidx] < gt.card_protein[card]:
            return False
    elif t == STEROID_HORMONE:
        if origin != ORG_SMOOTH or st.ves_load[ORG_GOLGI, gidx] < gt.card_lipid[card]:
            return False
    else:
        return False
    if st.ves_golgi[ORG_GOLGI, gidx] != gt.card_golgi[card]:
        return False
    return completion_atp(gt, st.discount, seat, card) <= st.stock[seat, ATP]


@kernel_jit_inline
def _add(legal, n, code):
    legal[n] = code
    return n + 1


@kernel_jit_inline
def _add_if(legal, n, code, ok):
    """Append `code` if ok, without a branch: the code is written at n either way and n moves
    on only if ok (the workspace's list and the turn loop's vector have slack past GameTables.max_legal's
    bound, config/arrays.py).
    Which spots are free changes every turn, so a branch here was mispredicted often."""
    legal[n] = code
    return n + np.int64(ok)


@kernel_jit_inline
def victim_set(st, gt, seat, org):
    """The victim fields a placement taking a budding location of `org` may have, as a bit set:
    {0} with a free budding location, else 1 + the index of each vesicle of another seat."""
    if free_budding(st, gt, org) >= 0:
        return np.int64(1)
    victims = np.int64(0)
    for v in range(gt.budding[org]):
        if st.ves_owner[org, v] != seat:
            victims |= np.int64(1) << np.int64(v + 1)
    return victims


@kernel_jit_inline
def placements(st, gt, seat, n, ev, valued, vals, legal):
    """Append every legal own-flask placement, location by location (valued: with their
    values, module docstring). Each kind of placement is listed at one place in the
    code, so the valued listing inlines each value function once."""
    stock = st.stock
    hand = st.hand[seat]
    for loc in range(gt.n_loc):
        action = gt.loc_action[loc]
        first = gt.loc_first_spot[loc]
        if action == LA_COLLECT:
            # without a yield bonus or a location bonus here, the spots' values are the ones
            # worked out with the exhausts' for every collect spot at once (values.fixed_values)
            plain = valued and st.yield_bonus[seat, loc] == 0 and st.bonus_res[loc] < 0
            k0 = gt.loc_first_collect[loc]
            for j in range(gt.loc_n_spots[loc]):
                spot = first + j
                ok = st.spot_occ[spot] < 0
                if gt.spot_costly[spot]:  # most spots cost nothing: skip the five checks
                    for r in range(5):
                        ok &= stock[seat, r] >= gt.spot_cost[spot, r]
                # valued whether listed or not, without a branch on `ok` (mispredicted as
                # often as _add_if's would be): a spot not listed has
                # its value written at n, as its code is, and what is listed next overwrites
                # both (nothing reads past the count)
                if valued and ev is not None:
                    if plain:
                        vals[n] = fixed_value(ev, k0 + j)
                    else:
                        vals[n] = collect_value(ev, gt, loc, j)
                n = _add_if(legal, n, code_place(FLASK_OWN, loc, j, 0, 0), ok)
            continue
        if action == LA_CARD_AREA:
            for slot in range(gt.loc_n_spots[loc]):
                ok = (st.spot_occ[first + slot] < 0) & (st.slot_card[slot] >= 0)
                ok &= slot_price(gt, slot, st.g[G_DISCOUNT]) <= stock[seat, ATP]
                # valued whether listed or not, as the collect spots are (the branch on `ok`
                # was mispredicted as often): prepare_cards fills the card workspace for every
                # Card Area card, and an empty slot is valued as card 0's (never read)
                if valued and ev is not None:
                    vals[n] = card_area_value(ev, gt, loc, slot)
                n = _add_if(legal, n, code_place(FLASK_OWN, loc, slot, 0, 0), ok)
            continue
        # every other location's spots fill lowest first (actions.place, free_spot) and free
        # only all together at the start of a round: a free spot exists iff the last is free
        n_spots = gt.loc_n_spots[loc]
        if n_spots == 0 or st.spot_occ[first + n_spots - 1] >= 0:
            continue
        if action == LA_TRANSLATE:
            kmax = min(stock[seat, MRNA], gt.max_batch)
            if gt.limited:
                kmax = min(kmax, st.supply[PROTEIN])
            for k in range(1, kmax + 1):
                if valued and ev is not None:
                    vals[n] = translate_value(ev, gt, loc, k)
                n = _add(legal, n, code_place(FLASK_OWN, loc, k, 0, 0))
        elif action == LA_ENZYME or action == LA_DETOX:
            enzyme = action == LA_ENZYME
            cards = hand & gt.type_mask[ENZYME if enzyme else DETOX]
            while cards != 0:
                c = lowest_bit(cards)
                cards &= cards - np.int64(1)
                ok = completion_atp(gt, st.discount, seat, c) <= stock[seat, ATP]
                if enzyme:
                    ok = (ok and gt.card_protein[c] <= stock[seat, PROTEIN]
                          and gt.card_carb[c] <= stock[seat, CARB])
                if ok:
                    if valued and ev is not None:
                        vals[n] = completion_value(ev, gt, loc, c, action)
                    n = _add(legal, n, code_place(FLASK_OWN, loc, c, 0, 0))
        elif action == LA_PROTEIN_SYNTHESIS or action == LA_STEROID_SYNTHESIS:
            # k = 1..kmax, with a victim only when the ER is full
            rough = action == LA_PROTEIN_SYNTHESIS
            org = ORG_ROUGH if rough else ORG_SMOOTH
            kmax = min(stock[seat, MRNA if rough else LIPID], gt.max_batch)
            if rough and gt.limited:
                kmax = min(kmax, st.supply[PROTEIN])
            if kmax < 1 or st.disks_free[seat] < 1:
                continue
            victims = victim_set(st, gt, seat, org)
            for k in range(1, kmax + 1):
                left = victims
                while left != 0:
                    victim = lowest_bit(left)
                    left &= left - np.int64(1)
                    if valued and ev is not None:
                        vals[n] = er_value(ev, gt, loc, org, k, victim)
                    n = _add(legal, n, code_place(FLASK_OWN, loc, k, victim, 0))
        elif action == LA_GOLGI:
            victims = victim_set(st, gt, seat, ORG_GOLGI)
            for org in range(2):
                for idx in range(gt.budding[org]):
                    if st.ves_owner[org, idx] != seat:
                        continue
                    src = org * SOURCE_RADIX + idx
                    for res in range(2):
                        if stock[seat, golgi_resource(res)] < 1:
                            continue
                        left = victims
                        while left != 0:
                            victim = lowest_bit(left)
                            left &= left - np.int64(1)
                            if valued and ev is not None:
                                vals[n] = golgi_value(ev, gt, loc, src, res, victim)
                            n = _add(legal, n, code_place(FLASK_OWN, loc, src, res, victim))
        elif action == LA_EXOCYTOSIS:
            vesicle_cards = hand & gt.vesicle_type_mask
            for gidx in range(gt.budding[ORG_GOLGI] if vesicle_cards != 0 else 0):
                if st.ves_owner[ORG_GOLGI, gidx] != seat:
                    continue
                cards = vesicle_cards
                while cards != 0:
                    c = lowest_bit(cards)
                    cards &= cards - np.int64(1)
                    if vesicle_fits(st, gt, seat, gidx, c):
                        if valued and ev is not None:
                            vals[n] = completion_value(ev, gt, loc, c,
                                                                   LA_EXOCYTOSIS)
                        n = _add(legal, n, code_place(FLASK_OWN, loc, gidx, c, 0))
        elif action == LA_LAUREATES:
            if not gt.holder_may_take and seat == st.g[G_ROUND_HOLDER]:
                continue
            if gt.laureates_once_each and (st.g[G_LAUREATES_CIRCLE] >> seat) & 1:
                continue  # placed there already in this circle of visits
            # choice 0: the ATP; 1 + gi: a goal marker on goal gi
            n_goals = gt.goals_revealed if st.markers_left[seat] > 0 else 0
            if st.g[G_ROUND] < gt.goals_open_round or gt.laureates_marker_only:
                n_goals = 0  # the goal cards are closed (until then, or for the game)
            for choice in range(1 + n_goals):
                gi = choice - 1
                if choice == 0 or (st.goal_nmark[gi] < gt.max_markers_per_goal
                                   and st.goal_mark[gi, seat] == 0):
                    if valued and ev is not None:
                        vals[n] = laureates_value(ev, gt, loc, choice)
                    n = _add(legal, n, code_place(FLASK_OWN, loc, choice, 0, 0))
    return n


@kernel_jit_inline
def grey_available(st, gt, seat):
    """May the seat place a grey flask (one left in the area, and its per-round limit not
    reached)?"""
    return st.g[G_GREY_LEFT] > 0 and st.grey_round[seat] < gt.grey_per_player


@kernel_jit_inline
def pass_forced(st, gt, seat):
    """Is a pass the seat's one legal Phase 1 action (no own flask left and no grey one)?"""
    return st.own_left[seat] == 0 and not grey_available(st, gt, seat)


@kernel_jit_inline
def phase_one_legal(st, gt):
    """Every legal action of the player to move in Phase 1; returns how many."""
    return phase_one_listing(st, gt, None, False, st.workspace.values, st.workspace.legal)


@kernel_jit_inline
def phase_one_listing(st, gt, ev, valued, vals, legal):
    """phase_one_legal into `legal`, and with `valued` each action's value in vals (ev: the
    decision's EvalContext, policies/values.py; a pass is worth 0)."""
    seat = st.g[G_TO_MOVE]
    n = 0
    grey = grey_available(st, gt, seat)
    grey_bonus = 0.0
    if valued and ev is not None:
        grey_bonus = grey_first(ev)
    own = st.own_left[seat] > 0
    if own:
        if valued and ev is not None:
            # exhaust_value's, worked out with the collect spots' (values.fixed_values)
            vals[0] = fixed_value(ev, gt.exhaust_row)
            vals[1] = fixed_value(ev, gt.exhaust_row + 1)
            vals[2] = fixed_value(ev, gt.exhaust_row + 2)
        n = _add(legal, n, code_exhaust(MRNA))
        n = _add(legal, n, code_exhaust(LIPID))
        n = _add(legal, n, code_exhaust(ATP))
    else:  # without own flasks: pass, or a grey flask's placement
        if valued and ev is not None:
            vals[0] = 0.0
        n = _add(legal, n, code_pass())
        if not grey:
            return n
    start = n
    # one call site (inlined once): the own-flask placements; a grey flask's placement is the
    # placing player's in every respect, so the same options with the flask field set (codes
    # stay ascending: the flask field outranks the target), each worth its own-flask twin plus
    # grey_first: copies after the own-flask ones, or in their place without own flasks
    n = placements(st, gt, seat, n, ev, valued, vals, legal)
    if own and grey:
        end = n
        for i in range(start, end):
            legal[n] = legal[i] | GREY_BIT
            n += 1
        if valued and ev is not None:
            shift = end - start
            for i in range(end, n):  # no call and no carried value: vectorised
                vals[i] = vals[i - shift] + grey_bonus
    elif not own:
        for i in range(start, n):
            legal[i] |= GREY_BIT
        if valued and ev is not None:
            for i in range(start, n):
                vals[i] += grey_bonus
    return n
