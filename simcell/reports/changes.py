"""The changes between two runs, B against A, game g against game g (the same deal, seat order and
chance streams when both ran on the same seed), from the two run directories alone: whether they
can be paired, per-block sums of every compared figure's parts, the values that differ, and each
figure's paired difference with its interval (paired.py): seats, HP by source, card types and
cards, "moved" only where the difference's interval lies wholly outside the band. `simcell
compare`, `sweep`, `tune`, `seats` and the studio all measure their changes here."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simcell.reports import cards as cs
from simcell.reports.card_table import card_sums
from simcell.reports.data import HP_SOURCE_COLUMNS, RunData, SegmentInfo
from simcell.reports.estimates import BlockSums
from simcell.reports.intervals import IN_BAND, INCONCLUSIVE, Estimate, verdict, watched_t
from simcell.reports.paired import Difference, Sums, difference, jackknife_many, moved
from simcell.reports.units import in_atp
from simcell.vocabulary import RESOURCES


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
    card = card_sums(run, seg)
    sums = add_card_sums(players.sums(), card.opening, card.dealt, card.acquired, card.completed,
                         *_market(run, seg))
    return sums, players.final_hp()


def _market(run: RunData, seg: SegmentInfo) -> tuple[np.ndarray, np.ndarray]:
    def per_block(name):
        df = run.seg_blocks(name, seg)
        t = df.groupby(["block", "card"], observed=True)["count"].sum().unstack(fill_value=0)
        return t.reindex(index=range(seg.blocks), columns=range(64), fill_value=0).to_numpy(np.float64)

    return per_block("offered"), per_block("bought")


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den


# -- what differs, and what moved -------------------------------------------------------------
# lists of this many amounts under these keys are one amount per resource (vocabulary.RESOURCES)
RESOURCE_VECTORS = ("cost", "gain", "supply")
UNNAMED_LISTS = ("locations", "spots")  # left out of a path, as a config's overrides leave them


def value_text(v) -> str:
    """A config value as a designer writes it in TOML: true, "marker" as marker, [4, 4, 3, 2]."""
    if isinstance(v, bool):
        return str(v).lower()
    if v is None:
        return "none"
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def _key_of(item) -> str | None:
    """How an entry of a list of tables is named in a config path: its id (a board location),
    its label (a spot) or its name (an event's, goal's or card's)."""
    if isinstance(item, dict):
        for k in ("id", "label", "name"):
            if isinstance(item.get(k), str):
                return item[k]
    return None


def _path_part(name: str) -> str:
    """A path component, quoted as a TOML key when it is not a bare key ("Insulin Receptor")."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name, ensure_ascii=False)


def leaf_differences(a, b, path: str) -> list[tuple[str, str, str]]:
    """Every value that differs between `a` and `b` as (path, old, new), down to the smallest
    part a designer sets: a board spot's gain of one resource, not the whole board. Tables are
    walked by key, lists of named tables by name, a resource vector by resource; a short list of
    numbers (per player count, per seat) stays whole."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in list(a) + [k for k in b if k not in a]:
            out += leaf_differences(a.get(k), b.get(k), f"{path}.{_path_part(str(k))}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        keys_a, keys_b = [_key_of(x) for x in a], [_key_of(x) for x in b]
        if a and b and None not in keys_a + keys_b and len(set(keys_a)) == len(a) and len(set(keys_b)) == len(b):
            xa, xb = dict(zip(keys_a, a)), dict(zip(keys_b, b))
            # a config names a board spot board.mitochondria.c, without the lists that hold it
            head = path.rsplit(".", 1)[0] if path.rsplit(".", 1)[-1] in UNNAMED_LISTS else path
            out = []
            for k in keys_a + [k for k in keys_b if k not in xa]:
                out += leaf_differences(xa.get(k), xb.get(k), f"{head}.{_path_part(k)}")
            return out
        last = path.rsplit(".", 1)[-1]
        if last in RESOURCE_VECTORS and len(a) == len(b) == len(RESOURCES):
            return [(f"{path}.{r}", value_text(x), value_text(y)) for r, x, y in zip(RESOURCES, a, b) if x != y]
        if len(a) == len(b) and any(isinstance(x, (dict, list)) for x in a + b):
            out = []
            for i, (x, y) in enumerate(zip(a, b)):
                out += leaf_differences(x, y, f"{path}.{i}")
            return out
    return [(path, value_text(a), value_text(b))]


def game_differences(a: RunData, b: RunData) -> pd.DataFrame:
    """Every card, board, rule, event, goal and epigenetic value of B's game that differs from
    A's, one row per value as a config path (`cards."Insulin".atp`,
    `board.mitochondria.c.gain.atp`) with its value in A and in B (`what`, `name`, `field`: the
    part of the game, the card or table, and the rest of the path)."""
    ga, gb = a.game, b.game
    rows = []
    ca, cb = {c["id"]: c for c in ga["cards"]}, {c["id"]: c for c in gb["cards"]}
    for cid in sorted(set(ca) | set(cb)):
        x, y = ca.get(cid), cb.get(cid)
        name = (y or x)["name"]
        if x is None or y is None:
            rows.append(("card", name, "", f"cards.{_path_part(name)}",
                         "absent" if x is None else "present", "present" if x is None else "absent"))
            continue
        for path, old, new in leaf_differences({k: v for k, v in x.items() if k != "name"},
                                               {k: v for k, v in y.items() if k != "name"},
                                               f"cards.{_path_part(name)}"):
            rows.append(("card", name, path.split(".", 2)[2] if path.count(".") >= 2 else "",
                         path, old, new))
    for part in ("board", "rules", "events", "goals", "epigenetic"):
        for path, old, new in leaf_differences(ga[part], gb[part], part):
            rest = path.split(".", 1)[1] if "." in path else ""
            name, _, field = rest.partition(".")
            rows.append((part, name, field, path, old, new))
    return pd.DataFrame(rows, columns=["what", "name", "field", "path", "A", "B"])


def difference_lines(diffs: pd.DataFrame) -> list[str]:
    """Each value that differs as `path: old → new`."""
    return [f"{r.path}: {r.A} → {r.B}" for r in diffs.itertuples()]


def headline_changes(seg: SegmentInfo, sa: Sums, sb: Sums, paired: bool, bands: dict,
                     looks: int = 1) -> pd.DataFrame:
    p = seg.players
    rows = []

    def add(label, d: Difference, scale, band, unit):
        lo, hi = d.bounds()
        mv = moved(d, band / scale) if band is not None else np.zeros(len(d.diff), bool)
        for j, name in enumerate(label):
            rows.append({"players": p, "field": seg.field_name, "figure": name,
                         "unit": unit[j] if isinstance(unit, list) else unit,
                         "A": d.a[j] * scale, "B": d.b[j] * scale, "difference": d.diff[j] * scale,
                         "low": lo[j] * scale, "high": hi[j] * scale, "se": d.se[j] * scale,
                         "p_value": d.p_values()[j], "band": band, "moved": bool(mv[j])})

    seats = [("seat 0 (first player)" if s == 0 else f"seat {s}") for s in range(p)]
    add([f"{s}: win share" for s in seats],
        difference(lambda t: ratio(t["seat_win"], t["seat_rows"]), sa, sb, paired, looks), 100,
        bands["seat_win_share_pp"], "pp")
    add([f"{s}: HP above the table mean" for s in seats],
        difference(lambda t: ratio(t["seat_above"], t["seat_rows"]), sa, sb, paired, looks), 1,
        bands["hp_above_table"], "HP")
    add(["winning HP", "margin of victory", "tie rate"],
        difference(lambda t: np.array([t["winning_hp"], t["margin"], t["tie"] * 100]) / t["games"],
                   sa, sb, paired, looks), 1, None, ["HP", "HP", "%"])
    return pd.DataFrame(rows)


def source_changes(seg: SegmentInfo, sa: Sums, sb: Sums, paired: bool, looks: int = 1) -> pd.DataFrame:
    d = difference(lambda t: np.array([t[c] for c in HP_SOURCE_COLUMNS]) / t["games"], sa, sb, paired,
                   looks)
    lo, hi = d.bounds()
    return pd.DataFrame({"players": seg.players, "field": seg.field_name,
                         "source": [c[3:] for c in HP_SOURCE_COLUMNS], "A": d.a, "B": d.b,
                         "difference": d.diff, "low": lo, "high": hi, "se": d.se})


def card_changes(seg: SegmentInfo, sa: Sums, sb: Sums, paired: bool, cards: pd.DataFrame,
                 band: float, looks: int = 1) -> pd.DataFrame:
    ids, types = cards["id"].to_numpy(), cards["type"].to_numpy()

    def contrast(effect):  # pp, against the type's reference as the run report (cards.type_reference)
        return cs.within_type_contrast(effect, types, cs.reference_scale(band) * 100)

    def figures(t):
        effect = ratio(t["open_win"][ids], t["dealt"][ids]) * 100
        return np.concatenate([effect, contrast(effect), ratio(t["bought"][ids], t["exposed"][ids]) * 100,
                               ratio(t["completed"][ids], t["acquired"][ids]) * 100])

    d = difference(figures, sa, sb, paired, looks)
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
        est = side_estimates(value, se, df, looks if side == "B" else 1)
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
    effect = ratio(t["open_win"][ids], t["dealt"][ids]) * 100
    ok = np.isfinite(effect)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a type none of whose cards was dealt
        overall = np.nanmean(np.where(ok, effect, np.nan))
        return np.array([np.nanmean(np.where(ok & (types == n), effect, np.nan)) - overall
                         for n in names])


def type_changes(seg: SegmentInfo, sa: Sums, sb: Sums, paired: bool, cards: pd.DataFrame,
                 band: float, looks: int = 1) -> pd.DataFrame:
    """Each card type's gap against the average card in A and in B (each with its own interval
    and verdict against the band `card_type_pp`) and the difference B − A with its interval. A
    type **moved** when that interval lies wholly outside the band."""
    ids, types = cards["id"].to_numpy(), cards["type"].to_numpy()
    names = list(dict.fromkeys(types))

    def gaps(t):
        return type_gaps(t, ids, types, names)

    d = difference(gaps, sa, sb, paired, looks)
    lo, hi = d.bounds()
    out = pd.DataFrame({"players": seg.players, "field": seg.field_name, "type": names,
                        "gap_pp_A": d.a, "gap_pp_B": d.b, "gap_pp_diff": d.diff,
                        "gap_pp_low": lo, "gap_pp_high": hi, "gap_pp_p": d.p_values(),
                        "moved": moved(d, band)})
    for side, sums in (("A", sa), ("B", sb)):
        value, se, df = jackknife_many(lambda ts: gaps(ts[0]), [sums])
        est = side_estimates(value, se, df, looks if side == "B" else 1)
        out[f"gap_pp_low_{side}"] = [e.low for e in est]
        out[f"gap_pp_high_{side}"] = [e.high for e in est]
        out[f"verdict_{side}"] = [verdict(e, band) for e in est]
    return out


def side_estimates(value: np.ndarray, se: np.ndarray, df: int, looks: int = 1) -> list[Estimate]:
    """One run's figures as Estimates; watched over `looks` when its games are still arriving."""
    if looks <= 1:
        return [Estimate(float(v), float(e), df) for v, e in zip(value, se)]
    q = watched_t(looks, df)
    return [Estimate(float(v), float(e), df, bounds=(float(v - q * e), float(v + q * e)))
            for v, e in zip(value, se)]


def correlation(hp_a: np.ndarray, hp_b: np.ndarray) -> float:
    """Correlation of paired per-game results: each player's final HP in A and in B."""
    x, y = hp_a.astype(float).ravel(), hp_b.astype(float).ravel()
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


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


UP, DOWN = "moved up", "moved down"


def change_class(diff: float, low: float, high: float, band: float) -> str:
    """A change against its band: moved (its interval wholly outside the band, with its side),
    within the band (wholly inside), or inconclusive."""
    if low > band:
        return UP
    if high < -band:
        return DOWN
    if -band <= low and high <= band:
        return IN_BAND
    return INCONCLUSIVE
