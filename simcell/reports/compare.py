"""`simcell compare A B`: what a change does. Run B against run A, game g against game g (the
same deal, seat order and chance streams when both ran on the same seed), from the two run
directories alone: each figure side by side with the paired difference and its interval
(reports/paired.py), the headline family under Holm, the cards under Benjamini–Hochberg, and
"moved" only where the difference's interval lies wholly outside the band."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports import cards as cs
from simcell.reports.units import in_atp, load_calibration
from simcell.reports.data import HP_SOURCE_COLUMNS, RunData, SegmentInfo
from simcell.reports.estimates import BlockSums
from simcell.reports.intervals import Estimate, verdict
from simcell.reports.paired import Difference, Sums, difference, holm, jackknife_many, moved
from simcell.reports.render import Figure, Report, Section, Table, png_bytes, write_report
from simcell.reports.sections.cards import _card_sums, card_table
from simcell.reports.style import figure
from simcell.reports.estimates import interval_text
from simcell.vocabulary import CARD_TYPE_LABELS


class CompareError(Exception):
    """Two run directories that cannot be compared (one line: which and why)."""


@dataclass(frozen=True)
class Pairing:
    paired: bool
    text: str  # how the runs are paired, for the report's header


def _fields(run: RunData) -> list:
    return [{k: v for k, v in f.items() if k != "name"} for f in run.resolved["fields"]]


def pairing(a: RunData, b: RunData, unpaired: bool = False) -> Pairing:
    """Check that A and B can be compared; raise CompareError naming the first mismatch."""
    ra, rb = a.resolved, b.resolved
    pa = [(s.players, s.field) for s in a.segments]
    pb = [(s.players, s.field) for s in b.segments]
    if [p for p, _ in pa] != [p for p, _ in pb]:
        raise CompareError(f"the runs differ in player counts: A {sorted({p for p, _ in pa})}, "
                           f"B {sorted({p for p, _ in pb})}")
    if _fields(a) != _fields(b):
        raise CompareError("the runs differ in their policy fields (policies or parameters): "
                           "a comparison holds the players fixed")
    if ra["duplicate"] != rb["duplicate"]:
        raise CompareError("one run is in duplicate mode and the other is not")
    same_games = [s.games for s in a.segments] == [s.games for s in b.segments]
    same_blocks = [s.blocks for s in a.segments] == [s.blocks for s in b.segments]
    if ra["seed"] == rb["seed"] and same_games and same_blocks:
        return Pairing(True, f"paired: game g of A against game g of B (seed {ra['seed']}, the "
                             "same deals, seat orders and chance streams)")
    if not unpaired:
        why = (f"seeds {ra['seed']} and {rb['seed']}" if ra["seed"] != rb["seed"] else
               "different game or block counts")
        raise CompareError(f"the runs cannot be paired ({why}): compare them unpaired with "
                           "--unpaired, or run both on the same seed")
    return Pairing(False, f"unpaired, as asked (--unpaired): seeds {ra['seed']} and {rb['seed']}; "
                          "the two runs' variances add")


# -- per-block sums of one segment -------------------------------------------------------------
PLAYER_COLUMNS = ["win_share", "final_hp"] + HP_SOURCE_COLUMNS


class PlayerSums:
    """Per-block sums of the compared player figures' parts (seat win share and HP above the
    table, winning HP, margin, ties, HP by source), added part by part, and each player's final
    HP by game (for the correlation of paired results)."""

    def __init__(self, players: int, blocks: int):
        self.p, self.k = players, blocks
        self.seat = BlockSums(blocks, ["win_share", "above"], "seat", players)
        self.table = BlockSums(blocks, ["winning_hp", "margin", "tie"] + HP_SOURCE_COLUMNS)
        self.hp: list[np.ndarray] = []

    def add(self, df: pd.DataFrame, blocks: np.ndarray) -> None:
        """A part's rows (PLAYER_COLUMNS and seat; game-major, seat-minor), each row's block."""
        p = self.p
        hp = df["final_hp"].to_numpy(np.float64).reshape(-1, p)
        self.hp.append(hp.astype(np.int16))
        self.seat.add(blocks, df.assign(above=(hp - hp.mean(axis=1, keepdims=True)).reshape(-1)))
        top = np.sort(hp, axis=1)
        shares = df["win_share"].to_numpy().reshape(-1, p)
        per_game = pd.DataFrame({"winning_hp": top[:, -1], "margin": top[:, -1] - top[:, -2],
                                 "tie": (shares.max(axis=1) < 1).astype(float)})
        for c in HP_SOURCE_COLUMNS:  # mean per player: the table's total over p
            per_game[c] = df[c].to_numpy(np.float64).reshape(-1, p).sum(axis=1) / p
        self.table.add(blocks[::p], per_game)

    def sums(self) -> Sums:
        s = self.seat.sums.reshape(3, self.k, self.p)
        t = self.table.sums
        out: Sums = {"seat_win": s[0], "seat_above": s[1], "seat_rows": s[2], "games": t[-1],
                     "winning_hp": t[0], "margin": t[1], "tie": t[2]}
        for j, c in enumerate(HP_SOURCE_COLUMNS):
            out[c] = t[3 + j]
        return out

    def final_hp(self) -> np.ndarray:
        return np.concatenate(self.hp) if self.hp else np.zeros((0, self.p), np.int16)


def add_card_sums(sums: Sums, opening: np.ndarray, dealt: np.ndarray, acquired: np.ndarray,
                  completed: np.ndarray, exposed: np.ndarray, bought: np.ndarray) -> Sums:
    """The card figures' per-block parts (blocks x 64 card ids) added to `sums`."""
    sums.update(open_win=opening[..., 0], open_hp=opening[..., 1], dealt=dealt, acquired=acquired,
                completed=completed, exposed=exposed, bought=bought)
    return sums


