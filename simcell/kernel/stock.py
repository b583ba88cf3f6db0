"""Moving resources, cargo and Health Points, with their flow bookings, the limited supply and
the trace writer: the small pieces every rules function uses."""

from __future__ import annotations

from simcell.kernel.jit import kernel_jit_inline

from simcell.vocabulary import (
    CARB,
    GOLGI_CARB,
    LIPID,
    ORG_ROUGH,
    PROTEIN,
    SRC_EVENT,
    TRACE_DECISION,
    TRACE_SHUFFLE,
)
from simcell.kernel.state import G_TRACE_LEN, G_TRACE_ON, G_TRACE_OVERFLOW, NO_GOLGI



# -- personal stock ---------------------------------------------------------------------------
@kernel_jit_inline
def take_from_supply(st, gt, r, n):
    """n of resource r leave the supply, cut to what is left when the supply is limited (the
    missing part is a shortfall); returns the amount taken."""
    if n <= 0:
        return 0
    a = n
    if gt.limited:
        left = st.supply[r]
        if left < n:
            a = left if left > 0 else 0
            st.shortfall[r] += n - a
    st.supply[r] -= a
    return a


@kernel_jit_inline
def gain(st, gt, seat, r, n, row):
    """Seat gains n of resource r from the supply (cut by a limited supply); returns the
    amount gained."""
    a = take_from_supply(st, gt, r, n)
    st.stock[seat, r] += a
    st.flows[seat, row, r] += a
    return a


@kernel_jit_inline
def spend(st, seat, r, n, row):
    """Seat pays n of resource r into the supply."""
    if n <= 0:
        return
    st.stock[seat, r] -= n
    st.supply[r] += n
    st.flows[seat, row, r] += n


# -- cargo --------------------------------------------------------------------------------------
@kernel_jit_inline
def load_from_supply(st, gt, seat, r, n):
    """Cargo from the supply onto a vesicle of `seat` (cut by a limited supply)."""
    a = take_from_supply(st, gt, r, n)
    st.flows[seat, gt.fr_cargo_loaded, r] += a
    return a


@kernel_jit_inline
def load_from_stock(st, gt, seat, r, n):
    """Seat puts n of its own resource r on a vesicle."""
    st.stock[seat, r] -= n
    st.flows[seat, gt.fr_loaded, r] += n
    st.flows[seat, gt.fr_cargo_loaded, r] += n


@kernel_jit_inline
def vesicle_cargo_to_supply(st, gt, org, idx, row):
    """All cargo of the vesicle at (org, idx) returns to the supply, booked on its owner's
    flow row `row` (cargo_returned or cargo_lost)."""
    owner = st.ves_owner[org, idx]
    er = PROTEIN if st.ves_origin[org, idx] == ORG_ROUGH else LIPID
    load = st.ves_load[org, idx]
    st.supply[er] += load
    st.flows[owner, row, er] += load
    golgi = st.ves_golgi[org, idx]
    if golgi != NO_GOLGI:
        r = golgi_resource(golgi)
        st.supply[r] += 1
        st.flows[owner, row, r] += 1


@kernel_jit_inline
def golgi_resource(golgi):
    """Resource index of a Golgi resource code (GOLGI_CARB -> CARB, GOLGI_LIPID -> LIPID)."""
    return CARB if golgi == GOLGI_CARB else LIPID


@kernel_jit_inline
def clear_vesicle(st, org, idx):
    st.ves_owner[org, idx] = -1
    st.ves_origin[org, idx] = 0
    st.ves_load[org, idx] = 0
    st.ves_golgi[org, idx] = NO_GOLGI


# -- health points ----------------------------------------------------------------------------
@kernel_jit_inline
def total_hp(st, seat):
    t = 0
    for s in range(st.hp.shape[1]):
        t += st.hp[seat, s]
    return t


@kernel_jit_inline
def add_event_hp(st, seat, n):
    """An event's HP change; HP never goes below 0 and the source records what was applied."""
    if n < 0:
        t = total_hp(st, seat)
        if -n > t:
            n = -t
    st.hp[seat, SRC_EVENT] += n


# -- measurements -------------------------------------------------------------------------------
@kernel_jit_inline
def measure_peak(st, gt):
    """Update peak use: every player's stock plus all cargo, by resource. Every token that is
    not in the supply is in a stock or on a vesicle, and the supply count is kept in both modes
    (it may go negative when unlimited), so use = component count - supply."""
    for r in range(5):
        use = gt.supply[r] - st.supply[r]
        if use > st.peak[r]:
            st.peak[r] = use


# -- trace --------------------------------------------------------------------------------------
@kernel_jit_inline
def trace_word(st, w):
    if st.g[G_TRACE_ON] == 0:
        return
    n = st.g[G_TRACE_LEN]
    if n >= st.trace.shape[0]:
        st.g[G_TRACE_OVERFLOW] = 1
        return
    st.trace[n] = w
    st.g[G_TRACE_LEN] = n + 1


@kernel_jit_inline
def trace_shuffle(st, purpose, index, ids, n):
    """A chance outcome: the ids in their new order (first = top)."""
    if st.g[G_TRACE_ON] == 0:
        return
    trace_word(st, TRACE_SHUFFLE)
    trace_word(st, purpose)
    trace_word(st, index)
    trace_word(st, n)
    for i in range(n):
        trace_word(st, ids[i])


@kernel_jit_inline
def trace_decision(st, seat, automatic, legal, n_legal, chosen):
    """A decision: the legal codes (legal[:n_legal], ascending) and the chosen one."""
    if st.g[G_TRACE_ON] == 0:
        return
    trace_word(st, TRACE_DECISION)
    trace_word(st, seat)
    trace_word(st, 1 if automatic else 0)
    trace_word(st, n_legal)
    for i in range(n_legal):
        trace_word(st, legal[i])
    trace_word(st, chosen)

