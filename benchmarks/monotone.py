"""Monotone response: does a better card play better? For each card, at each player count and
under each field, the card made better (+2 HP; separately one ATP less where it costs at least
one; an Additional Resource card, which scores nothing, one more unit of what it gives) is played
on the same games as the unchanged set, and `simcell compare`'s paired card table
(reports/compare.card_changes, delete-a-block jackknife over paired blocks) gives the change of
the card's opening-hand effect, of its HP above the table when dealt, of its pick rate and of its
completion rate, each with a 95% interval. A competent player dealt a strictly better card can
play as before and score more, so no change may lie wholly below zero.

    python benchmarks/monotone.py [--players 2 3 4 5] [--fields greedy planner ... rollout]
        [--games N] [--rollout-games N] [--cards NAME ...] [--csv PATH] [--workers N]
        [--replay-factor 2]

Every cell whose opening-hand change lies wholly below zero by its own 95% interval is played
again on fresh games (another seed, twice the games): about 2.5% of the cells whose true change
is near zero lie below zero by chance on the screen; a true fall is likely to lie below zero
again (one just large enough to show on the screen, about four times in five). Prints one row per
cell, the count of cells below zero on the screen and again on fresh games (must be 0) and the
share of +2 HP cells whose change lies wholly above zero; writes the table as CSV (one row per
cell, resumable: the cells already in it that this code played at these games and seed are not
played again)."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from simcell.config.load import PolicyField, load_default_game
from simcell.kernel.jit import CODE_HASH
from simcell.policies.registry import ARCHETYPES, builtin, game_loop, param_vector
from simcell.reports.changes import card_changes
from simcell.reports.paired import difference
from simcell.studio.blocks import BlockSpec, play_block, warm_worker
from simcell.studio.figures import stack
from simcell.vocabulary import RESOURCES

FIELDS = ("greedy", "planner") + tuple(a for a in ARCHETYPES if a != "balanced")
# the balanced archetype is the planner with its default weights: the planner's cells are its
ALIASES = {"balanced": "planner"}
SEED = 20261205
REPLAY_SEED = 48_020_261  # fresh games for the cells played again
BLOCKS = 10  # paired blocks per cell: the jackknife's units
CSV = Path(__file__).with_name("monotone.csv")
FIGURES = ("open_hand_win_pp", "hp_above_table", "pick_rate_pct", "completion_pct")


def changes(card) -> list[tuple[str, object]]:
    """The better versions of a card this benchmark plays."""
    if card.type == "additional_resource":
        r = int(np.argmax(card.gain))
        gain = tuple(g + (1 if i == r else 0) for i, g in enumerate(card.gain))
        return [(f"{RESOURCES[r]}+1", dataclasses.replace(card, gain=gain))]
    out = [("hp+2", dataclasses.replace(card, hp=card.hp + 2))]
    if card.atp >= 1:
        out.append(("atp-1", dataclasses.replace(card, atp=card.atp - 1)))
    return out


def with_card(game, card):
    return dataclasses.replace(game, cards=tuple(card if c.id == card.id else c for c in game.cards))


def _cards_frame(game) -> pd.DataFrame:
    cards = sorted(game.cards, key=lambda c: c.id)
    return pd.DataFrame({"id": [c.id for c in cards], "name": [c.name for c in cards],
                         "type": [c.type for c in cards]})


class Player:
    """Blocks of games on a pool of warm workers (one per core), the baseline's kept."""

    def __init__(self, workers: int, loops: tuple[int, ...]) -> None:
        self.pool = ProcessPoolExecutor(workers, initializer=warm_worker, initargs=(loops,))

    def blocks(self, game, players, field, games, blocks, seed) -> list:
        n = games // blocks
        specs = [BlockSpec(game, players, seed, field, b * n, n) for b in range(blocks)]
        return list(self.pool.map(play_block, specs))

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)


def _field(policy: str) -> PolicyField:
    return PolicyField(name=policy, policy=policy)


def params_hash(field: str, players: int) -> str:
    """The field's parameters at this count: a bot's defaults change in Python, outside the
    numba layer's CODE_HASH."""
    return hashlib.sha256(repr(param_vector(field, None, players)).encode()).hexdigest()[:16]


