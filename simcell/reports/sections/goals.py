"""Goals (docs/rules.md §5): which goal card is claimed first and by which seat, each goal's HP
by seat (its first marker's HP and its end bonus), and what one Laureates visit is worth
(reports/laureates.py), per player count and field, from the records' goal marker columns
(marker_round_<goal>, marker_order_<goal>, goal_bonus_<goal>: record schema 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcell.reports.data import ReportError, RunData, SegmentInfo
from simcell.reports.estimates import EXACT, Blocks, ci_of, ci_text, est_columns
from simcell.reports.intervals import jackknife_ratio
from simcell.reports.laureates import laureates_table
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import POLICY_PALETTE, figure

NONE = "no goal claimed"


def goal_sums(run: RunData, seg: SegmentInfo, goal_ids: list[int]) -> dict[str, np.ndarray]:
    """Per-block sums of a segment: games; games with each goal in play; first claims of the
    game by goal and seat (a game whose first round with a claim has several shares it equally
    among them; the last row of the goal axis: no goal claimed); and each goal's marker HP and
    end bonus by seat."""
    p, k, g = seg.players, seg.blocks, len(goal_ids)
    # rules.first_marker_hp by claim order (runs before the switch have none)
    schedule = list(run.game["rules"].get("first_marker_hp") or [run.game["board"]["first_marker_hp"]])
    by_claim = np.array([schedule[min(k, len(schedule) - 1)] for k in range(g)], np.float64)
    before = np.concatenate(([0.0], np.cumsum(by_claim)))  # HP of the first k claims
    rounds = [f"marker_round_{i}" for i in goal_ids]
    orders = [f"marker_order_{i}" for i in goal_ids]
    bonus = [f"goal_bonus_{i}" for i in goal_ids]
    out = {"games": np.zeros(k), "in_play": np.zeros((k, g)), "first": np.zeros((k, g + 1, p)),
           "marker_hp": np.zeros((k, g, p)), "bonus_hp": np.zeros((k, g, p))}
    goal_cols = [f"goal_{j}" for j in range(max(run.game["board"]["goals_revealed"]))]
    players = run.record_parts("players", seg, rounds + orders + bonus)
    for df, gdf in zip(players, run.record_parts("games", seg, goal_cols)):
        n = len(gdf)
        if not np.array_equal(df["game"].to_numpy()[::p], gdf["game"].to_numpy()):
            raise ReportError("player and game record parts hold different games")
        by = Blocks(run.block_of_games(seg, gdf["game"].to_numpy()), k)
        out["games"] += by.totals()
        shown = gdf[goal_cols].to_numpy()
        for j, gid in enumerate(goal_ids):
            out["in_play"][:, j] += by.totals((shown == gid).any(axis=1))
        # game x goal x seat
        rnd = np.stack([df[c].to_numpy(np.int64).reshape(n, p) for c in rounds], axis=1)
        order = np.stack([df[c].to_numpy(np.int64).reshape(n, p) for c in orders], axis=1)
        paid = np.stack([df[c].to_numpy(np.float64).reshape(n, p) for c in bonus], axis=1)
        placed = np.where(order > 0, rnd, np.iinfo(np.int64).max)
        earliest = placed.min(axis=(1, 2), keepdims=True)
        first = (placed == earliest) & (order > 0)
        claims = first.sum(axis=(1, 2))
        share = np.zeros((n, g + 1, p))
        share[:, :g, :] = first / np.maximum(claims, 1)[:, None, None]
        share[:, g, 0] = claims == 0  # no goal claimed: held on seat 0's column, read as a whole
        out["first"] += _by_block(by, share)
        # a goal's first marker scores by the game's claim order; the records keep its round,
        # so claims of one round share their places' HP equally
        first_round = np.where(order == 1, rnd, np.iinfo(np.int64).max).min(axis=2)  # game x goal
        claimed = first_round < np.iinfo(np.int64).max
        earlier = (claimed[:, None, :] & (first_round[:, None, :] < first_round[:, :, None])).sum(axis=2)
        same = np.maximum((claimed[:, None, :] & (first_round[:, None, :] == first_round[:, :, None])).sum(axis=2), 1)
        goal_hp = np.where(claimed, (before[earlier + same] - before[earlier]) / same, 0.0)
        out["marker_hp"] += _by_block(by, goal_hp[:, :, None] * (order == 1))
        out["bonus_hp"] += _by_block(by, paid)
    return out


def _by_block(by: Blocks, values: np.ndarray) -> np.ndarray:
    """Per-block sums of games x A x B values: blocks x A x B."""
    n, a, b = values.shape
    flat = values.reshape(n, a * b)
    return np.stack([by.totals(flat[:, i]) for i in range(a * b)], axis=1).reshape(by.k, a, b)


def first_claims(sums: dict, names: list[str], p: int) -> list[dict]:
    """Rows per goal (and one for no claim): the share of games it is in play and claimed first
    (pp of all games), and the seats' shares of those first claims."""
    games = sums["games"]
    rows = []
    for j, name in enumerate(names + [NONE]):
        first = sums["first"][:, j, :].sum(axis=1)
        row = {"goal": name,
               **est_columns("in_play_pct", jackknife_ratio(sums["in_play"][:, j], games)
                             if j < len(names) else jackknife_ratio(0 * games, games), 100),
               **est_columns("claimed_first_pct", jackknife_ratio(first, games), 100)}
        for s in range(p):
            est = jackknife_ratio(sums["first"][:, j, s], first) if j < len(names) else \
                jackknife_ratio(0 * games, games)
            row.update(est_columns(f"by_seat_{s}_pct", est, 100))
        rows.append(row)
    return rows


