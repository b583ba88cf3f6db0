"""The run directory's tables: kernel record columns to Arrow tables, and the block aggregates
the runner adds to the kernel's own (per-seat figures and personal-stock flows).

Record schema (RECORD_SCHEMA_VERSION; run metadata carries it):

players table, one row per (game, player):
    game (int32), rotation, seat, player, policy (int8; policy = index into the field's policy
    labels), final_hp, hp_<source> (HP_SOURCES; they add up to final_hp), hp_round_<r> (r = 1
    .. the game's most rounds; -1 past the last round), win_share (float64), rank, dealt_mask,
    kept_mask, bought_mask, completed_mask (uint64 card-id bit sets), completed_<type>,
    flasks_exhausted, grey_used, laureates_taken, laureates_as_holder, goal_markers_placed,
    vesicles_lost, vesicles_left, placed_<location>, stock_<resource>.
games table, one row per game:
    game, deal (int32), rotation, tie, event_<j> (event ids in reveal order, -1 padded),
    events_removed (uint64), goal_<i> (goal ids in play), first_player_round_<r> (r >= 2; round 1
    is seat 0's), peak_<resource>,
    shortfall_<resource> (limited supply only), reshuffles, detox_removed (2 players with
    two_player_remove_detox only), visible_mask.

The per-player personal-stock flows (46 rows x 5 resources, 80% of a record's bytes) are not
written per player: the `flows` block aggregate sums them by (block, policy, seat, flow row,
resource), which is what the flow balances of the report read.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from simcell.config.model import GameDefinition
from simcell.vocabulary import (
    COMPLETED_TYPES,
    HP_SOURCES,
    N_RESOURCES,
    RESOURCES,
    SEAT_MEASURES,
    WIN_SHARE_SCALE,
    flow_row_names,
)
from simcell.kernel.sums import add_rows_by_key
from simcell.kernel.state import GameRecords, PlayerRecords

def _flat(table: dict, name: str, col: np.ndarray, labels) -> None:
    for k, label in enumerate(labels):
        table[f"{name}_{label}"] = col[:, k]


def player_table(pr: PlayerRecords, game: GameDefinition, players: int, n_games: int) -> pa.Table:
    n = n_games * players
    c: dict[str, np.ndarray] = {
        "game": pr.game[:n].astype(np.int32),
        "rotation": pr.rotation[:n],
        "seat": pr.seat[:n],
        "player": pr.player[:n],
        "policy": pr.policy[:n],
        "final_hp": pr.final_hp[:n],
    }
    _flat(c, "hp", pr.hp_by_source[:n], HP_SOURCES)
    _flat(c, "hp_round", pr.hp_by_round[:n], range(1, pr.hp_by_round.shape[1] + 1))
    c["win_share"] = pr.win_share[:n]
    c["rank"] = pr.rank[:n]
    for mask in ("dealt_mask", "kept_mask", "bought_mask", "completed_mask"):
        c[mask] = getattr(pr, mask)[:n].view(np.uint64)
    _flat(c, "completed", pr.completed_by_type[:n], COMPLETED_TYPES)
    for name in ("flasks_exhausted", "grey_used", "laureates_taken", "laureates_as_holder",
                 "goal_markers_placed", "vesicles_lost", "vesicles_left"):
        c[name] = getattr(pr, name)[:n]
    _flat(c, "placed", pr.placements_by_location[:n], [loc.id for loc in game.board.locations])
    _flat(c, "stock", pr.stock[:n], RESOURCES)
    return pa.table({k: np.ascontiguousarray(v) for k, v in c.items()})


def game_table(gr: GameRecords, game: GameDefinition, players: int, n_games: int) -> pa.Table:
    n = n_games
    c: dict[str, np.ndarray] = {
        "game": gr.game[:n].astype(np.int32),
        "deal": gr.deal[:n].astype(np.int32),
        "rotation": gr.rotation[:n],
        "tie": gr.tie[:n],
    }
    _flat(c, "event", gr.event_order[:n], range(gr.event_order.shape[1]))
    c["events_removed"] = gr.events_removed[:n].view(np.uint64)
    _flat(c, "goal", gr.goals_in_play[:n], range(gr.goals_in_play.shape[1]))
    # the marker holder at the start of rounds 2 ..; round 1 is always seat 0 (setup)
    _flat(c, "first_player_round", gr.first_player[:n, 1:], range(2, gr.first_player.shape[1] + 1))
    _flat(c, "peak", gr.peak_use[:n], RESOURCES)
    if game.rules.supply_limited:
        _flat(c, "shortfall", gr.supply_shortfall[:n], RESOURCES)
    c["reshuffles"] = gr.reshuffles[:n]
    if players == 2 and game.rules.two_player_remove_detox:
        c["detox_removed"] = gr.detox_removed[:n].view(np.uint64)
    c["visible_mask"] = gr.visible_mask[:n].view(np.uint64)
    return pa.table({k: np.ascontiguousarray(v) for k, v in c.items()})


def runner_aggregates(pr: PlayerRecords, players: int, n_games: int, labels: int,
                      game_blocks: np.ndarray, first_block: int, n_blocks: int) -> dict[str, np.ndarray]:
    """The runner's block aggregates of a chunk (blocks first_block .. + n_blocks - 1):
    seat: int64[block, policy label, seat, SEAT_MEASURES]; flows: int64[block, policy label,
    seat, flow row, resource]. `game_blocks` is the block of each game of the chunk."""
    n = n_games * players
    p = players
    hp = pr.final_hp[:n].astype(np.int64).reshape(n_games, p)
    above = p * hp - hp.sum(axis=1, keepdims=True)
    share = np.rint(pr.win_share[:n] * WIN_SHARE_SCALE).astype(np.int64).reshape(n_games, p)
    measures = [
        np.ones((n_games, p), np.int64),
        share,
        (share == WIN_SHARE_SCALE).astype(np.int64),
        hp,
        hp * hp,
        above,
        above * above,
        pr.completed_by_type[:n].astype(np.int64).sum(axis=1).reshape(n_games, p),
    ] + [pr.hp_by_source[:n, k].astype(np.int64).reshape(n_games, p) for k in range(len(HP_SOURCES))]
    per_row = np.stack(measures, axis=-1).reshape(n, len(SEAT_MEASURES))
    flows = pr.flows[:n].reshape(n, -1)
    label = pr.policy[:n].astype(np.int64)
    seat = pr.seat[:n].astype(np.int64)
    row_block = np.repeat(game_blocks, p) - first_block
    key = (row_block * labels + label) * p + seat
    cells = n_blocks * labels * p
    seat_out = np.zeros((cells, per_row.shape[1]), np.int64)
    flow_out = np.zeros((cells, flows.shape[1]), np.int64)
    add_rows_by_key(per_row, key, seat_out)
    add_rows_by_key(flows, key, flow_out)
    seat_out = seat_out.reshape(n_blocks, labels, p, len(SEAT_MEASURES))
    return {"seat": seat_out,
            "flows": flow_out.reshape(n_blocks, labels, p, -1, N_RESOURCES)}


def axis_labels(game: GameDefinition, name: str) -> dict[str, list]:
    """Names to show for an aggregate's named axes, where they are not plain indices."""
    if name == "seat":
        return {"measure": list(SEAT_MEASURES)}
    if name == "flows":
        return {"flow": list(flow_row_names(tuple(loc.id for loc in game.board.locations))),
                "resource": list(RESOURCES)}
    return {}