def segment_sums(run: RunData, seg: SegmentInfo) -> tuple[Sums, np.ndarray]:
    """Per-block sums of every compared figure's parts, and each player's final HP by game (for
    the correlation of paired results)."""
    players = PlayerSums(seg.players, seg.blocks)
    for df in run.record_parts("players", seg, PLAYER_COLUMNS):
        players.add(df, run.block_of_games(seg, df["game"].to_numpy()))
    card = _card_sums(run, seg)
    sums = add_card_sums(players.sums(), card.opening, card.dealt, card.acquired, card.completed,
                         *_market(run, seg))
    return sums, players.final_hp()


def _market(run: RunData, seg: SegmentInfo) -> tuple[np.ndarray, np.ndarray]:
    def per_block(name):
        df = run.seg_blocks(name, seg)
        t = df.groupby(["block", "card"], observed=True)["count"].sum().unstack(fill_value=0)
        return t.reindex(index=range(seg.blocks), columns=range(64), fill_value=0).to_numpy(np.float64)

    return per_block("offered"), per_block("bought")


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den


# -- the report --------------------------------------------------------------------------------
def game_differences(a: RunData, b: RunData) -> pd.DataFrame:
    """Every card, board and rule value of B's game that differs from A's."""
    ga, gb = a.game, b.game
    rows = []
    ca, cb = {c["id"]: c for c in ga["cards"]}, {c["id"]: c for c in gb["cards"]}
    for cid in sorted(set(ca) | set(cb)):
        x, y = ca.get(cid), cb.get(cid)
        name = (y or x)["name"]
        if x is None or y is None:
            rows.append(("card", name, "(card)", "absent" if x is None else "present",
                         "present" if x is None else "absent"))
            continue
        rows += [("card", name, k, str(x[k]), str(y[k])) for k in x if x[k] != y.get(k)]
    for part in ("board", "rules"):
        for k in sorted(set(ga[part]) | set(gb[part])):
            if ga[part].get(k) != gb[part].get(k):
                rows.append((part, k, "", json.dumps(ga[part].get(k)), json.dumps(gb[part].get(k))))
    for part, key in (("events", "name"), ("goals", "name"), ("epigenetic", "name")):
        xa, xb = {e[key]: e for e in ga[part]}, {e[key]: e for e in gb[part]}
        for n in sorted(set(xa) | set(xb)):
            if xa.get(n) != xb.get(n):
                rows.append((part, n, "", json.dumps(xa.get(n)), json.dumps(xb.get(n))))
    return pd.DataFrame(rows, columns=["what", "name", "field", "A", "B"])