def goal_hp(sums: dict, names: list[str], p: int) -> list[dict]:
    """Rows per goal and seat: HP per game from the goal's first marker and its end bonus."""
    games = sums["games"]
    rows = []
    for j, name in enumerate(names):
        for s in range(p):
            m, b = sums["marker_hp"][:, j, s], sums["bonus_hp"][:, j, s]
            rows.append({"goal": name, "seat": s,
                         **est_columns("marker_hp", jackknife_ratio(m, games)),
                         **est_columns("bonus_hp", jackknife_ratio(b, games)),
                         **est_columns("goal_hp", jackknife_ratio(m + b, games))})
    return rows


def _figure(first: pd.DataFrame, hp: pd.DataFrame):
    """Left: the goal claimed first, each bar split by the seat that claimed it; right: each
    seat's HP per game from goals, split by goal."""
    fig, (a1, a2) = figure(ncols=2, figsize=(9.0, 3.9), gridspec_kw={"width_ratios": [1.1, 1.0]})
    goals = list(first["goal"])
    p = int(hp["seat"].max()) + 1
    y = np.arange(len(goals))[::-1]  # the first goal on top
    left = np.zeros(len(goals))
    for s in range(p):
        v = first["claimed_first_pct"].to_numpy() * np.nan_to_num(first[f"by_seat_{s}_pct"].to_numpy()) / 100
        a1.barh(y, v, left=left, color=POLICY_PALETTE[s % len(POLICY_PALETTE)], label=f"seat {s}")
        left += v
    a1.set_yticks(y, goals, fontsize=8)
    a1.set_xlim(0, 100)
    a1.set_xlabel("claimed first (% of games)")
    a1.legend(fontsize=7, ncol=min(p, 5), loc="lower left", bbox_to_anchor=(0.0, 1.0),
              title="the first goal marker, placed by", title_fontsize=7, frameon=False)
    names = list(dict.fromkeys(hp["goal"]))
    bottom = np.zeros(p)
    for j, name in enumerate(names):
        v = hp[hp["goal"] == name].sort_values("seat")["goal_hp"].to_numpy()
        a2.bar(np.arange(p), v, bottom=bottom, color=GOAL_PALETTE[j % len(GOAL_PALETTE)],
               label=name)
        bottom += v
    a2.set_xticks(np.arange(p), [str(s) for s in range(p)])
    a2.set_xlabel("seat")
    a2.set_ylabel("HP per game from goals")
    a2.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="goal",
              title_fontsize=7, frameon=False)
    return fig


GOAL_PALETTE = ("#1b9e77", "#e6ab02", "#d95f02", "#e7298a", "#7570b3", "#66a61e", "#a6761d",
                "#666666")


def build(run: RunData) -> Section:
    sec = Section("goals", "Goals")
    sec.text.append(
        "Which goal card is claimed first (the first goal marker of the game, placed at the "
        "Laureates) and by which seat; what each goal card pays each seat (the first marker's HP "
        "and the end bonus to each marker holder, per game, in play or not: a seat's goal HP is "
        "their sum over the goals); and what one Laureates visit is worth, measured by a player "
        "who never takes it on the run's first deals. Intervals: jackknife over blocks.")
    goals = sorted(run.game["goals"], key=lambda g: g["id"])
    ids, names = [g["id"] for g in goals], [g["name"] for g in goals]
    first_rows, hp_rows = [], []
    for seg in run.segments:
        if f"marker_round_{ids[0]}" not in run.record_columns("players", seg):
            sec.text.append(f"{seg.label}: the records predate the goal marker columns (record "
                            "schema 2); play the run again for this section.")
            continue
        sums = goal_sums(run, seg, ids)
        base = {"players": seg.players, "field": seg.field_name, "games": int(sums["games"].sum())}
        first = [base | r for r in first_claims(sums, names, seg.players)]
        hp = [base | r for r in goal_hp(sums, names, seg.players)]
        first_rows += first
        hp_rows += hp
        top = seg.players == max(sg.players for sg in run.segments)
        sec.figures.append(Figure(f"goals_{seg.players}p_{seg.field}", f"Goals: {seg.label}",
                                  _figure(pd.DataFrame(first[:-1]), pd.DataFrame(hp)),
                                  "Left: the share of games in which each goal card takes the "
                                  "game's first goal marker, split by the seat that placed it. "
                                  "Right: each seat's HP per game from each goal card (first "
                                  "marker and end bonus)"
                                  + ("." if top else "; on screen only (the largest player "
                                     "count's prints)."), printed=top))
    if first_rows:
        first = pd.DataFrame(first_rows)
        shown = _first_shown(first)
        claimed = (first["claimed_first_pct"] > 0).to_numpy()
        sec.tables.append(Table("goals_first", "Which goal is claimed first, and by which seat",
                                first, shown[claimed].reset_index(drop=True),
                                note="Claimed first: % of all games in which the goal card takes "
                                     "the game's first goal marker (the rows, with the goals never "
                                     "claimed first folded beneath, add up to 100). By seat: % of "
                                     "those games in which each seat placed it (they add up to "
                                     "100; seats never listed: 0). A share without an interval is "
                                     "the same in every game.",
                                rest=shown[~claimed].reset_index(drop=True) if (~claimed).any() else None,
                                rest_title="the goals never claimed first"))
        hp = pd.DataFrame(hp_rows)
        sec.tables.append(Table("goals_hp", "Each goal's HP by seat, per game", hp, _hp_shown(hp),
                                note="HP per game (all games, the goal in play or not) from each "
                                     "goal card, with its interval: its first marker's HP "
                                     "(`first_marker_hp`) + its end bonus to the seat; a seat's "
                                     "goal HP is the sum over the goals (the chart above; each "
                                     "part's interval in `tables/goals_hp.csv`).", collapsed=True))
    table, why = laureates_table(run)
    if table is None:
        sec.text_after.append(f"What one Laureates visit is worth: {why}.")
    else:
        shown = _laureates_shown(table)
        every = (table["seat"] == "all").to_numpy()
        sec.tables.append(Table("laureates_worth", "What one Laureates visit is worth", table,
                                shown[every].reset_index(drop=True), note=LAUREATES_NOTE,
                                rest=shown[~every].reset_index(drop=True),
                                rest_title="seat by seat (the skipping player in that seat)"))
    return sec


