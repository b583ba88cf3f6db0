"""Pacing and how the game feels, by player count (docs/method.md §17): rounds, placements, the
cards the winner completed, reshuffles, empty Card Area slots and the supply (gains cut under a
limited supply, games the box would have run short of otherwise); then lead changes, the
leader after each round going on to win (lead stability) and the final margin. Every figure
from the records and block aggregates, with its interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from simcell.reports.data import ReportError, RunData, SegmentInfo
from simcell.reports.estimates import Blocks, ci_of, est_columns, fmt
from simcell.reports.intervals import bootstrap_quantile, jackknife_ratio, wilson
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import figure
from simcell.vocabulary import COMPLETED_TYPES, RESOURCES


def lead_changes(hp: np.ndarray) -> np.ndarray:
    """Lead changes per game from HP by game x step x player (the steps: after each round, then
    the final scores). The leader after a step is the player with strictly the most HP (none
    when the most is shared); a lead change is a step whose leader differs from the last step
    that had one (the first leader is no change; a shared lead keeps the last leader)."""
    games, steps, _ = hp.shape
    top = hp.max(axis=2, keepdims=True)
    sole = (hp == top).sum(axis=2) == 1
    leader = np.where(sole, hp.argmax(axis=2), -1)
    last = np.full(games, -1)
    changes = np.zeros(games, np.int64)
    for t in range(steps):
        now = leader[:, t]
        changes += (now >= 0) & (last >= 0) & (now != last)
        last = np.where(now >= 0, now, last)
    return changes


class _PacingSums:
    """A segment's pacing figures summed per block in one pass over its record parts."""

    def __init__(self, run: RunData, seg: SegmentInfo, rounds: int):
        k, p = seg.blocks, seg.players
        self.k, self.games = k, 0
        self.limited = bool(run.game["rules"]["supply_limited"])
        locations = [loc["id"] for loc in run.game["board"]["locations"]]
        placed = [f"placed_{loc}" for loc in locations]
        completed = [f"completed_{t}" for t in COMPLETED_TYPES]
        steps = [f"hp_round_{r}" for r in range(1, rounds + 1)]
        game_cols = ["reshuffles"] + [f"peak_{r}" for r in RESOURCES]
        if self.limited:
            game_cols += [f"shortfall_{r}" for r in RESOURCES]
        names = ("games", "placements", "winner_cards", "cards", "reshuffles", "lead_changes",
                 "margin", "gains_cut")
        self.sums = {n: np.zeros(k) for n in names}
        self.margin_hist: dict[int, np.ndarray] = {}
        # lead stability: after each round but the last, the sole leader's share of the win and
        # the games with a sole leader, per block
        self.lead = [(np.zeros(k), np.zeros(k)) for _ in range(1, rounds)]
        self.unique_games = np.zeros(max(rounds - 1, 0))
        self.peaks = {res: [] for res in RESOURCES}
        self.cut_games = dict.fromkeys(RESOURCES, 0)  # games with any gain of the resource cut
        self.short_games = dict.fromkeys(RESOURCES, 0)  # games whose peak passed the box's count
        self.any_cut = self.any_short = 0
        supply = run.game["board"]["supply"]
        players = run.record_parts("players", seg, placed + completed + steps + ["final_hp", "win_share"])
        for df, g in zip(players, run.record_parts("games", seg, game_cols)):
            if not np.array_equal(df["game"].to_numpy()[::p], g["game"].to_numpy()):
                raise ReportError("player and game record parts hold different games")
            by = Blocks(run.block_of_games(seg, g["game"].to_numpy()), k)
            n = len(g)
            self.games += n
            self.sums["games"] += by.totals()
            self.sums["placements"] += by.totals(df[placed].to_numpy().sum(axis=1).reshape(n, p).sum(axis=1))
            cards = df[completed].to_numpy().sum(axis=1).reshape(n, p)
            share = df["win_share"].to_numpy().reshape(n, p)
            self.sums["winner_cards"] += by.totals((cards * share).sum(axis=1))  # ties: the winners' mean
            self.sums["cards"] += by.totals(cards.sum(axis=1))
            self.sums["reshuffles"] += by.totals(g["reshuffles"].to_numpy())
            final = df["final_hp"].to_numpy().reshape(n, p)
            path = np.stack([df[c].to_numpy().reshape(n, p) for c in steps] + [final], axis=1)
            self.sums["lead_changes"] += by.totals(lead_changes(path))
            for r in range(rounds - 1):
                h = path[:, r, :]
                unique = (h == h.max(axis=1, keepdims=True)).sum(axis=1) == 1
                won = np.take_along_axis(share, h.argmax(axis=1)[:, None], axis=1)[:, 0] * unique
                self.lead[r][0][:] += by.totals(won)
                self.lead[r][1][:] += by.totals(unique.astype(float))
                self.unique_games[r] += unique.sum()
            top2 = np.sort(final, axis=1)[:, -2:]
            margin = (top2[:, 1] - top2[:, 0]).astype(np.int64)
            self.sums["margin"] += by.totals(margin)
            blocks = run.block_of_games(seg, g["game"].to_numpy())
            for v in np.unique(margin):
                self.margin_hist.setdefault(int(v), np.zeros(k))
                self.margin_hist[int(v)] += np.bincount(blocks[margin == v], minlength=k)
            short_any = np.zeros(n, bool)
            cut_any = np.zeros(n, bool)
            for j, res in enumerate(RESOURCES):
                peak = g[f"peak_{res}"].to_numpy()
                self.peaks[res].append(peak)
                short = peak > supply[j]
                self.short_games[res] += int(short.sum())
                short_any |= short
                if self.limited:
                    cut = g[f"shortfall_{res}"].to_numpy()
                    self.cut_games[res] += int((cut > 0).sum())
                    cut_any |= cut > 0
                    self.sums["gains_cut"] += by.totals(cut)
            self.any_short += int(short_any.sum())
            self.any_cut += int(cut_any.sum())

    def margin_table(self) -> tuple[np.ndarray, np.ndarray]:
        values = np.arange(min(self.margin_hist), max(self.margin_hist) + 1)
        h = np.zeros((self.k, len(values)))
        for v, c in self.margin_hist.items():
            h[:, v - values[0]] = c
        return values, h


