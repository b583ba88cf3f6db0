"""Resolving a Phase 1 action (docs/rules.md §2-3, §10): pass, exhaust, and a placement at each kind
of location, in the order of docs/rules.md §10 (costs, displacement, gain, yield bonus, location
bonus, Additional Resource gain)."""

from __future__ import annotations

import numpy as np
from simcell.kernel.jit import kernel_jit, kernel_jit_inline

from simcell.kernel.codes import code_flask, code_kind, code_p1, code_p2, code_p3, code_target
from simcell.vocabulary import (
    ACT_EXHAUST,
    ACT_PASS,
    ADDITIONAL_RESOURCE,
    ATP,
    CARB,
    FLASK_GREY,
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
    SOURCE_RADIX,
    SRC_GOAL_MARKER,
)
from simcell.kernel.costs import completion_atp, slot_price
from simcell.kernel.legal import free_budding, free_spot
from simcell.kernel.rounds import advance_turn
from simcell.kernel.scoring import first_marker_worth
from simcell.kernel.setup import resolve_additional_resource
from simcell.kernel.state import (
    G_BLOCK,
    G_DISCOUNT,
    G_GREY_LEFT,
    G_LAUREATES_CIRCLE,
    G_MARKER,
    G_PICKS,
    G_ROUND,
    G_TO_MOVE,
)
from simcell.kernel.stock import (
    clear_vesicle,
    gain,
    golgi_resource,
    load_from_stock,
    load_from_supply,
    measure_peak,
    spend,
    vesicle_cargo_to_supply,
)


@kernel_jit_inline
def apply_phase_one(st, gt, code):
    """Apply a legal Phase 1 action of the player to move, then pass the turn."""
    seat = st.g[G_TO_MOVE]
    kind = code_kind(code)
    if kind == ACT_PASS:
        st.out[seat] = 1
    elif kind == ACT_EXHAUST:
        st.own_left[seat] -= 1
        st.exhausted[seat] += 1
        gain(st, gt, seat, code_p1(code), 1, gt.fr_exhaust)
    else:
        place(st, gt, seat, code_flask(code), code_target(code), code_p1(code), code_p2(code),
              code_p3(code))
    measure_peak(st, gt)
    advance_turn(st, gt)


@kernel_jit
def complete_card(st, gt, seat, card):
    """A card leaves the hand completed; its HP count under its type's source."""
    bit = np.int64(1) << np.int64(card)
    st.hand[seat] &= ~bit
    st.completed[seat] |= bit
    t = gt.card_type[card]
    st.completed_by_type[seat, t] += 1
    st.hp[seat, t] += gt.card_hp[card]
    st.tallies.completed[st.g[G_BLOCK], card, st.g[G_ROUND]] += 1


@kernel_jit
def displace(st, gt, org, idx):
    """Remove a rival's vesicle: cargo to the supply, disk back to its owner's reserve."""
    owner = st.ves_owner[org, idx]
    vesicle_cargo_to_supply(st, gt, org, idx, gt.fr_cargo_lost)
    clear_vesicle(st, org, idx)
    st.disks_free[owner] += 1
    st.ves_lost[owner] += 1