def cell_rows(base_blocks, edit_blocks, players, field, cards_df, card, change) -> dict:
    """The paired change of the card's four figures between the baseline and the edit."""
    order = list(range(len(base_blocks)))
    sa = stack({b: base_blocks[b][0] for b in order}, order)
    sb = stack({b: edit_blocks[b][0] for b in order}, order)
    seg = type("Seg", (), {"players": players, "field_name": field})
    table = card_changes(seg, sa, sb, True, cards_df, 1.0)
    row = table[table["card"] == card.id].iloc[0]
    out = {"players": players, "field": field, "card": card.name, "type": card.type,
           "change": change, "games": int(sa["games"].sum()), "code_hash": CODE_HASH[:16],
           "params_hash": params_hash(field, players)}
    for f in ("open_hand_win_pp", "pick_rate_pct", "completion_pct"):
        out[f"{f}_A"] = row[f"{f}_A"]
        out[f"{f}_diff"], out[f"{f}_low"], out[f"{f}_high"] = (
            row[f"{f}_diff"], row[f"{f}_low"], row[f"{f}_high"])
    if "open_hp" in sa:
        ids = cards_df["id"].to_numpy()
        j = int(np.nonzero(ids == card.id)[0][0])
        d = difference(lambda t: (t["open_hp"][ids] / np.maximum(t["dealt"][ids], 1))[[j]], sa, sb, True)
        lo, hi = d.bounds()
        out["hp_above_table_A"], out["hp_above_table_diff"] = float(d.a[0]), float(d.diff[0])
        out["hp_above_table_low"], out["hp_above_table_high"] = float(lo[0]), float(hi[0])
    return out


def _resumable(csv: Path | None, seed: int, games: int, rollout_games: int) -> pd.DataFrame:
    """The cells of an earlier run of the CSV that this run may keep: played by this code (the
    numba layer's CODE_HASH and the field's parameters at the count: the bots as they are) at
    these games and seed; the rest are dropped, with a line saying how many."""
    if csv is None or not csv.exists():
        return pd.DataFrame()
    done = pd.read_csv(csv)
    if done.empty:
        return done
    want = np.where(done["field"] == "rollout", rollout_games, games)
    bots = pd.Series([params_hash(f, int(p)) for f, p in zip(done["field"], done["players"])],
                     index=done.index)
    ok = ((done.get("code_hash", pd.Series("", index=done.index)) == CODE_HASH[:16])
          & (done.get("params_hash", pd.Series("", index=done.index)) == bots)
          & (done.get("seed", pd.Series(-1, index=done.index)) == seed) & (done["games"] == want))
    if not ok.all():
        print(f"# {int((~ok).sum())} cells of {csv} were played by other code, seed or games: played again")
    return done[ok].reset_index(drop=True)


def run(players_list, fields, cards, games, rollout_games, workers, csv: Path | None,
        blocks: int = BLOCKS, seed: int = SEED, quiet: bool = False) -> pd.DataFrame:
    game = load_default_game()
    by_name = {c.name: c for c in game.cards}
    chosen = [by_name[n] for n in cards] if cards else sorted(game.cards, key=lambda c: c.id)
    cards_df = _cards_frame(game)
    done = _resumable(csv, seed, games, rollout_games)
    have = set(zip(done.get("players", []), done.get("field", []), done.get("card", []),
                   done.get("change", [])))
    rows = [] if done.empty else done.to_dict("records")
    loops = tuple(sorted({game_loop((builtin(f).kernel_id,)) for f in fields}))
    player = Player(workers, loops)
    try:
        for players in players_list:
            for field_name in fields:
                if field_name == "rollout" and players != 2:
                    continue
                n_games = rollout_games if field_name == "rollout" else games
                todo = [(c, ch, better) for c in chosen for ch, better in changes(c)
                        if (players, field_name, c.name, ch) not in have]
                if not todo:
                    continue
                field = _field(field_name)
                t0 = time.perf_counter()
                base = player.blocks(game, players, field, n_games, blocks, seed + players)
                for card, change, better in todo:
                    edit = player.blocks(with_card(game, better), players, field, n_games, blocks,
                                         seed + players)
                    row = cell_rows(base, edit, players, field_name, cards_df, card, change)
                    row["seed"] = seed
                    rows.append(row)
                    if not quiet:
                        print(_line(row), flush=True)
                    if csv is not None:
                        pd.DataFrame(rows).to_csv(csv, index=False)
                if not quiet:
                    print(f"# {players}p {field_name}: {len(todo)} cells in "
                          f"{time.perf_counter() - t0:.0f} s", flush=True)
    finally:
        player.close()
    return pd.DataFrame(rows)


def _iv(row, f, digits=1) -> str:
    return (f"{row[f + '_diff']:+.{digits}f} ({row[f + '_low']:+.{digits}f} to "
            f"{row[f + '_high']:+.{digits}f})")


def _line(row) -> str:
    hp = _iv(row, "hp_above_table", 2) if "hp_above_table_diff" in row else "n/a"
    return (f"{row['players']}p {row['field']:<16} {row['card']:<28} {row['change']:<7} "
            f"open-hand {_iv(row, 'open_hand_win_pp'):<24} HP when dealt {hp:<26} "
            f"pick {_iv(row, 'pick_rate_pct'):<24} completed {_iv(row, 'completion_pct')}")


def below_zero(df: pd.DataFrame) -> pd.DataFrame:
    """Cells whose opening-hand change lies wholly below zero on the screen (each cell's own 95%
    interval), or has no interval (not shown to lie above)."""
    return df[~(df["open_hand_win_pp_high"] >= 0)]


