"""The run directory's record tables, made from the record fields of simcell/vocabulary.py
(PLAYER_RECORD, GAME_RECORD): the kernel's record columns to Arrow tables, docs/runs.md's table of
their columns, and the block aggregates the runner adds to the kernel's own (per-seat figures
and personal-stock flows).

The run metadata carries vocabulary.RECORD_SCHEMA_VERSION. The per-player personal-stock flows
(80% of a record's bytes) are not written per player: the `flows` block aggregate sums them by
(block, policy, seat, flow row, resource), which is what the flow balances of the report read.

    python -m simcell.runner.records   # prints docs/runs.md's table of record columns
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from simcell.config.model import GameDefinition
from simcell.kernel.state import GameRecords, PlayerRecords
from simcell.kernel.sums import add_rows_by_key
from simcell.vocabulary import (
    COMPLETED_TYPES,
    GAME_RECORD,
    HP_SOURCES,
    N_RESOURCES,
    PLAYER_RECORD,
    RECORD_AXES,
    RESOURCES,
    SEAT_MEASURES,
    WIN_SHARE_SCALE,
    RecordField,
    flow_row_names,
)

PARQUET_TYPES = {"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u8": "uint64",
                 "f8": "float64", "?": "bool"}


def _labels(axis: str, game: GameDefinition, n: int) -> list:
    """The column suffixes of an axis of n entries."""
    if axis == "source":
        return list(HP_SOURCES)
    if axis == "type":
        return list(COMPLETED_TYPES)
    if axis == "resource":
        return list(RESOURCES)
    if axis == "location":
        return [loc.id for loc in game.board.locations]
    if axis == "goal_card":
        return [g.id for g in game.goals]
    if axis == "round":
        return list(range(1, n + 1))
    return list(range(n))  # event, goal


def _written(f: RecordField, game: GameDefinition, players: int) -> bool:
    if f.column is None:
        return False
    if f.when == "supply_limited":
        return game.rules.supply_limited
    if f.when == "two_player_detox":
        return players == 2 and game.rules.two_player_remove_detox
    return True


def record_table(fields: tuple[RecordField, ...], columns, game: GameDefinition, players: int,
                 n: int) -> pa.Table:
    """The Parquet table of the first n rows of the record columns: one column per field, or
    per label of its axis, as the fields say."""
    table: dict[str, np.ndarray] = {}
    for f in fields:
        if not _written(f, game, players):
            continue
        col = getattr(columns, f.name)[:n]
        if f.dtype == "u8":
            col = col.view(np.uint64)
        if f.parquet:
            col = col.astype(f.parquet)
        name = f.column or f.name
        if f.axis is None:
            table[name] = col
            continue
        labels = _labels(f.axis, game, col.shape[1])
        for k in range(f.first, col.shape[1]):
            table[f"{name}_{labels[k]}"] = col[:, k]
    return pa.table({k: np.ascontiguousarray(v) for k, v in table.items()})


def player_table(pr: PlayerRecords, game: GameDefinition, players: int, n_games: int) -> pa.Table:
    """The players table of a chunk: one row per (game, player)."""
    return record_table(PLAYER_RECORD, pr, game, players, n_games * players)


def game_table(gr: GameRecords, game: GameDefinition, players: int, n_games: int) -> pa.Table:
    """The games table of a chunk: one row per game."""
    return record_table(GAME_RECORD, gr, game, players, n_games)


def columns_markdown() -> str:
    """docs/runs.md's table of the record tables' columns, from the record fields."""
    lines = []
    for table, fields in (("players", PLAYER_RECORD), ("games", GAME_RECORD)):
        lines += [f"| `{table}` column | type | holds |", "|---|---|---|"]
        for f in fields:
            if f.column is None:
                continue
            name = f.column or f.name
            if f.axis is not None:
                name = f"{name}_<{f.axis}>"
            doc = f.doc + (f" ({f.axis}: {RECORD_AXES[f.axis]})" if f.axis else "")
            if f.when == "supply_limited":
                doc += "; only with a limited supply"
            elif f.when == "two_player_detox":
                doc += "; only at 2 players with two_player_remove_detox"
            lines.append(f"| `{name}` | {PARQUET_TYPES[f.parquet or f.dtype]} | {doc} |")
        lines.append("")
    return "\n".join(lines)


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


if __name__ == "__main__":
    print(columns_markdown(), end="")