def _interval_text(d: Difference, idx, scale: float = 1.0, digits: int = 2) -> str:
    lo, hi = d.bounds()
    return interval_text(d.diff[idx] * scale, lo[idx] * scale, hi[idx] * scale, digits, True)


def headline_changes(seg: SegmentInfo, sa: Sums, sb: Sums, paired: bool, bands: dict) -> pd.DataFrame:
    p = seg.players
    rows = []

    def add(label, d: Difference, scale, band, unit):
        lo, hi = d.bounds()
        mv = moved(d, band / scale) if band is not None else np.zeros(len(d.diff), bool)
        for j, name in enumerate(label):
            rows.append({"players": p, "field": seg.field_name, "figure": name, "unit": unit,
                         "A": d.a[j] * scale, "B": d.b[j] * scale, "difference": d.diff[j] * scale,
                         "low": lo[j] * scale, "high": hi[j] * scale, "se": d.se[j] * scale,
                         "p_value": d.p_values()[j], "band": band, "moved": bool(mv[j])})

    seats = [("seat 0 (first player)" if s == 0 else f"seat {s}") for s in range(p)]
    add([f"{s}: win share" for s in seats],
        difference(lambda t: _ratio(t["seat_win"], t["seat_rows"]), sa, sb, paired), 100,
        bands["seat_win_share_pp"], "pp")
    add([f"{s}: HP above the table mean" for s in seats],
        difference(lambda t: _ratio(t["seat_above"], t["seat_rows"]), sa, sb, paired), 1,
        bands["hp_above_table"], "HP")
    add(["winning HP", "margin of victory", "tie rate"],
        difference(lambda t: np.array([t["winning_hp"], t["margin"], t["tie"] * 100]) / t["games"],
                   sa, sb, paired), 1, None, "HP, HP, %")
    return pd.DataFrame(rows)


def source_changes(seg: SegmentInfo, sa: Sums, sb: Sums, paired: bool) -> pd.DataFrame:
    d = difference(lambda t: np.array([t[c] for c in HP_SOURCE_COLUMNS]) / t["games"], sa, sb, paired)
    lo, hi = d.bounds()
    return pd.DataFrame({"players": seg.players, "field": seg.field_name,
                         "source": [c[3:] for c in HP_SOURCE_COLUMNS], "A": d.a, "B": d.b,
                         "difference": d.diff, "low": lo, "high": hi, "se": d.se})


def card_changes(seg: SegmentInfo, sa: Sums, sb: Sums, paired: bool, cards: pd.DataFrame,
           band: float) -> pd.DataFrame:
    ids, types = cards["id"].to_numpy(), cards["type"].to_numpy()

    def contrast(effect):
        out = np.full_like(effect, np.nan)
        for t in np.unique(types):
            idx = np.nonzero(types == t)[0]
            if len(idx) > 1:
                part = effect[idx]
                out[idx] = part - (np.nansum(part) - part) / (len(idx) - 1)
        return out

    def figures(t):
        effect = _ratio(t["open_win"][ids], t["dealt"][ids]) * 100
        return np.concatenate([effect, contrast(effect), _ratio(t["bought"][ids], t["exposed"][ids]) * 100,
                               _ratio(t["completed"][ids], t["acquired"][ids]) * 100])

    d = difference(figures, sa, sb, paired)
    lo, hi = d.bounds()
    n = len(ids)
    out = pd.DataFrame({"players": seg.players, "field": seg.field_name, "card": ids,
                        "name": cards["name"], "type": types})
    for j, name in enumerate(("open_hand_win_pp", "contrast_pp", "pick_rate_pct", "completion_pct")):
        sl = slice(j * n, (j + 1) * n)
        out[f"{name}_A"], out[f"{name}_B"] = d.a[sl], d.b[sl]
        out[f"{name}_diff"], out[f"{name}_low"], out[f"{name}_high"] = d.diff[sl], lo[sl], hi[sl]
        out[f"{name}_p"] = d.p_values()[sl]
    # where each card's contrast lies in A and in B against the band, each with its own interval
    for side, sums in (("A", sa), ("B", sb)):
        value, se, df = jackknife_many(lambda ts: figures(ts[0])[n:2 * n], [sums])
        est = [Estimate(float(v), float(e), df) for v, e in zip(value, se)]
        out[f"contrast_pp_low_{side}"] = [e.low for e in est]
        out[f"contrast_pp_high_{side}"] = [e.high for e in est]
        out[f"verdict_{side}"] = [verdict(e, band) for e in est]
    out["contrast_q"] = cs.bh_qvalues(out["contrast_pp_p"].to_numpy())
    out["effect_q"] = cs.bh_qvalues(out["open_hand_win_pp_p"].to_numpy())
    outside = {c: (out[f"{c}_low"] > band) | (out[f"{c}_high"] < -band)
               for c in ("contrast_pp", "open_hand_win_pp")}
    out["moved"] = (((out["contrast_q"] < 0.05) & outside["contrast_pp"])
                    | ((out["effect_q"] < 0.05) & outside["open_hand_win_pp"]))
    return out