def worse(df: pd.DataFrame) -> pd.DataFrame:
    """The cells a designer must not see: below zero on the screen and again when played on fresh
    games (or not yet played again). Among ~2,000 cells, those whose true change is near zero (a
    card completed whenever dealt made one ATP cheaper) lie below zero by their own 95% interval
    at about 2.5% by chance; a true fall lies below zero again on fresh games."""
    bad = below_zero(df)
    if "replay_high" not in bad:
        return bad
    return bad[~(bad["replay_high"] >= 0)]  # NaN (not played again) counts as below


def replay(df: pd.DataFrame, games_factor: int, workers: int, csv: Path | None,
           blocks: int = BLOCKS, quiet: bool = False) -> pd.DataFrame:
    """Play each cell below zero on the screen again on fresh games (another seed, games_factor
    times the games), its opening-hand change and interval into replay_* columns."""
    df = df.copy()
    for col in ("replay_games", "replay_diff", "replay_low", "replay_high"):
        if col not in df:
            df[col] = np.nan
    todo = below_zero(df)
    todo = todo[todo["replay_games"].isna()]
    if todo.empty:
        return df
    game = load_default_game()
    by_name = {c.name: c for c in game.cards}
    cards_df = _cards_frame(game)
    fields = sorted(set(todo["field"]))
    player = Player(workers, tuple(sorted({game_loop((builtin(f).kernel_id,)) for f in fields})))
    try:
        for (players, field_name), part in todo.groupby(["players", "field"], sort=True):
            n = int(part["games"].max()) * games_factor
            seed = REPLAY_SEED + int(players)
            field = _field(field_name)
            base = player.blocks(game, int(players), field, n, blocks, seed)
            for i, row in part.iterrows():
                card = by_name[row["card"]]
                better = dict(changes(card))[row["change"]]
                edit = player.blocks(with_card(game, better), int(players), field, n, blocks, seed)
                got = cell_rows(base, edit, int(players), field_name, cards_df, card, row["change"])
                df.loc[i, ["replay_games", "replay_diff", "replay_low", "replay_high"]] = (
                    got["games"], got["open_hand_win_pp_diff"], got["open_hand_win_pp_low"],
                    got["open_hand_win_pp_high"])
                if not quiet:
                    print(f"replayed on {got['games']:,} fresh games: {_line(got)}", flush=True)
                if csv is not None:
                    df.to_csv(csv, index=False)
    finally:
        player.close()
    return df


def summary(df: pd.DataFrame) -> str:
    hp = df[df["change"] == "hp+2"]
    above = (hp["open_hand_win_pp_low"] > 0).mean() * 100 if len(hp) else float("nan")
    atp = df[df["change"] == "atp-1"]
    atp_above = (atp["open_hand_win_pp_low"] > 0).mean() * 100 if len(atp) else float("nan")
    bad, sure = below_zero(df), worse(df)
    lines = [f"cells: {len(df)} ({len(hp)} at +2 HP, {len(atp)} at -1 ATP, "
             f"{len(df) - len(hp) - len(atp)} Additional Resource +1), games per cell "
             f"{', '.join(f'{f} {g:,}' for f, g in df.groupby('field')['games'].max().items())}",
             f"cells whose opening-hand change lies wholly below zero: {len(sure)} (must be 0; "
             f"{len(bad)} on the screen, each played again on fresh games)",
             f"+2 HP cells whose change lies wholly above zero: {above:.0f}%; -1 ATP: {atp_above:.0f}%"]
    for _, r in bad.iterrows():
        again = ("not played again" if pd.isna(r.get("replay_high", np.nan)) else
                 f"fresh {int(r['replay_games']):,} games: {r['replay_diff']:+.1f} "
                 f"({r['replay_low']:+.1f} to {r['replay_high']:+.1f})")
        lines.append(f"  below zero on the screen: {_line(r)}\n    {again}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--fields", nargs="+", default=list(FIELDS),
                        help="fields (default: greedy, the planner, the archetypes; add rollout for its 2-player cells)")
    parser.add_argument("--games", type=int, default=20_000, help="games per cell (heuristic fields)")
    parser.add_argument("--rollout-games", type=int, default=4_000, help="games per rollout cell (2 players)")
    parser.add_argument("--cards", nargs="+", help="card names (default: all 43)")
    parser.add_argument("--csv", type=Path, default=CSV)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--replay-factor", type=int, default=2,
                        help="a cell below zero on the screen is played again on fresh games, this many times its games")
    parser.add_argument("--fresh", action="store_true", help="ignore the cells already in the CSV")
    args = parser.parse_args()
    fields = [ALIASES.get(f, f) for f in args.fields]
    if args.fresh and args.csv.exists():
        args.csv.unlink()
    t = time.perf_counter()
    df = run(args.players, list(dict.fromkeys(fields)), args.cards, args.games, args.rollout_games,
             args.workers, args.csv)
    df = replay(df, args.replay_factor, args.workers, args.csv)
    print(summary(df))
    print(f"written {args.csv} ({time.perf_counter() - t:.0f} s)")
    sys.exit(1 if len(worse(df)) else 0)


if __name__ == "__main__":
    main()
