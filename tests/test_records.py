"""The record fields of simcell/vocabulary.py are the one declaration of the records: the kernel
writes every element of every field, the run directory's Parquet tables keep their schema
(a change is a RECORD_SCHEMA_VERSION change: update the digests below with it), and docs/runs.md's
table of columns is the one the fields make."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re

import numpy as np
import pytest

from simcell.config.load import load_default_game
from simcell.kernel.state import GameRecords, PlayerRecords, allocate_records
from simcell.play.game import record_game, seat_game
from simcell.runner.fields import homogeneous
from simcell.runner.games import game_state, play_chunk_columns, scratch_states, tables_for
from simcell.runner.records import columns_markdown, game_table, player_table
from simcell.policies.user import no_user_policy
from simcell.vocabulary import GAME_RECORD, PLAYER_RECORD, RECORD_SCHEMA_VERSION

from .conftest import ROOT

GAME = load_default_game()
SENTINEL = -99  # no record element holds it: counts are >= 0, "none" markers are -1


def test_the_kernels_columns_are_the_fields() -> None:
    assert PlayerRecords._fields == tuple(f.name for f in PLAYER_RECORD)
    assert GameRecords._fields == tuple(f.name for f in GAME_RECORD)


@pytest.mark.parametrize("policy", ["random", "planner"])
def test_the_kernel_writes_every_element_of_every_field(policy: str) -> None:
    from simcell.play.game import PLAY_GAME
    from simcell.policies.registry import game_loop

    for players in (2, 5):
        gt = tables_for(GAME, players)
        seating = homogeneous(policy, players)
        st = game_state(gt)
        pr, gr = allocate_records(gt, 1)
        for columns in (pr, gr):
            for col in columns:
                col[...] = SENTINEL
        seat_game(st, seating.player_policy, seating.player_label, seating.player_params,
                  seating.seat_orders, 0)
        PLAY_GAME[game_loop(seating.player_policy)](st, gt, 5, 0, no_user_policy(), False, 0,
                                                    False, -1, *scratch_states(gt))
        record_game(st, gt, pr, gr, 0, 0, 0, 0)
        for columns in (pr, gr):
            for name, col in zip(columns._fields, columns):
                assert not np.any(col == SENTINEL), f"{name} not written ({policy}, {players}p)"


def _schema(table) -> str:
    return hashlib.sha256(json.dumps([(f.name, str(f.type)) for f in table.schema]).encode()
                          ).hexdigest()[:16]


def test_the_parquet_tables_keep_their_schema() -> None:
    """Column names and types of the players and games tables, pinned (the option-dependent
    games columns with a limited supply and the 2-player Detoxification removal on)."""
    assert RECORD_SCHEMA_VERSION == 3
    options = dataclasses.replace(GAME, rules=dataclasses.replace(
        GAME.rules, supply_limited=True, two_player_remove_detox=True))
    # schema 2: the players table gained marker_round_<goal>, marker_order_<goal>, goal_bonus_<goal>;
    # schema 3: hp_start
    expected = {(5, False): ("feb463dd9e5d5941", "2e3f08427f958f52"),
                (2, True): ("feb463dd9e5d5941", "833bd83bd11417cc")}
    for (players, with_options), (p_digest, g_digest) in expected.items():
        game = options if with_options else GAME
        seating = homogeneous("random", players)
        buf, _ = play_chunk_columns(game, players, 3, 0, 20, seating, 20, 4, False,
                                    no_user_policy())
        players_table = player_table(buf.pr, game, players, 20)
        games_table = game_table(buf.gr, game, players, 20)
        assert players_table.num_rows == 20 * players and games_table.num_rows == 20
        assert _schema(players_table) == p_digest, players_table.schema
        assert _schema(games_table) == g_digest, games_table.schema
    assert "shortfall_atp" in games_table.column_names
    assert "detox_removed" in games_table.column_names


def test_the_docs_list_the_record_columns_the_fields_make() -> None:
    """docs/runs.md's record columns are generated from the record fields (vocabulary)."""
    page = (ROOT / "docs" / "runs.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- record columns: start -->\n(.*?)<!-- record columns: end -->",
                      page, re.S)
    assert found, "docs/runs.md lost its record-columns markers"
    assert found.group(1) == columns_markdown(), (
        "docs/runs.md's record columns differ from the record fields: paste the output of "
        "`python -m simcell.runner.records` between the markers")