def type_gaps(t: dict[str, np.ndarray], ids: np.ndarray, types: np.ndarray, names: list[str]) -> np.ndarray:
    """Each type's gap against the average card, pp: its cards' mean opening-hand effect minus
    the mean over every card dealt (cards weigh equally, as reports/cards.type_effects)."""
    effect = _ratio(t["open_win"][ids], t["dealt"][ids]) * 100
    ok = np.isfinite(effect)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a type none of whose cards was dealt
        overall = np.nanmean(np.where(ok, effect, np.nan))
        return np.array([np.nanmean(np.where(ok & (types == n), effect, np.nan)) - overall
                         for n in names])


def type_changes(seg: SegmentInfo, sa: Sums, sb: Sums, paired: bool, cards: pd.DataFrame,
                 band: float) -> pd.DataFrame:
    """Each card type's gap against the average card in A and in B (each with its own interval
    and verdict against the band `card_type_pp`) and the difference B − A with its interval. A
    type **moved** when that interval lies wholly outside the band."""
    ids, types = cards["id"].to_numpy(), cards["type"].to_numpy()
    names = list(dict.fromkeys(types))

    def gaps(t):
        return type_gaps(t, ids, types, names)

    d = difference(gaps, sa, sb, paired)
    lo, hi = d.bounds()
    out = pd.DataFrame({"players": seg.players, "field": seg.field_name, "type": names,
                        "gap_pp_A": d.a, "gap_pp_B": d.b, "gap_pp_diff": d.diff,
                        "gap_pp_low": lo, "gap_pp_high": hi, "gap_pp_p": d.p_values(),
                        "moved": moved(d, band)})
    for side, sums in (("A", sa), ("B", sb)):
        value, se, df = jackknife_many(lambda ts: gaps(ts[0]), [sums])
        est = [Estimate(float(v), float(e), df) for v, e in zip(value, se)]
        out[f"gap_pp_low_{side}"] = [e.low for e in est]
        out[f"gap_pp_high_{side}"] = [e.high for e in est]
        out[f"verdict_{side}"] = [verdict(e, band) for e in est]
    return out


def correlation(hp_a: np.ndarray, hp_b: np.ndarray) -> float:
    """Correlation of paired per-game results: each player's final HP in A and in B."""
    x, y = hp_a.astype(float).ravel(), hp_b.astype(float).ravel()
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _forest(head: pd.DataFrame, title: str):
    h = head.iloc[::-1].reset_index(drop=True)
    fig, ax = figure(figsize=(7.5, 0.32 * len(h) + 1.4))
    y = np.arange(len(h))
    for is_moved, colour in ((False, "#222222"), (True, "#cc3311")):
        part = h[h["moved"] == is_moved]
        ax.errorbar(part["difference"], part.index, fmt="o", ms=4, color=colour, capsize=2,
                    xerr=[part["difference"] - part["low"], part["high"] - part["difference"]])
    for j, band in enumerate(h["band"]):
        if pd.notna(band):  # banded figures: the band around 0 behind the row
            ax.fill_betweenx([j - 0.4, j + 0.4], -band, band, color="#228833", alpha=0.15, lw=0)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [f"{f} ({u.split(',')[0]})" for f, u in zip(h["figure"], h["unit"])], fontsize=8)
    ax.set_xlabel("B − A (95% interval)")
    ax.set_title(title)
    return fig


