"""Game shape: winning HP and margin of victory, ties, spot occupancy by round and pick order,
vesicles lost, flasks exhausted, event effects from the random event order and resource flows
that balance (lead stability and the supply are in the pacing section)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcell.vocabulary import RESOURCES
from simcell.reports.data import ReportError, RunData, SegmentInfo
from simcell.reports.estimates import Blocks, ci_of, est_columns, fmt
from simcell.reports.intervals import bootstrap_quantile, jackknife, jackknife_ratio, wilson
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import figure, pretty

OCCUPANCY_COLUMNS = 4  # panels side by side in the spot occupancy figure


class _BlockHistogram:
    """Per-block counts of an integer figure, added part by part."""

    def __init__(self, k: int):
        self.k = k
        self.counts: dict[int, np.ndarray] = {}

    def add(self, blocks: np.ndarray, values: np.ndarray) -> None:
        lo = int(values.min())
        width = int(values.max()) - lo + 1
        h = np.bincount((values - lo) * self.k + blocks, minlength=width * self.k).reshape(width, self.k)
        for j in np.nonzero(h.sum(axis=1))[0]:
            v = lo + int(j)
            self.counts[v] = self.counts.get(v, 0) + h[j]

    def table(self) -> tuple[np.ndarray, np.ndarray]:
        """(values min .. max, blocks x values counts)."""
        values = np.arange(min(self.counts), max(self.counts) + 1)
        h = np.zeros((self.k, len(values)))
        for v, c in self.counts.items():
            h[:, v - values[0]] = c
        return values, h


class _ShapeSums:
    """What the shape figures need from a segment's records, summed per block in one pass over
    the player and game records, part file by part file (memory does not grow with the run);
    nothing is kept per game."""

    PLAYER_COLUMNS = ["final_hp", "win_share", "vesicles_lost", "flasks_exhausted", "grey_used"]

    def __init__(self, run: RunData, seg: SegmentInfo, rounds: int):
        k, self.events = seg.blocks, run.game["events"]
        self.games = 0
        self.n_block = np.zeros(k)
        self.sums = {name: np.zeros(k) for name in ("winning_hp", "margin", "vesicles_lost",
                                                     "flasks_exhausted", "grey_used")}
        self.hist = {"winning_hp": _BlockHistogram(k), "margin": _BlockHistogram(k)}
        self.ties = 0
        self.event_sums = {ev["id"]: [np.zeros(k) for _ in range(4)] for ev in self.events}
        self.event_games = {ev["id"]: 0 for ev in self.events}
        cols = self.PLAYER_COLUMNS
        game_cols = ["tie"] + [f"event_{j}" for j in range(len(self.events))]
        for df, g in zip(run.record_parts("players", seg, cols), run.record_parts("games", seg, game_cols)):
            if not np.array_equal(df["game"].to_numpy()[:: seg.players], g["game"].to_numpy()):
                raise ReportError("player and game record parts hold different games")
            self._add(run, seg, rounds, df, g)

    def _add(self, run, seg, rounds, df, g) -> None:
        p, k = seg.players, seg.blocks
        blocks = run.block_of_games(seg, g["game"].to_numpy())
        by_block = Blocks(blocks, k)
        self.games += len(blocks)
        self.n_block += by_block.totals()
        hp = df["final_hp"].to_numpy().reshape(-1, p)
        top2 = np.sort(hp, axis=1)[:, -2:]
        for name, v in (("winning_hp", top2[:, 1]), ("margin", top2[:, 1] - top2[:, 0])):
            self.sums[name] += by_block.totals(v.astype(float))
            self.hist[name].add(blocks, v.astype(np.int64))
        for col in ("vesicles_lost", "flasks_exhausted", "grey_used"):
            self.sums[col] += by_block.totals(df[col].to_numpy().reshape(-1, p).sum(axis=1).astype(float))
        self.ties += int(g["tie"].sum())
        # event timing: table HP when the event comes in the first or the second half of the deck
        order = g[[f"event_{j}" for j in range(len(self.events))]].to_numpy()
        in_deck = (order >= 0).sum(axis=1)
        table = hp.sum(axis=1).astype(float)
        # position of each event id in each game's deck (-1: set aside); an id appears at most once
        ids = [ev["id"] for ev in self.events]
        pos_of = np.full((len(order), max(ids) + 1), -1)
        gi, j = np.nonzero(order >= 0)
        pos_of[gi, order[gi, j]] = j
        for ev in self.events:
            pos = pos_of[:, ev["id"]]
            present = pos >= 0
            early = present & (pos < in_deck / 2)
            late = present & (pos >= in_deck / 2)
            for acc, w in zip(self.event_sums[ev["id"]], (table * early, early * 1.0, table * late, late * 1.0)):
                acc += by_block.totals(w)
            self.event_games[ev["id"]] += int(present.sum())


def build(run: RunData) -> Section:
    sec = Section("shape", "Game shape")
    sec.text.append(
        "Winning HP and the margin of victory (winner minus runner-up; 0 when the win is split), "
        "ties, where and when flasks go, events and resource flows (the pacing section has the "
        "lead, the supply and the rest of how a game runs; Notes on method says how each "
        "interval is made). The full tables are folded at the end of the section."
    )
    summary, shown_rows, event_rows, flow_rows = [], [], [], []
    hists = []
    for seg in run.segments:
        p = seg.players
        rounds = run.rounds(p)
        sums = _ShapeSums(run, seg, rounds)
        n_block = sums.n_block
        row = {"players": p, "field": seg.field_name, "games": sums.games}
        shown = {"players": p, "field": seg.field_name}  # the games are on the front sheet
        for name in ("winning_hp", "margin"):
            mean = jackknife_ratio(sums.sums[name], n_block)
            values, h = sums.hist[name].table()
            med = bootstrap_quantile(h, values, 0.5, run.seed)
            row.update(est_columns(f"{name}_mean", mean))
            row.update(est_columns(f"{name}_median", med))
            shown[f"{name.replace('_', ' ').replace('hp', 'HP')} mean"] = fmt(mean, 1, 2)
            shown[f"{name.replace('_', ' ').replace('hp', 'HP')} median"] = fmt(med, 1, 0)
            hists.append((seg, name, values, h.sum(axis=0)))
        tie = wilson(sums.ties, sums.games)
        row.update(est_columns("tie_rate", tie))
        shown["ties %"] = fmt(tie, 100, 2)
        for name, col in (("vesicles lost", "vesicles_lost"), ("flasks exhausted", "flasks_exhausted"),
                          ("grey flasks", "grey_used")):
            e = jackknife_ratio(sums.sums[col], n_block * p)
            row.update(est_columns(col + "_per_player", e))
            shown[f"{name} per player"] = fmt(e, 1, 3)
        summary.append(row)
        shown_rows.append(shown)
        event_rows += _events(seg, sums)
        flow_rows += _flows(run, seg)
    sec.tables.append(Table("game_shape", "Winning HP, margin, ties, losses", pd.DataFrame(summary),
                            pd.DataFrame(shown_rows)))
    sec.figures.append(Figure("winning_hp_margin", "Winning HP and margin of victory",
                              _hist_figure(hists), "Distributions over games."))
    occ_tables, occ_fig = _occupancy(run)
    sec.tables += occ_tables
    sec.figures.append(occ_fig)
    ev = pd.DataFrame(event_rows)
    if len(ev):
        sec.tables.append(Table("event_effects", "Event effects (random event order)", ev,
                                _event_shown(ev),
                                note="Mean table HP (final HP summed over the players) when the "
                                     "event is revealed in the first half of the event deck minus "
                                     "when it comes in the second half; the order is random, so the "
                                     "difference is causal for the event's timing.", collapsed=True))
    flows = pd.DataFrame(flow_rows)
    sec.tables.append(Table("resource_flows", "Resource flows balance", flows,
                            flows.rename(columns=lambda c: c.replace("_minus_", " − ").replace("_", " ")),
                            note="Per resource over all players: everything gained minus everything "
                                 "spent equals the final personal stock.", collapsed=True))
    return sec


def _events(seg: SegmentInfo, sums: _ShapeSums) -> list[dict]:
    rows = []
    for ev in sums.events:
        te, ne, tl, nl = sums.event_sums[ev["id"]]
        e_early = jackknife_ratio(te, ne)
        e_late = jackknife_ratio(tl, nl)

        def diff(a, b, c, d):
            return a / b - c / d

        e = jackknife(diff, te, ne, tl, nl)
        rows.append({"players": seg.players, "field": seg.field_name, "event": ev["name"],
                     "games_with_event": sums.event_games[ev["id"]], "table_hp_early": e_early.value,
                     "table_hp_late": e_late.value, **est_columns("early_minus_late", e)})
    return rows


def _event_shown(ev: pd.DataFrame) -> pd.DataFrame:
    return ev[["players", "field", "event", "games_with_event"]].assign(
        **{"table HP, early": ev["table_hp_early"].round(2), "table HP, late": ev["table_hp_late"].round(2),
           "early − late": ci_of(ev, "early_minus_late", digits=2, sign=True)})


def _flows(run: RunData, seg: SegmentInfo) -> list[dict]:
    flows = run.seg_blocks("flows", seg)
    final_stock = dict.fromkeys(RESOURCES, 0)
    for df in run.record_parts("players", seg, [f"stock_{r}" for r in RESOURCES]):
        for res in RESOURCES:
            final_stock[res] += int(df[f"stock_{res}"].sum())
    rows = []
    for res in RESOURCES:
        f = flows[flows["resource"] == res]
        names = f["flow"].astype(str)
        gained = int(f.loc[names.str.startswith("gain_"), "amount"].sum())
        spent = int(f.loc[names.str.startswith("spend_"), "amount"].sum())
        final = final_stock[res]
        loaded = int(f.loc[names == "cargo_loaded", "amount"].sum())
        returned = int(f.loc[names == "cargo_returned", "amount"].sum())
        lost = int(f.loc[names == "cargo_lost", "amount"].sum())
        rows.append({"players": seg.players, "field": seg.field_name, "resource": res,
                     "gained": gained, "spent": spent, "gained_minus_spent": gained - spent,
                     "final_stock": final, "balances": gained - spent == final,
                     "cargo_loaded": loaded, "cargo_returned": returned, "cargo_lost": lost,
                     "cargo_left_on_vesicles": loaded - returned - lost})
    return rows


def _occupancy(run: RunData):
    occ = run.blocks("occupancy")
    spot_names = [f"{loc['id']} {chr(97 + i)}" if len(loc["spots"]) > 1 else loc["id"]
                  for loc in run.game["board"]["locations"] for i in range(len(loc["spots"]))]
    tables, mats = [], []
    for seg in run.segments:
        o = occ[(occ["players"] == seg.players) & (occ["field"] == seg.field)]
        by = o.groupby(["spot", "round"])["count"].sum().unstack(fill_value=0)
        by = by.reindex(index=range(len(spot_names)), fill_value=0)
        share = by / seg.games
        w = (o.assign(w=o["pick"] * o["count"]).groupby(["block", "spot"])["w"].sum()
             .unstack(fill_value=0).reindex(index=range(seg.blocks), columns=range(len(spot_names)),
                                            fill_value=0))
        per_block = (o.groupby(["block", "spot"])["count"].sum().unstack(fill_value=0)
                     .reindex(index=range(seg.blocks), columns=range(len(spot_names)), fill_value=0))
        games = np.bincount(run.block_of_games(seg, np.arange(seg.games)), minlength=seg.blocks)
        ests = [jackknife_ratio(per_block[c].to_numpy(np.float64), games) for c in per_block.columns]
        picks = [jackknife_ratio(w[c].to_numpy(np.float64), per_block[c].to_numpy(np.float64))
                 for c in per_block.columns]
        t = pd.DataFrame({"players": seg.players, "field": seg.field_name, "spot": spot_names,
                          "placements_per_game": [e.value for e in ests],
                          "placements_per_game_low": [e.low for e in ests],
                          "placements_per_game_high": [e.high for e in ests],
                          "mean_pick_order": [e.value for e in picks],
                          "mean_pick_order_low": [e.low for e in picks],
                          "mean_pick_order_high": [e.high for e in picks]})
        tables.append(t)
        mats.append((seg, share))
    occ_table = pd.concat(tables, ignore_index=True)
    shown = occ_table[["players", "field", "spot"]].assign(
        **{"placements per game": ci_of(occ_table, "placements_per_game", digits=3),
           "mean pick order": ci_of(occ_table, "mean_pick_order", digits=2)})
    # the panels share their rows (the spots): named once, left of each row of panels, which
    # wraps after OCCUPANCY_COLUMNS panels; constrained layout keeps the names off the panels
    ncols = min(len(mats), OCCUPANCY_COLUMNS)
    nrows = -(-len(mats) // ncols)
    fig, axes = figure(nrows=nrows, ncols=ncols, squeeze=False, layout="constrained",
                       figsize=(max(6.0, 1.9 + 3.2 * ncols), 0.4 + nrows * (1.0 + 0.18 * len(spot_names))))
    for i, ax in enumerate(axes.flat):
        if i >= len(mats):
            ax.set_visible(False)
            continue
        seg, share = mats[i]
        im = ax.imshow(share.to_numpy(), aspect="auto", cmap="viridis", vmin=0, vmax=1,
                       interpolation="nearest")
        ax.set_yticks(range(len(spot_names)), [pretty(n) for n in spot_names], fontsize=7)
        ax.tick_params(axis="y", labelleft=i % ncols == 0)
        ax.set_xticks(range(share.shape[1]), [str(c) for c in share.columns], fontsize=7)
        ax.set_xlabel("round")
        ax.set_title(seg.label, fontsize=10)
        ax.grid(False)
    fig.colorbar(im, ax=axes.flat[: len(mats)], label="share of games with the spot taken")
    fig.suptitle("Spot occupancy by round")
    return ([Table("spot_occupancy", "Spot occupancy and pick order", occ_table, shown,
                   note="Pick order: the placement's position among all placements of its round "
                        "(0 = first).", collapsed=True)],
            Figure("spot_occupancy", "Spot occupancy by round", fig,
                   "Share of games in which each spot was taken, by round."))


def _hist_figure(hists):
    fig, axes = figure(ncols=2, figsize=(10, 3.8), squeeze=False)
    for seg, name, values, counts in hists:
        ax = axes[0][0 if name == "winning_hp" else 1]
        ax.step(values, 100 * counts / counts.sum(), where="mid", label=seg.label)
    axes[0][0].set_xlabel("winning HP")
    axes[0][1].set_xlabel("margin of victory (HP)")
    for ax in axes[0]:
        ax.set_ylabel("games (%)")
    # one legend for both panels (the same segments, in the same colours), beside them: inside,
    # it would cover a distribution
    axes[0][1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes[0][0].set_title("Winning HP")
    axes[0][1].set_title("Margin of victory")
    return fig