LAUREATES_NOTE = (
    "The run's first deals played again (same seed, same games) with one player who never places "
    "at the Laureates, sitting in every seat in turn against the field's policy; each game "
    "compared with the same seat in the run (seat by seat: the games with the skipping player in "
    "that seat). Visits given up: the seat's Laureates visits in the run less the skipping "
    "player's (0 unless the Laureates was all it could do). A visit's worth: the win share (pp) and HP the skipping "
    "player lost, over the visits it gave up (a ratio of sums over games, jackknifed over the "
    "deviation's blocks).")


def _plain(texts: list[str]) -> list[str]:
    """A share the same in every game (100% in play, 0% claimed) without its empty interval;
    a share of no games (a goal never claimed first) as a blank."""
    return ["" if t == "n/a" else t.replace(f" ({EXACT})", "") for t in texts]


def _single(df: pd.DataFrame) -> bool:
    return df[["players", "field"]].drop_duplicates().shape[0] == 1


def _first_shown(first: pd.DataFrame) -> pd.DataFrame:
    out = first[["players", "field", "goal"]].copy()
    out["in play %"] = _plain(ci_of(first, "in_play_pct"))
    out["claimed first, % of games"] = _plain(ci_of(first, "claimed_first_pct"))
    by = []
    for _, row in first.iterrows():
        seats = [(s, row[f"by_seat_{s}_pct"], row[f"by_seat_{s}_pct_low"], row[f"by_seat_{s}_pct_high"])
                 for s in range(int(row["players"]))]
        by.append(", ".join(f"seat {s}: " + _plain(ci_text([v], [lo], [hi], digits=0))[0]
                            for s, v, lo, hi in seats if v > 0) if row["goal"] != NONE else "")
    out["by seat, % of those games"] = by
    out.loc[out["goal"] == NONE, "in play %"] = ""
    return out.drop(columns=["field"] if _single(first) else [])


def _hp_shown(hp: pd.DataFrame) -> pd.DataFrame:
    """One row per seat and a column per goal (a column per seat would leave the 2-player rows
    three empty cells in a 2-5-player run): HP from the first marker + the end bonus."""
    rows = []
    for (p, f, seat), part in hp.groupby(["players", "field", "seat"], sort=False):
        row = {"players": p, "field": f, "seat": seat}
        part = part.reset_index(drop=True)
        total = _plain(ci_of(part, "goal_hp", digits=2))
        for goal, t, m, b in zip(part["goal"], total, part["marker_hp"], part["bonus_hp"]):
            row[goal] = f"{t}: {m:.2f} + {b:.2f}"
        rows.append(row)
    out = pd.DataFrame(rows)
    return out.drop(columns=["field"] if _single(hp) else [])


def _laureates_shown(t: pd.DataFrame) -> pd.DataFrame:
    out = t[["players", "field", "seat", "games"]].copy()
    out["visits per game (run)"] = ci_of(t, "visits_per_game", digits=2)
    out["win share lost, pp"] = ci_of(t, "win_lost_pp", digits=2)
    out["HP lost"] = ci_of(t, "hp_lost", digits=2)
    out["a visit's worth, pp"] = ci_of(t, "visit_win_pp", digits=2)
    out["a visit's worth, HP"] = ci_of(t, "visit_hp", digits=2)
    return out.drop(columns=["field"] if _single(t) else [])