def _type_figure(t: pd.DataFrame, band: float, title: str):
    """Each type's gap against the average card in A (grey) and B (blue), each with its own 95%
    interval, against the band; a moved type's name in red."""
    t = t.reset_index(drop=True)
    fig, ax = figure(figsize=(7.5, 0.42 * len(t) + 1.4))
    y = np.arange(len(t))
    for side, colour, dy in (("A", "#888888", 0.14), ("B", "#0077bb", -0.14)):
        v = t[f"gap_pp_{side}"]
        ax.errorbar(v, y + dy, fmt="o", ms=4, color=colour, capsize=2, label=side,
                    xerr=[v - t[f"gap_pp_low_{side}"], t[f"gap_pp_high_{side}"] - v])
    ax.axvspan(-band, band, color="#228833", alpha=0.15)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, [CARD_TYPE_LABELS[n] for n in t["type"]], fontsize=8)
    for label, is_moved in zip(ax.get_yticklabels(), t["moved"]):
        label.set_color("#cc3311" if is_moved else "black")
    ax.invert_yaxis()
    ax.set_xlabel("gap against the average card (win share, pp; 95% interval)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title)
    return fig


def _card_forest(c: pd.DataFrame, band: float, title: str):
    """Each card's change in opening-hand effect (B − A) with its interval; moved cards in red."""
    c = c.sort_values(["type", "open_hand_win_pp_diff"]).reset_index(drop=True)
    fig, ax = figure(figsize=(7.5, 0.16 * len(c) + 1.4))
    for is_moved, colour in ((False, "#222222"), (True, "#cc3311")):
        part = c[c["moved"] == is_moved]
        d = part["open_hand_win_pp_diff"]
        ax.errorbar(d, part.index, fmt="o", ms=3, color=colour, capsize=2,
                    xerr=[d - part["open_hand_win_pp_low"], part["open_hand_win_pp_high"] - d])
    ax.axvline(0, color="black", lw=0.8)
    ax.axvspan(-band, band, color="#228833", alpha=0.15)
    ax.set_yticks(range(len(c)), c["name"], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("opening-hand effect, B − A (win share, pp; 95% interval)")
    ax.set_title(title)
    return fig


def atp_column(df: pd.DataFrame, calibration: dict | None, unit_of) -> list[str] | None:
    """Each row's difference in ATP (calibration: (players, field) -> row), or None without a
    calibration; unit_of(row) says "win" (pp of win share), "hp" (HP) or None (no ATP reading)."""
    if calibration is None:
        return None
    out = []
    for r in df.to_dict("records"):
        cal, unit = calibration.get((r["players"], r["field"])), unit_of(r)
        per = None if cal is None or unit is None else cal["win_pp_per_atp" if unit == "win" else "hp_per_atp"]
        out.append("" if per is None else in_atp(r["difference"], per))
    return out


def type_section(types: pd.DataFrame, band: float, marks: list[str] | None = None) -> Section:
    """The card types' gaps against the average card, A and B, and what moved."""
    sec = Section("types", "Card types", figures_first=True)
    mv = types[types["moved"]]
    sec.text.append(
        f"Each card type's gap against the average card (its cards' mean opening-hand effect minus "
        f"the mean over every card, as the run report's card types) in A and in B, each with its "
        f"verdict against the band ±{band:g} pp (`card_type_pp`), and the paired difference B − A. "
        f"A type **moved** when the interval of B − A lies wholly outside the band. "
        + (f"Moved: {', '.join(f'{CARD_TYPE_LABELS[r.type]} ({r.players}p · {r.field}: {r.gap_pp_A:+.2f} → {r.gap_pp_B:+.2f} pp, B − A {r.gap_pp_diff:+.2f}, {r.gap_pp_low:+.2f} to {r.gap_pp_high:+.2f})' for r in mv.itertuples())}."
           if len(mv) else "No type moved."))
    for (p, field), part in types.groupby(["players", "field"], sort=False):
        sec.figures.append(Figure(f"compare_types_{p}p_{field}", f"Card types, A and B, {p}p · {field}",
                                  png_bytes(_type_figure(part, band, f"Card types, A and B, {p}p · {field}")),
                                  f"Each type's gap against the average card in A (grey) and B (blue), "
                                  f"95% intervals; green: the band ±{band:g} pp; a moved type in red."))

    def level(side):
        return [f"{interval_text(v, lo, hi, 2, True)}, {vd}" for v, lo, hi, vd in
                zip(types[f"gap_pp_{side}"], types[f"gap_pp_low_{side}"], types[f"gap_pp_high_{side}"],
                    types[f"verdict_{side}"])]

    shown = types[["players", "field"]].assign(**{
        "type": types["type"].map(CARD_TYPE_LABELS), "A, pp": level("A"), "B, pp": level("B"),
        "B − A (95%)": [interval_text(d, lo, hi, 2, True) for d, lo, hi in
                        zip(types["gap_pp_diff"], types["gap_pp_low"], types["gap_pp_high"])],
        "moved": np.where(types["moved"], "moved", "")})
    if marks is not None:
        types = types.assign(across_skill=marks)
        shown["across skill"] = marks
    sec.tables.append(Table("types", "Card types against the average card, A and B", types, shown))
    return sec


def terminal_summary(folder: Path) -> str:
    """What `simcell compare` prints: the values changed, the headline figures and card types
    that moved, every type's gap A → B, and the cards that moved, from the report's tables."""
    t = folder / "tables"
    diffs = pd.read_csv(t / "differences.csv")
    head = pd.read_csv(t / "headline.csv")
    types = pd.read_csv(t / "types.csv")
    cards = pd.read_csv(t / "cards.csv")
    lines = [f"{len(diffs)} value(s) differ (A → B)" + (": " + ", ".join(
        f"{r.name}{'.' + r.field if isinstance(r.field, str) and r.field else ''} {r.A} → {r.B}"
        for r in diffs.head(8).itertuples()) + (" …" if len(diffs) > 8 else "") if len(diffs) else "")]

    def span(d, lo, hi):
        return interval_text(d, lo, hi, 2, True)

    mv = head[head["moved"]]
    lines.append("headline figures moved: " + ("; ".join(
        f"{r.players}p · {r.field} {r.figure} {r.A:.2f} → {r.B:.2f}, B − A {span(r.difference, r.low, r.high)}"
        for r in mv.itertuples()) if len(mv) else "none"))
    from simcell.reports.compare_skill import sentence

    lines.append(sentence(pd.read_csv(t / "across_skill.csv") if (t / "across_skill.csv").is_file() else None))
    lines.append("card types against the average card, pp (A → B, B − A with its 95% interval):")
    for r in types.itertuples():
        lines.append(f"  {r.players}p · {r.field} {CARD_TYPE_LABELS[r.type]:<25} {r.gap_pp_A:+6.2f} → "
                     f"{r.gap_pp_B:+6.2f}, B − A {span(r.gap_pp_diff, r.gap_pp_low, r.gap_pp_high)}"
                     + ("  moved" if r.moved else "")
                     + (f"  (across skill: {r.across_skill})" if isinstance(getattr(r, "across_skill", None), str) else ""))
    mc = cards[cards["moved"]]
    lines.append("cards moved: " + ("; ".join(
        f"{r.players}p · {r.field} {r.name} effect B − A "
        f"{span(r.open_hand_win_pp_diff, r.open_hand_win_pp_low, r.open_hand_win_pp_high)}"
        for r in mc.head(8).itertuples()) + (f" and {len(mc) - 8} more" if len(mc) > 8 else "")
        if len(mc) else "none"))
    return "\n".join(lines)


def build_compare(root_a: Path, root_b: Path, out: Path, unpaired: bool = False,
                  calibration: Path | None = None) -> Path:
    """Write the comparison report of run B against run A into `out`; returns `out`. With a
    `simcell calibrate` folder, differences are also stated in ATP."""
    a, b = RunData(root_a), RunData(root_b)
    cal = load_calibration(calibration) if calibration is not None else None
    pair = pairing(a, b, unpaired)
    bands = {k: float(v) for k, v in a.resolved["report"]["bands"].items()}
    cards = card_table(a)
    sec_head = Section("comparison", "What changed, and what it did")
    diffs = game_differences(a, b)
    sec_head.text.append(f"**A** = `{root_a}`, **B** = `{root_b}`; {pair.text}.")
    if diffs.empty:
        sec_head.text.append("The two runs play the same game (no card, board or rule value differs).")
    heads, sources, card_rows, type_rows, corr_rows, figs = [], [], [], [], [], []
    for seg_a, seg_b in zip(a.segments, b.segments):
        sa, hp_a = segment_sums(a, seg_a)
        sb, hp_b = segment_sums(b, seg_b)
        head = headline_changes(seg_a, sa, sb, pair.paired, bands | {"seat_win_share_pp": a.seat_band(seg_a.players)})
        heads.append(head)
        sources.append(source_changes(seg_a, sa, sb, pair.paired))
        card_rows.append(card_changes(seg_a, sa, sb, pair.paired, cards, bands["card_open_hand_pp"]))
        type_rows.append(type_changes(seg_a, sa, sb, pair.paired, cards, bands["card_type_pp"]))
        rho = correlation(hp_a, hp_b) if pair.paired and hp_a.shape == hp_b.shape else float("nan")
        corr_rows.append({"players": seg_a.players, "field": seg_a.field_name, "games": seg_a.games,
                          "rho": rho, "variance_reduction": 1 / (1 - rho) if rho == rho and rho < 1 else np.nan})
        figs.append(Figure(f"compare_{seg_a.players}p_f{seg_a.field}", f"B − A, {seg_a.label}",
                           png_bytes(_forest(head, f"B − A, {seg_a.label}")),
                           "Paired differences with 95% intervals; green: the band; red: moved "
                           "(the interval wholly outside the band)."))
    head = pd.concat(heads, ignore_index=True)
    head["p_holm"] = holm(head["p_value"].to_numpy())  # one confirmatory family over every segment
    from simcell.reports.compare_skill import across_skill, marks_for, sentence

    skill = across_skill(Path(root_a), Path(root_b))
    head_marks = marks_for(skill, head, "figure")
    if head_marks is not None:
        head["across_skill"] = head_marks
    corr = pd.DataFrame(corr_rows)
    if pair.paired:
        sec_head.text.append("Correlation of paired results (each player's final HP in A and B), and the "
                             "variance reduction 1/(1 − ρ) it gives a difference over unpaired runs: "
                             + "; ".join(f"{r.players}p · {r.field}: ρ = {r.rho:.3f}, ×{r.variance_reduction:.2f}"
                                         for r in corr.itertuples()) + ".")
    lengths = [(s.players, a.rounds(s.players), b.rounds(s.players)) for s in a.segments]
    sec_head.text.append("Game length (rounds, fixed by the event deck: the same in every game): "
                         + "; ".join(f"{p}p: {ra} in A, {rb} in B" + (" (changed)" if ra != rb else "")
                                     for p, ra, rb in dict.fromkeys(lengths)) + ".")
    sec_head.text.append(sentence(skill))
    sec_head.tables.append(Table("differences", "Card, board and rule values that differ (A → B)", diffs))
    if skill is not None:
        sec_head.tables.append(Table("across_skill", "Each seat's and card type's change under each rung",
                                     skill, csv_only=True))
    sec_head.tables.append(Table("pairing", "Correlation of paired results", corr, csv_only=True))
    sec = Section("headline", "Headline figures", figures_first=True)
    sec.text.append("Each seat's win share and HP above the table mean, winning HP, margin of victory "
                    "and tie rate, in A and B, with the difference B − A and its 95% interval. "
                    "**moved**: the interval lies wholly outside the band (seats only); p-values are "
                    "Holm-adjusted over the whole headline family.")
    sec.figures += figs
    shown = head[["players", "field", "figure"]].assign(
        A=head["A"].map(lambda v: f"{v:.2f}"), B=head["B"].map(lambda v: f"{v:.2f}"),
        **{"B − A (95%)": [interval_text(d, lo, hi, 2, True) for d, lo, hi in
                           zip(head["difference"], head["low"], head["high"])],
           "Holm p": head["p_holm"].map(lambda v: f"{v:.3g}"),
           "moved": np.where(head["moved"], "moved", "")})
    atp = atp_column(head, cal, lambda r: "win" if r["figure"].endswith("win share") else
                     "hp" if r["figure"].endswith("table mean") else None)
    if atp is not None:
        shown.insert(shown.columns.get_loc("Holm p"), "in ATP", atp)
    if head_marks is not None:
        shown["across skill"] = head_marks
    sec.tables.append(Table("headline", "Headline figures, A and B", head, shown))
    src = pd.concat(sources, ignore_index=True)
    sec.tables.append(Table("hp_by_source", "Mean HP per player by source, A and B", src,
                            src[["players", "field", "source"]].assign(
                                A=src["A"].round(3), B=src["B"].round(3),
                                **{"B − A (95%)": [interval_text(d, lo, hi, 3, True) for d, lo, hi in
                                                   zip(src["difference"], src["low"], src["high"])]}),
                            collapsed=True))
    types_all = pd.concat(type_rows, ignore_index=True)
    tsec = type_section(types_all, bands["card_type_pp"],
                        marks_for(skill, types_all.assign(figure=types_all["type"] + ": gap"), "figure"))
    allc = pd.concat(card_rows, ignore_index=True)
    csec = Section("cards", "Cards", figures_first=True)
    band = bands["card_open_hand_pp"]
    mv = allc[allc["moved"]]
    csec.text.append(f"Every card's opening-hand effect, its contrast against its type (in A and in "
                     f"B with its verdict against the band, each card on its own: the run report's "
                     f"flags also allow for testing 43 cards at once), its pick rate "
                     f"per exposure and its completion rate, in A and B. A card **moved** when its "
                     f"effect or contrast changed by more than the band ±{band:g} pp (interval wholly "
                     f"outside it) with a Benjamini–Hochberg q below 0.05 over the cards. "
                     f"{len(mv)} card(s) moved" + (": " + ", ".join(mv["name"]) + "." if len(mv) else "."))

    def ci(col, digits=1):
        return [interval_text(d, lo, hi, digits, True) for d, lo, hi in
                zip(allc[f"{col}_diff"], allc[f"{col}_low"], allc[f"{col}_high"])]

    cshown = allc[["players", "field", "name", "type"]].assign(
        type=allc["type"].map(CARD_TYPE_LABELS),
        **{"effect A → B, pp": [f"{x:+.1f} → {y:+.1f}" for x, y in zip(allc["open_hand_win_pp_A"], allc["open_hand_win_pp_B"])],
           "effect B − A": ci("open_hand_win_pp"),
           "vs type A → B, pp": [f"{x:+.1f} ({va}) → {y:+.1f} ({vb})" for x, y, va, vb in
                                 zip(allc["contrast_pp_A"], allc["contrast_pp_B"], allc["verdict_A"], allc["verdict_B"])],
           "vs type B − A": ci("contrast_pp"),
           "pick rate B − A, %": ci("pick_rate_pct"), "completed B − A, %": ci("completion_pct"),
           "moved": np.where(allc["moved"], "moved", "")})
    for (p, field), part in allc.groupby(["players", "field"], sort=False):
        csec.figures.append(Figure(f"compare_cards_{p}p_{field}", f"Cards, B − A, {p}p · {field}",
                                   png_bytes(_card_forest(part, band, f"Cards, B − A, {p}p · {field}")),
                                   f"Change in each card's opening-hand effect; green: the band "
                                   f"±{band:g} pp; red: moved."))
    atp = atp_column(allc.rename(columns={"open_hand_win_pp_diff": "difference"}), cal, lambda r: "win")
    if atp is not None:
        cshown.insert(cshown.columns.get_loc("vs type B − A"), "effect in ATP", atp)
    changed = set(diffs.loc[diffs["what"] == "card", "name"])
    top = allc["moved"] | allc["name"].isin(changed)
    if top.any():
        csec.tables.append(Table("cards_moved", "Cards changed or moved", allc[top], cshown[top]))
    csec.tables.append(Table("cards", "Every card, A and B", allc, cshown, collapsed=True))
    title = f"simcell comparison: {Path(root_b).name} against {Path(root_a).name}"
    write_report(Report(title, [sec_head, sec, tsec, csec]), out)
    return out
