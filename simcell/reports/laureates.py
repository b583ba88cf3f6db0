"""What one Laureates visit is worth, from a run directory: the run's Laureates deviation
(RUN/laureates, tools/laureates: the run's first deals again with player 0 of a cyclic pool
never placing at the Laureates) paired game by game with the run's own games. Game g of the
deviation is game g of the run, the same deal and chance draws, until the skipping player first
passes the Laureates by; in each game it is compared with the player in its seat in the run.

A visit's worth is a ratio of paired sums over the games: what the player lost by skipping
(win share, HP) over the Laureates visits it gave up (the visits its seat made in the run
less the ones it made in the deviation, 0 unless the Laureates was all it could do), each
jackknifed over the deviation's blocks."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from simcell.reports.data import ReportError, RunData, SegmentInfo
from simcell.reports.estimates import Blocks, est_columns
from simcell.reports.intervals import jackknife_ratio
from simcell.vocabulary import LAUREATES_FILE, LAUREATES_FOLDER

COLUMNS = ["win_share", "final_hp", "laureates_taken"]


def plan(run: RunData) -> dict | None:
    """RUN/laureates/laureates.json, or None for a run without it."""
    path = run.root / LAUREATES_FOLDER / LAUREATES_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def _baseline(run: RunData, seg: SegmentInfo, n: int) -> dict[str, np.ndarray]:
    """The run's first n games: each column as games x seats."""
    out = {c: np.zeros((n, seg.players)) for c in COLUMNS}
    for df in run.record_parts("players", seg, COLUMNS):
        games = df["game"].to_numpy()
        keep = games < n
        if not keep.any():
            break
        g, s = games[keep], df["seat"].to_numpy()[keep]
        for c in COLUMNS:
            out[c][g, s] = df[c].to_numpy(np.float64)[keep]
    return out


def paired_sums(run: RunData, seg: SegmentInfo, dev: RunData) -> tuple[dict[str, np.ndarray], int]:
    """Per-block sums (the deviation's blocks) by seat of the skipping player: games, its
    win share, HP and Laureates visits in the deviation, and its seat's in the run."""
    dseg = next((s for s in dev.segments if s.players == seg.players), None)
    if dseg is None:
        raise ReportError(f"{dev.root} holds no {seg.players}-player games")
    if dev.seed != run.seed:
        raise ReportError(f"{dev.root} is not played on the run's seed")
    n, p, k = dseg.games, seg.players, dseg.blocks
    if n > seg.games:
        raise ReportError(f"{dev.root} plays more games than the run")
    base = _baseline(run, seg, n)
    names = ["games"] + [f"{side}_{c}" for side in ("skip", "run") for c in COLUMNS]
    sums = {name: np.zeros((k, p)) for name in names}
    for df in dev.record_parts("players", dseg, ["player"] + COLUMNS):
        mine = df["player"].to_numpy() == 0
        g, s = df["game"].to_numpy()[mine], df["seat"].to_numpy()[mine]
        blocks = dev.block_of_games(dseg, g)
        by = Blocks(blocks * p + s, k * p)
        sums["games"] += by.totals().reshape(k, p)
        for c in COLUMNS:
            sums[f"skip_{c}"] += by.totals(df[c].to_numpy(np.float64)[mine]).reshape(k, p)
            sums[f"run_{c}"] += by.totals(base[c][g, s]).reshape(k, p)
    return sums, n


def worth(sums: dict[str, np.ndarray], seat: int | None = None) -> dict:
    """The figures of one seat (None: every seat, the skipping player sitting in each equally
    often): visits per game in the run and when skipping, and the paired losses (run − skip) of
    win share (pp) and HP per game and per visit given up."""
    pick = (lambda a: a.sum(axis=1)) if seat is None else (lambda a: a[:, seat])
    games = pick(sums["games"])
    lost_visits = pick(sums["run_laureates_taken"] - sums["skip_laureates_taken"])
    lost_win = pick(sums["run_win_share"] - sums["skip_win_share"])
    lost_hp = pick(sums["run_final_hp"] - sums["skip_final_hp"])
    return {
        "games": int(games.sum()),
        **est_columns("visits_per_game", jackknife_ratio(pick(sums["run_laureates_taken"]), games)),
        **est_columns("visits_skipping", jackknife_ratio(pick(sums["skip_laureates_taken"]), games)),
        **est_columns("win_lost_pp", jackknife_ratio(lost_win, games), 100),
        **est_columns("hp_lost", jackknife_ratio(lost_hp, games)),
        **est_columns("visit_win_pp", jackknife_ratio(lost_win, lost_visits), 100),
        **est_columns("visit_hp", jackknife_ratio(lost_hp, lost_visits)),
    }


def laureates_table(run: RunData) -> tuple[pd.DataFrame | None, str]:
    """One row per player count and seat (seat "all" first): the worth of a visit, over the
    deviation's games (`deviation_games`) or those with the skipping player in the seat
    (`games`); or None and why there is none."""
    p = plan(run)
    if p is None:
        return None, ("this run has no Laureates deviation (`[report] laureates_games`: runs "
                      "played before it, or set to 0)")
    if p.get("why"):
        return None, f"not measured: {p['why']}"
    if not p.get("runs"):
        return None, "not measured (`[report] laureates_games = 0`)"
    rows = []
    for entry in p["runs"]:
        seg = next((s for s in run.segments if s.players == entry["players"] and s.field == 0), None)
        if seg is None:
            continue
        dev = RunData(run.root / entry["run"])
        sums, n = paired_sums(run, seg, dev)
        for seat in [None] + list(range(seg.players)):
            rows.append({"players": seg.players, "field": seg.field_name,
                         "seat": "all" if seat is None else str(seat),
                         "deviation_games": n, **worth(sums, seat)})
    return pd.DataFrame(rows), ""
