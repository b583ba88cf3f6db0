"""`simcell ladder`'s report: each policy's strength at each player count, and which neighbours
separate.

Ratings: Plackett–Luce over the finishing orders. Every game is broken into the pairs of players
of different policies (a tie counts half each way); under Plackett–Luce the chance that one
player finishes above another is Bradley–Terry in their strengths whatever else is at the table,
so the pair counts fit the same strengths (full rank-breaking, consistent for Plackett–Luce).
The fit is choix's (ILSR on the pair-count matrix); its intervals are a bootstrap over blocks of
games (the same games in every field, resampled together), so the dependence of pairs within a
game and of fields on one deal is kept. Strengths are log-odds, 0 for the planner (mean zero
without it); the chance that X finishes above Y is 1 / (1 + exp(strength Y − strength X)).

Head to head: in the field "X among Y" (one X, the rest Y, X in every seat in turn), X's win
share against the fair share, and over both such fields the share of (X, Y) pairs X finishes
above. Neighbours on the ladder (by strength) **separate** when the stronger finishes above the weaker in
at least SEPARATE of their pairs with a 95% interval that excludes a half."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports.data import RunData
from simcell.reports.estimates import interval_text
from simcell.reports.intervals import jackknife_ratio
from simcell.reports.render import Figure, Report, Section, Table, write_report
from simcell.reports.style import figure
from simcell.vocabulary import LADDER_FILE
from simcell.vocabulary import TABLES_FOLDER

SEPARATE = 0.55  # the stronger policy finishes above the weaker in at least this share of pairs
BOOTSTRAP = 400  # resamples of the blocks
ALPHA = 0.5  # choix's regularisation, half a pair each way: a policy that never wins stays finite
ANCHOR = "planner"  # strengths are read against this policy (0) when it is on the ladder


def pair_counts(run: RunData, names: list[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Blocks x policies x policies: how often the row's player finished above the column's (ties
    half each way), summed over every field; and per field its own such array (keyed by name)."""
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    # one blocking of the deals for every field: game g is the same deal in each, but a field's
    # own blocks follow its rotation groups (every seat order of a mixed pool: 120 at 5 players)
    n_blocks = min(seg.blocks for seg in run.segments)
    total = np.zeros((n_blocks, k, k))
    by_field = {}
    for seg in run.segments:
        labels = np.array([index[p] for p in seg.policies])
        counts = np.zeros((n_blocks, k, k))
        for df in run.record_parts("players", seg, ["policy", "rank"]):
            p = seg.players
            games = df["game"].to_numpy()[::p]
            pol = labels[df["policy"].to_numpy().reshape(-1, p)]
            rank = df["rank"].to_numpy().reshape(-1, p)
            block = games * n_blocks // seg.games
            for i in range(p):
                for j in range(i + 1, p):
                    a, b = pol[:, i], pol[:, j]
                    other = a != b
                    win = np.where(rank[:, i] < rank[:, j], 1.0, np.where(rank[:, i] == rank[:, j], 0.5, 0.0))
                    np.add.at(counts, (block[other], a[other], b[other]), win[other])
                    np.add.at(counts, (block[other], b[other], a[other]), 1.0 - win[other])
        total += counts
        by_field[seg.field_name] = counts
    return total, by_field


def strengths(counts: np.ndarray, anchor: int | None = None) -> np.ndarray:
    """Plackett–Luce strengths from a policies x policies pair-count matrix: 0 at the anchor
    policy (else mean zero)."""
    import choix

    theta = choix.ilsr_pairwise_dense(counts, alpha=ALPHA)
    return theta - (theta[anchor] if anchor is not None else theta.mean())


def bootstrap_strengths(blocks: np.ndarray, seed: int, anchor: int | None = None,
                        draws: int = BOOTSTRAP) -> np.ndarray:
    """draws x policies: strengths refitted on blocks drawn with replacement."""
    rng = np.random.default_rng(seed)
    n = blocks.shape[0]
    return np.array([strengths(blocks[rng.integers(0, n, n)].sum(axis=0), anchor) for _ in range(draws)])


def _win_share(run: RunData, seg, policy_index: int):
    """The win share of the field's players of one policy label, per block (jackknife)."""
    num, den = np.zeros(seg.blocks), np.zeros(seg.blocks)
    for df in run.record_parts("players", seg, ["policy", "win_share"]):
        mine = df["policy"].to_numpy() == policy_index
        block = run.block_of_games(seg, df["game"].to_numpy()[mine])
        np.add.at(num, block, df["win_share"].to_numpy()[mine])
        np.add.at(den, block, 1.0)
    return jackknife_ratio(num, den)


def _ahead(counts: np.ndarray, x: int, y: int):
    """The share of (x, y) pairs x finished above, jackknifed over blocks."""
    won, played = counts[:, x, y], counts[:, x, y] + counts[:, y, x]
    return jackknife_ratio(won, played)


def ladder_tables(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(ratings, head to head, neighbours) for every player count of the ladder."""
    plan = json.loads((folder / LADDER_FILE).read_text())
    names = plan["policies"]
    ratings, heads, steps = [], [], []
    for entry in plan["runs"]:
        run = RunData(folder / entry["run"])
        p = entry["players"]
        blocks, by_field = pair_counts(run, names)
        anchor = names.index(ANCHOR) if ANCHOR in names else None
        theta = strengths(blocks.sum(axis=0), anchor)
        boot = bootstrap_strengths(blocks, plan["seed"] + p, anchor)
        low, high = np.percentile(boot, [2.5, 97.5], axis=0)
        order = np.argsort(-theta)
        for r, i in enumerate(order, 1):
            ratings.append({"players": p, "rank": r, "policy": names[i], "strength": theta[i],
                            "strength_low": low[i], "strength_high": high[i],
                            "above_anchor_pct": 100 / (1 + np.exp(-theta[i])) if anchor is not None else np.nan,
                            "games": sum(s.games for s in run.segments if names[i] in s.policies)})
        for seg in run.segments:
            distinct = list(dict.fromkeys(seg.policies))
            if not seg.field_name.endswith(tuple(f" among {y}" for y in names)) or len(distinct) != 2:
                continue
            x = seg.policies[0] if seg.field_name.startswith(seg.policies[0] + " among") else seg.policies[1]
            y = next(n for n in distinct if n != x)
            win = _win_share(run, seg, seg.policies.index(x)).scaled(100)
            ahead = _ahead(by_field[seg.field_name], names.index(x), names.index(y)).scaled(100)
            heads.append({"players": p, "field": seg.field_name, "policy": x, "among": y,
                          "win_share_pct": win.value, "win_low": win.low, "win_high": win.high,
                          "fair_pct": 100 / p, "ahead_pct": ahead.value, "ahead_low": ahead.low,
                          "ahead_high": ahead.high, "games": seg.games})
        for a, b in zip(order[:-1], order[1:]):
            share = _ahead(blocks, a, b).scaled(100)
            separate = share.value >= 100 * SEPARATE and share.low > 50
            steps.append({"players": p, "stronger": names[a], "weaker": names[b],
                          "ahead_pct": share.value, "ahead_low": share.low, "ahead_high": share.high,
                          "separate": bool(separate)})
    return pd.DataFrame(ratings), pd.DataFrame(heads), pd.DataFrame(steps)


def _figure(ratings: pd.DataFrame):
    counts = sorted(ratings["players"].unique())
    names = list(ratings.sort_values(["players", "rank"]).drop_duplicates("policy")["policy"])[::-1]
    fig, ax = figure(figsize=(7.5, 0.45 * len(names) + 1.6))
    for j, p in enumerate(counts):
        part = ratings[ratings["players"] == p].set_index("policy").reindex(names)
        y = np.arange(len(names)) + (j - (len(counts) - 1) / 2) * 0.18
        ax.errorbar(part["strength"], y, fmt="o", ms=4, capsize=2, label=f"{p} players",
                    xerr=[part["strength"] - part["strength_low"], part["strength_high"] - part["strength"]])
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(np.arange(len(names)), names, fontsize=8)
    ax.set_xlabel("strength (Plackett–Luce log-odds against the planner; 95% bootstrap interval)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(counts), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def sentences(steps: pd.DataFrame) -> list[str]:
    """Per player count: the policies from strongest to weakest, and which neighbours separate."""
    out = []
    for p, part in steps.groupby("players", sort=True):
        chain = [part.iloc[0]["stronger"]]
        for r in part.itertuples():
            mark = " > " if r.separate else " ≈ "
            chain.append(f"{mark}{r.weaker}")
        apart = [f"{r.stronger} and {r.weaker} ({interval_text(r.ahead_pct, r.ahead_low, r.ahead_high)}% ahead)"
                 for r in part.itertuples() if not r.separate]
        out.append(f"{p} players: {''.join(chain)}"
                   + (f"; not separated: {'; '.join(apart)}" if apart else "; every two neighbours separate")
                   + ".")
    return out


def ladder_sentences(folder: Path) -> list[str]:
    """What `simcell ladder` prints: the ladder per player count, from the report's table."""
    steps = pd.read_csv(folder / TABLES_FOLDER / "ladder_steps.csv")
    return sentences(steps)


def build_ladder(folder: Path) -> Path:
    plan = json.loads((folder / LADDER_FILE).read_text())
    ratings, heads, steps = ladder_tables(folder)
    sec = Section("ladder", "How strong each bot is", figures_first=True)
    sec.text.append(
        f"{len(plan['policies'])} policies at {', '.join(str(r['players']) for r in plan['runs'])} players: "
        f"every pairing (one policy among copies of another, every seat in turn) and mixed pools of "
        f"distinct policies, {plan['games']:,} games a field on the same deals (seed {plan['seed']}). "
        "Strength: Plackett–Luce over the finishing orders (choix), log-odds against the planner, "
        "95% bootstrap intervals over blocks "
        f"of games. Neighbours on the ladder separate (>) when the stronger finishes above the weaker in at least "
        f"{100 * SEPARATE:.0f}% of their pairs, the interval excluding 50%; ≈ where they do not.")
    sec.text += [f"- {s}" for s in sentences(steps)]
    if "oracle" in plan["policies"]:
        sec.text.append("The oracle plays the rollout's search on the true hidden cards and event "
                        "order, which no player sees: an upper reference for how much the hidden "
                        "information hides, not a place a player can reach.")
    sec.figures.append(Figure("ladder", "Strength by policy and player count", _figure(ratings),
                              "Each policy's Plackett–Luce strength (log-odds against the planner) "
                              "with its 95% bootstrap interval, one colour a player count."))
    sec.tables.append(Table("ladder_ratings", "Strength by player count", ratings, ratings.assign(**{
        "strength (95%)": ["0 (the reference)" if n == ANCHOR else interval_text(v, lo, hi, 2, True)
                           for n, v, lo, hi in zip(ratings["policy"], ratings["strength"],
                                                   ratings["strength_low"], ratings["strength_high"])]})[
        ["players", "rank", "policy", "strength (95%)"]].assign(**{
        "finishes above the planner, % (model)": ratings["above_anchor_pct"].round(1)})))
    sec.tables.append(Table("ladder_steps", "Neighbours on the ladder: the stronger's share of pairs finished above", steps,
                            steps.assign(**{"ahead % (95%)": [interval_text(v, lo, hi) for v, lo, hi in zip(
                                steps["ahead_pct"], steps["ahead_low"], steps["ahead_high"])],
                                "separate": np.where(steps["separate"], "yes", "no")})[
                                ["players", "stronger", "weaker", "ahead % (95%)", "separate"]]))
    if len(heads):
        sec.tables.append(Table("ladder_head_to_head", "Head to head: one policy among copies of another", heads,
                                heads.assign(**{
                                    "win share % (95%)": [interval_text(v, lo, hi) for v, lo, hi in
                                                          zip(heads["win_share_pct"], heads["win_low"], heads["win_high"])],
                                    "fair %": heads["fair_pct"].round(1),
                                    "ahead of them % (95%)": [interval_text(v, lo, hi) for v, lo, hi in
                                                              zip(heads["ahead_pct"], heads["ahead_low"], heads["ahead_high"])]})[
                                    ["players", "policy", "among", "win share % (95%)", "fair %",
                                     "ahead of them % (95%)"]]))
    write_report(Report("simcell ladder: how strong each bot is", [sec]), folder)
    return folder