@kernel_jit_inline
def place(st, gt, seat, flask, loc, p1, p2, p3):
    """Place a flask at location `loc` with the action's parameters and resolve it."""
    if flask == FLASK_GREY:
        st.g[G_GREY_LEFT] -= 1
        st.grey_round[seat] += 1
        st.grey_total[seat] += 1
    else:
        st.own_left[seat] -= 1
    st.placements[seat, loc] += 1
    action = gt.loc_action[loc]
    if action == LA_COLLECT or action == LA_CARD_AREA:
        spot = gt.loc_first_spot[loc] + p1
    else:
        spot = free_spot(st, gt, loc)
    st.spot_occ[spot] = seat
    b = st.g[G_BLOCK]
    r = st.g[G_ROUND]
    st.tallies.occupancy[b, spot, r - 1, st.g[G_PICKS]] += 1
    st.g[G_PICKS] += 1
    additional = -1  # an Additional Resource card bought: its gain comes last

    if action == LA_COLLECT:
        for r in range(5):
            spend(st, seat, r, gt.spot_cost[spot, r], gt.fr_spend_spot + loc)
        for r in range(5):
            gain(st, gt, seat, r, gt.spot_gain[spot, r], gt.fr_spot + loc)
        yb = st.yield_bonus[seat, loc]
        if yb > 0:
            for r in range(5):
                if gt.spot_gain[spot, r] > 0:
                    gain(st, gt, seat, r, yb, gt.fr_yield_bonus)
    elif action == LA_TRANSLATE:
        spend(st, seat, MRNA, p1, gt.fr_spend_spot + loc)
        gain(st, gt, seat, PROTEIN, p1, gt.fr_spot + loc)
        gain(st, gt, seat, PROTEIN, st.yield_bonus[seat, loc], gt.fr_yield_bonus)
    elif action == LA_CARD_AREA:
        price = slot_price(gt, p1, st.g[G_DISCOUNT])
        spend(st, seat, ATP, price, gt.fr_card_price)
        card = st.slot_card[p1]
        st.tallies.bought[b, card, p1, price] += 1
        st.tallies.acquired[b, card, r] += 1
        st.slot_card[p1] = -1
        bit = np.int64(1) << np.int64(card)
        st.bought[seat] |= bit
        st.hand[seat] |= bit
        if gt.card_type[card] == ADDITIONAL_RESOURCE:
            additional = card
    elif action == LA_ENZYME:
        row = gt.fr_completion + gt.card_type[p1]
        spend(st, seat, ATP, completion_atp(gt, st.discount, seat, p1), row)
        spend(st, seat, PROTEIN, gt.card_protein[p1], row)
        spend(st, seat, CARB, gt.card_carb[p1], row)
        complete_card(st, gt, seat, p1)
    elif action == LA_PROTEIN_SYNTHESIS or action == LA_STEROID_SYNTHESIS:
        rough = action == LA_PROTEIN_SYNTHESIS
        org = ORG_ROUGH if rough else ORG_SMOOTH
        if rough:
            spend(st, seat, MRNA, p1, gt.fr_spend_spot + loc)
        if p2 > 0:
            displace(st, gt, org, p2 - 1)
            idx = p2 - 1
        else:
            idx = free_budding(st, gt, org)
        st.disks_free[seat] -= 1
        st.ves_owner[org, idx] = seat
        st.ves_origin[org, idx] = org
        if rough:
            load = load_from_supply(st, gt, seat, PROTEIN, p1)
            load += load_from_supply(st, gt, seat, PROTEIN, st.yield_bonus[seat, loc])
        else:
            load_from_stock(st, gt, seat, LIPID, p1)
            load = p1 + load_from_supply(st, gt, seat, LIPID, st.yield_bonus[seat, loc])
        st.ves_load[org, idx] = load
    elif action == LA_GOLGI:
        src_org = p1 // SOURCE_RADIX
        src_idx = p1 % SOURCE_RADIX
        load_from_stock(st, gt, seat, golgi_resource(p2), 1)
        if p3 > 0:
            displace(st, gt, ORG_GOLGI, p3 - 1)
            gidx = p3 - 1
        else:
            gidx = free_budding(st, gt, ORG_GOLGI)
        st.ves_owner[ORG_GOLGI, gidx] = seat
        st.ves_origin[ORG_GOLGI, gidx] = st.ves_origin[src_org, src_idx]
        st.ves_load[ORG_GOLGI, gidx] = st.ves_load[src_org, src_idx]
        st.ves_golgi[ORG_GOLGI, gidx] = p2
        clear_vesicle(st, src_org, src_idx)
    elif action == LA_EXOCYTOSIS:
        card = p2
        spend(st, seat, ATP, completion_atp(gt, st.discount, seat, card), gt.fr_completion + gt.card_type[card])
        vesicle_cargo_to_supply(st, gt, ORG_GOLGI, p1, gt.fr_cargo_returned)
        clear_vesicle(st, ORG_GOLGI, p1)
        st.disks_free[seat] += 1
        complete_card(st, gt, seat, card)
    elif action == LA_DETOX:
        spend(st, seat, ATP, completion_atp(gt, st.discount, seat, p1), gt.fr_completion + gt.card_type[p1])
        complete_card(st, gt, seat, p1)
    elif action == LA_LAUREATES:
        st.laureates[seat] += 1
        if st.g[G_MARKER] == seat:
            st.laureates_holder[seat] += 1
        if not gt.rotate:
            st.g[G_MARKER] = seat
        if gt.laureates_once_each:  # the circle starts again once every seat has visited
            circle = st.g[G_LAUREATES_CIRCLE] | (np.int64(1) << np.int64(seat))
            st.g[G_LAUREATES_CIRCLE] = 0 if circle == (np.int64(1) << np.int64(gt.players)) - 1 else circle
        if p1 == 0:
            gain(st, gt, seat, ATP, 1, gt.fr_spot + loc)
        else:
            gi = p1 - 1
            first_hp = first_marker_worth(gt, st.goal_nmark)  # before this marker counts
            st.goal_mark[gi, seat] = 1
            st.goal_nmark[gi] += 1
            st.markers_left[seat] -= 1
            st.markers_placed[seat] += 1
            st.goal_round[gi, seat] = st.g[G_ROUND]
            st.goal_order[gi, seat] = st.goal_nmark[gi]
            if st.goal_nmark[gi] == 1:
                st.hp[seat, SRC_GOAL_MARKER] += first_hp

    # the event location bonus: the first placement at the location claims it
    if st.bonus_res[loc] >= 0:
        gain(st, gt, seat, st.bonus_res[loc], st.bonus_n[loc], gt.fr_location_bonus)
        st.bonus_res[loc] = -1
        st.bonus_n[loc] = 0
    if additional >= 0:
        resolve_additional_resource(st, gt, seat, additional)
