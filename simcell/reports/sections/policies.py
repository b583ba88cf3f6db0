"""Policies: the (policy, seat) balance table, HP distributions per policy, and ratings from a
conditional logit on the winner with policy and seat effects (docs/method.md: a pairwise win
matrix is undefined at more than two players)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from simcell.reports.data import RunData, SegmentInfo
from simcell.reports.estimates import ci_text
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import figure, policy_colours

MAX_RATING_GAMES = 100_000  # the rating model is fitted on the first games of a segment


def ratings(df: pd.DataFrame, seg: SegmentInfo) -> pd.DataFrame | None:
    """Conditional logit on the outright winner (games with a tie are left out) with policy and
    seat effects, the first policy the reference; None when it cannot be fitted."""
    from statsmodels.discrete.conditional_models import ConditionalLogit

    p = seg.players
    d = df.iloc[: MAX_RATING_GAMES * p]  # rows are game-major, seat-minor
    tied = ((d["win_share"].to_numpy().reshape(-1, p) > 0).sum(axis=1) > 1).repeat(p)
    d = d[~tied]
    if d["game"].nunique() < 50:
        return None
    x = pd.DataFrame(index=d.index)
    for i, name in enumerate(seg.policies[1:], start=1):
        x[f"policy: {name}"] = (d["policy"] == i).astype(float)
    for s in range(1, seg.players):
        x[f"seat {s}"] = (d["seat"] == s).astype(float)
    y = (d["win_share"] == 1).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = ConditionalLogit(y.to_numpy(), x.to_numpy(), groups=d["game"].to_numpy()).fit(disp=0)
    ci = fit.conf_int(0.05)
    rows = [{"term": f"policy: {seg.policies[0]} (reference)", "log_odds": 0.0, "low": np.nan,
             "high": np.nan, "se": np.nan}]
    for j, term in enumerate(x.columns):
        rows.append({"term": term, "log_odds": fit.params[j], "low": ci[j, 0], "high": ci[j, 1],
                     "se": fit.bse[j]})
    out = pd.DataFrame(rows)
    out.insert(0, "games", int(d["game"].nunique()))
    return out


def build(run: RunData) -> Section:
    sec = Section("policies", "Policies")
    sec.text.append(
        "Who played: each field's policies, the (policy, seat) balance table (every policy in "
        "every seat equally often, over complete rotation blocks), final HP per policy, and, in "
        "mixed fields, ratings: a conditional logit on the outright winner of each game with "
        "policy and seat effects (log-odds against the field's first policy; games with a tied "
        f"win are left out; fitted on the first {MAX_RATING_GAMES:,} games of a segment)."
    )
    all_names = [n for s in run.segments for n in s.policies]
    colours = policy_colours(all_names)
    balance_rows, rating_frames, dists = [], [], []
    for seg in run.segments:
        p, n_pol = seg.players, len(seg.policies)
        # part file by part file: counts, final-HP counts and the rating model's first games
        counts, hp_counts, head, head_rows = np.zeros(n_pol * p, np.int64), None, [], 0
        for df in run.record_parts("players", seg, ["policy", "win_share", "final_hp"]):
            counts += np.bincount(df["policy"].to_numpy(np.int64) * p + df["seat"].to_numpy(np.int64),
                                  minlength=n_pol * p)
            hp_counts = _merge_hp_counts(hp_counts, _hp_counts(df, seg))
            if head_rows < MAX_RATING_GAMES * p:
                head.append(df)
                head_rows += len(df)
        counts = counts.reshape(n_pol, p)
        for i, name in enumerate(seg.policies):
            balance_rows.append({"players": seg.players, "field": seg.field_name, "policy": name,
                                 **{f"seat {s}": int(counts[i, s]) for s in range(p)}})
        dists.append((seg, hp_counts))
        if not seg.homogeneous:
            r = ratings(pd.concat(head, ignore_index=True), seg)
            if r is not None:
                r.insert(0, "field", seg.field_name)
                r.insert(0, "players", seg.players)
                rating_frames.append(r)
    bal = pd.DataFrame(balance_rows).fillna(0)
    sec.tables.append(Table("policy_seat_balance", "Games per policy and seat", bal,
                            note="Rotation: complete rotation groups only (games are rounded up "
                                 "to whole rotations), so no reweighting is needed."))
    if rating_frames:
        rt = pd.concat(rating_frames, ignore_index=True)
        shown = rt[["players", "field", "games", "term"]].assign(
            **{"log-odds of winning (95%)": ci_text(rt["log_odds"], rt["low"], rt["high"], digits=3,
                                                    sign=True)})
        sec.tables.append(Table("policy_ratings", "Policy ratings (conditional logit on the winner)",
                                rt, shown))
    else:
        sec.text.append("Every field of this run is homogeneous (one policy in every seat): "
                        "there is nothing to rate.")
    # with one policy in every seat the figure compares nothing: on screen only, not in print
    alone = all(s.homogeneous for s in run.segments) and len({s.policies for s in run.segments}) == 1
    sec.figures.append(Figure("final_hp_by_policy", "Final HP per policy", _hp_figure(dists, colours),
                              "Distribution of final HP per player, by policy and field"
                              + (" (on screen only: one policy played)." if alone else "."),
                              printed=not alone))
    return sec


def _hp_counts(df: pd.DataFrame, seg: SegmentInfo) -> tuple[int, list[np.ndarray]]:
    """(lowest final HP, per policy label the players at each final HP from it): what the
    figure draws, kept instead of the segment's records."""
    hp = df["final_hp"].to_numpy(np.int64)
    policy = df["policy"].to_numpy()
    lo = int(hp.min())
    width = int(hp.max()) - lo + 1
    return lo, [np.bincount(hp[policy == code] - lo, minlength=width) for code in range(len(seg.policies))]


def _merge_hp_counts(a, b):
    """Sum of two _hp_counts results (None is nothing yet)."""
    if a is None:
        return b
    lo = min(a[0], b[0])
    width = max(a[0] + len(a[1][0]), b[0] + len(b[1][0])) - lo
    out = []
    for ca, cb in zip(a[1], b[1]):
        c = np.zeros(width, np.int64)
        c[a[0] - lo: a[0] - lo + len(ca)] += ca
        c[b[0] - lo: b[0] - lo + len(cb)] += cb
        out.append(c)
    return lo, out


def _hp_figure(dists, colours):
    fig, ax = figure(figsize=(7.5, 4.2))
    lo = min(low for _, (low, _) in dists)
    hi = max(low + len(c[0]) - 1 for _, (low, c) in dists)
    values = np.arange(lo, hi + 1)
    styles = ["-", "--", ":", "-."]
    for i, (seg, (low, counts)) in enumerate(dists):
        for code, name in enumerate(seg.policies):
            h = np.zeros(len(values), np.int64)
            h[low - lo: low - lo + len(counts[code])] = counts[code]
            ax.step(values, 100 * h / max(1, int(counts[code].sum())), where="mid", color=colours[name],
                    ls=styles[i % len(styles)], label=f"{name} ({seg.players}p {seg.field_name})")
    ax.set_xlabel("final HP")
    ax.set_ylabel("players (%)")
    ax.set_title("Final HP per policy")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # beside: off the lines
    return fig