def _empty_slots(run: RunData, seg: SegmentInfo, rounds: int) -> tuple:
    """Empty Card Area slots per game (a slot that starts a round's Phase 1 without a card: the
    deck ran dry), per block: every slot of every round less the exposures (one per card in a
    slot at the start of a Phase 1)."""
    slots = len(run.game["board"]["slot_prices"])
    offered = run.seg_blocks("offered", seg).groupby("block")["count"].sum()
    exposures = offered.reindex(range(seg.blocks), fill_value=0).to_numpy(np.float64)
    games = np.bincount(run.block_of_games(seg, np.arange(seg.games)), minlength=seg.blocks).astype(float)
    return jackknife_ratio(games * rounds * slots - exposures, games), slots


def build(run: RunData) -> Section:
    sec = Section("pacing", "Pacing and how the game feels")
    limited = bool(run.game["rules"]["supply_limited"])
    sec.text.append(
        "How a game runs at each player count, and how it feels to play: rounds (fixed by the event "
        "deck), placements per player, the cards the winner completed, reshuffles of the draw pile, "
        "Card Area slots left empty, and the supply "
        + ("(limited in this run: how often a gain was cut because the box ran out)" if limited else
           "(unlimited in this run: how often the box's components would have run out)")
        + "; then how often the lead changes hands, how often the leader after each round goes on "
        "to win, and the final margin. [Lead changes](#g-lead-change) counts a change each time "
        "the sole leader after a round (or at the final scores) is another player than the last "
        "sole leader.")
    rows, shown, feel, feel_shown, supply_rows, lead_rows = [], [], [], [], [], []
    for seg in run.segments:
        p, rounds = seg.players, run.rounds(seg.players)
        s = _PacingSums(run, seg, rounds)
        games = s.sums["games"]
        placements = jackknife_ratio(s.sums["placements"], games * p)
        winner = jackknife_ratio(s.sums["winner_cards"], games)
        cards = jackknife_ratio(s.sums["cards"], games * p)
        reshuffles = jackknife_ratio(s.sums["reshuffles"], games)
        empty, slots = _empty_slots(run, seg, rounds)
        supply = wilson(s.any_cut if limited else s.any_short, s.games)
        row = {"players": p, "field": seg.field_name, "games": s.games, "rounds": rounds,
               **est_columns("placements_per_player", placements),
               **est_columns("winner_cards_completed", winner),
               **est_columns("cards_completed_per_player", cards),
               **est_columns("reshuffles_per_game", reshuffles),
               **est_columns("empty_slots_per_game", empty),
               "supply_limited": limited,
               **est_columns("games_gains_cut_pct" if limited else "games_short_pct", supply, 100)}
        rows.append(row)
        shown.append({
            "players": p, "field": seg.field_name, "rounds": f"{rounds} (every game)",
            "placements per player": fmt(placements, 1, 1),
            "cards the winner completed": fmt(winner, 1, 2),
            "… the average player": fmt(cards, 1, 2),
            "reshuffles per game": fmt(reshuffles, 1, 3),
            f"empty slots per game (of {rounds * slots})": fmt(empty, 1, 3),
            ("games with a gain cut %" if limited else "games the box runs short %"): fmt(supply, 100, 1)})
        for j, res in enumerate(RESOURCES):
            cut = wilson(s.cut_games[res], s.games) if limited else None
            short = wilson(s.short_games[res], s.games)
            peak = np.concatenate(s.peaks[res])
            supply_rows.append({"players": p, "field": seg.field_name, "resource": res,
                                "components": run.game["board"]["supply"][j],
                                "peak_mean": float(peak.mean()),
                                # a whole number of components: the 99th percentile as one
                                "peak_p99": int(np.quantile(peak, 0.99, method="higher")),
                                "peak_max": int(peak.max()),
                                **(est_columns("games_gains_cut_pct", cut, 100) if limited else
                                   est_columns("games_short_pct", short, 100))})
        changes = jackknife_ratio(s.sums["lead_changes"], games)
        margin = jackknife_ratio(s.sums["margin"], games)
        values, h = s.margin_table()
        median = bootstrap_quantile(h, values, 0.5, run.seed)
        feel.append({"players": p, "field": seg.field_name, "games": s.games,
                     **est_columns("lead_changes_per_game", changes),
                     **est_columns("margin_mean", margin), **est_columns("margin_median", median)})
        for r in range(1, rounds):
            won, unique = s.lead[r - 1]
            lead_rows.append({"players": p, "field": seg.field_name, "after_round": r,
                              "unique_leader_share": s.unique_games[r - 1] / s.games,
                              **est_columns("leader_win_share", jackknife_ratio(won, unique))})
        feel_shown.append({"players": p, "field": seg.field_name,
                           "lead changes per game": fmt(changes, 1, 2),
                           "final margin, HP (mean)": fmt(margin, 1, 2),
                           "final margin, HP (median)": fmt(median, 1, 0)})
    single = len({r["field"] for r in rows}) == 1
    drop = ["field"] if single else []
    sec.tables.append(Table("pacing", "Pacing by player count", pd.DataFrame(rows),
                            pd.DataFrame(shown).drop(columns=drop),
                            note="Cards the winner completed: in a tie, the mean over the winners. "
                                 "Empty slots: Card Area slots that start a round without a card "
                                 "(the draw pile ran dry). Intervals: jackknife over blocks; a share "
                                 "of games, Wilson."))
    supply = pd.DataFrame(supply_rows)
    col = "games_gains_cut_pct" if limited else "games_short_pct"
    supply_shown = supply.drop_duplicates("resource")[["resource", "components"]].rename(
        columns={"components": "in the box"}).reset_index(drop=True)
    for (p, field), part in supply.groupby(["players", "field"], sort=False):
        part = part.set_index("resource").loc[supply_shown["resource"]]
        supply_shown[f"{p} players" + ("" if single else f" · {field}") + ", %"] = ci_of(
            part.reset_index(), col)
    sec.tables.append(Table(
        "supply", "Games with a gain cut by the limited supply" if limited else
        "Games the box's components would have run short", supply, supply_shown,
        note=("Share of games in which some gain of the resource was cut because the supply had "
              "run out (rules.supply_limited; the game records' shortfall columns)." if limited else
              "Share of games in which the players held more of the resource at once (cargo "
              "included) than the box holds; set rules.supply_limited to play with the box's "
              "counts.")))
    sec.tables.append(Table("feel", "How the game feels: lead changes and the final margin",
                            pd.DataFrame(feel), pd.DataFrame(feel_shown).drop(columns=drop),
                            note="Final margin: the winner's HP minus the runner-up's (0 when the "
                                 "win is shared); its median's interval is a block bootstrap."))
    lead = pd.DataFrame(lead_rows)
    sec.tables.append(Table("lead_stability", "Lead stability: does the leader after a round win?",
                            lead, lead_shown(lead),
                            note="Among games with a single leader after the round: the leader's "
                                 "share of the win.", collapsed=True))
    sec.figures.append(Figure("lead_stability", "Lead stability", lead_figure(lead),
                              "How often the sole leader after round r goes on to win (95% "
                              "intervals; the full table is folded below and in "
                              "`tables/lead_stability.csv`)."))
    return sec


def lead_shown(lead: pd.DataFrame) -> pd.DataFrame:
    return lead[["players", "field"]].assign(**{"after round": lead["after_round"]}).assign(
        **{"single leader %": (100 * lead["unique_leader_share"]).round(1),
           "leader's win share %": ci_of(lead, "leader_win_share", scale=100)})


def lead_figure(lead: pd.DataFrame):
    """How often the leader after each round goes on to win, one line per player count."""
    fig, ax = figure(figsize=(7.0, 3.6))
    for (p, f), part in lead.groupby(["players", "field"], sort=False):
        v = 100 * part["leader_win_share"].to_numpy()
        ax.errorbar(part["after_round"], v,
                    yerr=[v - 100 * part["leader_win_share_low"], 100 * part["leader_win_share_high"] - v],
                    marker="o", ms=4, capsize=3, label=f"{p} players" + ("" if lead["field"].nunique() == 1 else f" · {f}"))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
    ax.set_xlabel("after round")
    ax.set_ylabel("the leader wins (% of games)")
    ax.set_ylim(0, 100)
    ax.set_title("Does the leader after a round win?")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig

