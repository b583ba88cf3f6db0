"""Moving resources: every gain, payment and cargo movement goes through here, so each one is
booked on its flow row (vocabulary.flow_layout, kernel-contract.md) and cut by a limited supply
(docs/rules.md §10) in one place. Also the peak-use measurement."""

from __future__ import annotations

from simcell.vocabulary import N_RESOURCES
from simcell.referee.state import GameState


def gain(state: GameState, seat: int, resource: int, amount: int, row: int) -> int:
    """`seat` gains `amount` of `resource` into personal stock, booked on `row`.

    With a limited supply it takes what is left and the missing part is a shortfall.
    Returns what was actually gained.
    """
    if amount <= 0:
        return 0
    got = take_from_supply(state, resource, amount)
    player = state.seats[seat]
    player.stock[resource] += got
    player.flows[row][resource] += got
    return got


def take_from_supply(state: GameState, resource: int, amount: int) -> int:
    """How much of `amount` the supply gives (all of it when unlimited); books the shortfall."""
    if amount <= 0:
        return 0
    if not state.game.rules.supply_limited:
        return amount
    got = min(amount, max(state.supply_left(resource), 0))
    state.supply_shortfall[resource] += amount - got
    return got


def spend(state: GameState, seat: int, resource: int, amount: int, row: int) -> None:
    """`seat` pays `amount` of `resource` from personal stock, booked on `row`."""
    if amount <= 0:
        return
    player = state.seats[seat]
    if player.stock[resource] < amount:
        raise AssertionError(
            f"seat {seat} pays {amount} of resource {resource} holding {player.stock[resource]}"
        )
    player.stock[resource] -= amount
    player.flows[row][resource] += amount


def book_cargo(state: GameState, seat: int, kind: str, cargo: list[int]) -> None:
    """Book a vesicle's cargo for its owner: `cargo_loaded`, `cargo_returned` or `cargo_lost`."""
    row = state.seats[seat].flows[state.row(kind)]
    for r in range(N_RESOURCES):
        row[r] += cargo[r]


def measure_peak(state: GameState) -> None:
    """Peak use: all personal stocks plus all cargo, per resource (kernel-contract.md)."""
    for r in range(N_RESOURCES):
        state.peak_use[r] = max(state.peak_use[r], state.held(r))
