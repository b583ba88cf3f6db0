"""The front sheet: one printed page a reviewer reads in two minutes without simcell. The verdict
at each player count, the seat chart and the card-type chart, what to change first in words (the
commands are in the findings below it), and what was played: the game's content hash and rule
switches, the date the games were played, how many, by which bots. Every term links to the
glossary. Written last, from the other sections' tables, like the findings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports import across_skill
from simcell.reports.data import RunData
from simcell.reports.glossary import link
from simcell.reports.intervals import IN_BAND, INCONCLUSIVE, OUT_OF_BAND
from simcell.reports.measured import Measured, changes
from simcell.reports.render import Figure, Section, Table
from simcell.reports.style import figure, type_label

SEAT_COLOURS = ("#332288", "#4477aa", "#66ccee", "#88ccaa", "#bbbbbb")  # seat 0 darkest
COUNT_MARKERS = ("o", "s", "D", "^", "v", "P")
# seats in turn order, in words (a cell that opens with a word is read, and aligned, as text)
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
FRONT_CHANGES = 3  # what to change first on the front sheet (the findings list up to four)


def _seats_cell(part: pd.DataFrame) -> str:
    """A player count's seats in words: the verdict and the seat furthest from fair."""
    worst = part.loc[part["above_fair_pp"].abs().idxmax()]
    verdicts = set(part["verdict"])
    word = (OUT_OF_BAND if OUT_OF_BAND in verdicts else IN_BAND if verdicts == {IN_BAND} else INCONCLUSIVE)
    return f"{ORDINALS[int(worst['seat'])]} seat {worst['above_fair_pp']:+.1f} pp, {word}"


def verdict_table(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per player count (and field): the verdict, the seats, the card types, the cards
    within their type, and how many verdicts hold across skill."""
    empty = pd.DataFrame()
    seats = tables.get("seat_advantage", empty)
    types = tables.get("card_types", empty)
    cards = tables.get("card_verdicts", empty)
    skill = tables.get(across_skill.TABLE)
    two = seats["field"].nunique() > 1 if len(seats) else False
    rows = []
    keys = (types if len(types) else seats)[["players", "field"]].drop_duplicates()
    for p, field in keys.itertuples(index=False):
        row = {"players": int(p)} | ({"field": field} if two else {})
        s = seats[(seats["players"] == p) & (seats["field"] == field)] if len(seats) else empty
        t = types[(types["players"] == p) & (types["field"] == field)] if len(types) else empty
        c = cards[(cards["players"] == p) & (cards["field"] == field)] if len(cards) else empty
        # a run with no homogeneous field has no seat verdicts: its cards and types still decide
        out = (len(s) and (s["verdict"] == OUT_OF_BAND).any()) or (t["verdict"] == OUT_OF_BAND).any() or \
            (len(c) and int(c["out of band"].iloc[0]) > 0)
        settled = (len(s) == 0 or (s["verdict"] == IN_BAND).all()) and (t["verdict"] == IN_BAND).all() and \
            (len(c) == 0 or int(c["inconclusive"].iloc[0]) == 0)
        row["in balance?"] = "no" if out else "yes" if settled else "not shown (more games)"
        row["seat furthest from fair"] = _seats_cell(s) if len(s) else "no homogeneous field"
        undecided = int((t["verdict"] == INCONCLUSIVE).sum())
        row["card types out of band"] = (f"{int((t['verdict'] == OUT_OF_BAND).sum())} of {len(t)}"
                                         + (f" ({undecided} undecided)" if undecided else ""))
        if len(c):
            row["cards out of band in their type"] = (f"{int(c['out of band'].iloc[0])} of "
                                                      f"{int(c['cards'].iloc[0])} ({int(c['inconclusive'].iloc[0])} "
                                                      "undecided)")
        if skill is not None and len(skill):
            k = skill[skill["players"] == p]
            row["across skill: hold · bot-dependent · undecided"] = (
                f"{int((k['across_skill'] == across_skill.HOLDS).sum())} · "
                f"{int((k['across_skill'] == across_skill.SKILL_DEPENDENT).sum())} · "
                f"{int((k['across_skill'] == INCONCLUSIVE).sum())}")
        rows.append(row)
    return pd.DataFrame(rows)


def _seat_panel(ax, seats: pd.DataFrame, bands: dict[int, float]) -> None:
    """Win share by seat at every player count: each seat's bar with its simultaneous 95%
    interval, the fair share dashed over its player count's bars and the band around it."""
    groups = list(seats.groupby(["players", "field"], sort=False))
    two = seats["field"].nunique() > 1
    x0, ticks, names = 0.0, [], []
    for (p, field), part in groups:
        part = part.sort_values("seat")
        x = x0 + np.arange(len(part))
        v = part["win_share_pp"].to_numpy()
        ax.bar(x, v, 0.8, color=[SEAT_COLOURS[min(s, len(SEAT_COLOURS) - 1)] for s in part["seat"]])
        ax.errorbar(x, v, yerr=[v - part["win_share_pp_low"], part["win_share_pp_high"] - v],
                    fmt="none", ecolor="black", capsize=1.5, lw=0.7)
        fair, band = 100 / p, bands[int(p)]
        ax.fill_between([x[0] - 0.5, x[-1] + 0.5], fair - band, fair + band, color="#228833", alpha=0.25, lw=0)
        ax.plot([x[0] - 0.5, x[-1] + 0.5], [fair, fair], color="black", ls="--", lw=0.9)
        ticks += list(x)
        names += [str(int(s) + 1) for s in part["seat"]]
        ax.text(x.mean(), -0.13, f"{p}p" + (f"\n{field}" if two else ""), ha="center", va="top",
                transform=ax.get_xaxis_transform(), fontsize=8)
        x0 = x[-1] + 1.8
    ax.set_xticks(ticks, names, fontsize=7)
    ax.set_xlim(-0.7, x0 - 1.1)
    ax.set_ylim(0, max(100.0, float(seats["win_share_pp_high"].max()) + 2))
    ax.set_ylabel("win share (%)", fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title("Seats: who wins, in turn order", fontsize=9)
    ax.grid(axis="x", visible=False)


def _type_panel(ax, types: pd.DataFrame, band: float) -> None:
    """Each card type against the average card at every player count: a point and its 95%
    interval per count, the band shaded around zero."""
    names = list(dict.fromkeys(types["type"]))
    groups = list(types.groupby(["players", "field"], sort=False))
    two = types["field"].nunique() > 1
    step = 0.72 / max(len(groups), 1)
    for i, ((p, field), part) in enumerate(groups):
        part = part.set_index("type").reindex(names)
        y = np.arange(len(names)) - 0.36 + step * (i + 0.5)
        v = part["gap_pp"].to_numpy()
        ax.errorbar(v, y, xerr=[v - part["gap_pp_low"], part["gap_pp_high"] - v], fmt=COUNT_MARKERS[i % 6],
                    ms=2.8, capsize=1, lw=0.7, color=f"C{i}",
                    label=f"{p}p" + (f" · {field}" if two else ""))
    ax.axvspan(-band, band, color="#228833", alpha=0.25, lw=0)
    ax.axvline(0, color="black", lw=0.7)
    ax.set_yticks(range(len(names)), [type_label(t) for t in names], fontsize=7)  # black: legible in print
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel("pp of win share when dealt one", fontsize=8)
    ax.set_title("Card types against the average card", fontsize=9)
    ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, handlelength=1)


def front_charts(seats: pd.DataFrame, types: pd.DataFrame, seat_bands: dict[int, float], type_band: float):
    """The seat chart and the card-type chart side by side, drawn at the size they print (the
    width of an A4 page): one figure, so both fit the front sheet with the verdict and the
    changes, and neither is shrunk below a legible type size."""
    panels = [k for k, d in (("seats", seats), ("types", types)) if len(d)]
    fig, axes = figure(ncols=len(panels), figsize=(7.3, 3.1), squeeze=False,
                       gridspec_kw={"width_ratios": [1.0, 1.0][:len(panels)]})
    for ax, kind in zip(axes[0], panels):
        if kind == "seats":
            _seat_panel(ax, seats, seat_bands)
        else:
            _type_panel(ax, types, type_band)
    fig.tight_layout(w_pad=1.5)
    return fig


def _rules_words(rules: dict) -> str:
    """The rule switches as a designer says them."""
    words = [f"turn order {rules['turn_order']}",
             "the marker holder " + ("may" if rules["laureates_holder_may_take"] else "may not")
             + " retake Laureates",
             f"{rules['grey_per_player']} grey flask a player a round",
             "limited supply" if rules["supply_limited"] else "unlimited supply",
             "epigenetic cards" if rules["epigenetic"] else "no epigenetic cards",
             f"ties {rules['tie_rule']}"]
    if rules.get("two_player_remove_detox"):
        words.append("2 players: Detoxification cards removed")
    if rules.get("laureates_once_each"):  # runs before the switch have none
        words.insert(2, "no second Laureates visit until every player has made one")
    if any(rules.get("starting_hp_by_seat", ())):
        words.insert(2, f"starting HP by seat {list(rules['starting_hp_by_seat'])}")
    if rules.get("first_marker_hp"):
        words.insert(2, f"first goal markers worth {list(rules['first_marker_hp'])} HP by claim order")
    if rules.get("goals_open_round", 1) > 1:
        words.insert(2, f"goal cards closed until round {rules['goals_open_round']}")
    if rules.get("laureates_marker_only"):
        words.insert(2, "Laureates gives no goal marker")
    order = rules.get("placement_order", "clockwise")
    if order != "clockwise":
        words.insert(1, {"snake_round": "placement order reversed every other round",
                         "snake_pass": "placement order reversed after each pass round the table"
                         }.get(order, f"placement order {order}"))
    return ", ".join(words)


def played_line(run: RunData, tables: dict[str, pd.DataFrame]) -> str:
    """What was played, on which game, when and by which bots."""
    m = run.meta
    counts = sorted({s.players for s in run.segments})
    games = sorted({s.games for s in run.segments})
    per = (f"{games[0]:,} games at each player count" if len(games) == 1 else
           "; ".join(f"{s.games:,} at {s.label}" for s in run.segments))
    diffs = m.get("card_differences")
    cards = ("the shipped card set" if diffs == [] else
             f"the shipped card set with {len(diffs)} card value{'s' if len(diffs) != 1 else ''} changed"
             if diffs else "the run's card set")
    bots = "; ".join(f"{f['policy']} in every seat" if "policy" in f else
                     f"{f['name']}: " + ", ".join(f.get("seats") or f.get("pool", []))
                     for f in run.resolved["fields"])
    skill = tables.get(across_skill.TABLE)
    rungs = ([c.removesuffix("_verdict") for c in skill.columns if c.endswith("_verdict")]
             if skill is not None and len(skill) else [])
    date = (m.get("completed") or m.get("created") or "")[:10]
    return (f"**{Path(m['config']).name if m.get('config') else 'run'}**, "
            f"{', '.join(map(str, counts))} players: {per}, played {date or 'on an unrecorded date'} "
            f"by {link('bots', 'bots')}: {bots}"
            + (f"; every verdict checked again under the {link('rungs', 'rungs')} {', '.join(rungs)}"
               if len(rungs) > 1 else "")
            + f". Game: {cards} (a reconstruction, not the published values), {link('content-hash')} "
            f"`{run.resolved['game']['content_hash'][:12]}`; rules: {_rules_words(run.game['rules'])}; "
            f"simcell {run.resolved['simcell_version']}. [What was run](#header).")


def build(run: RunData, tables: dict[str, pd.DataFrame], bands: dict, measured: Measured | None = None) -> Section:
    """The front sheet from the other sections' tables."""
    sec = Section("summary", "Summary", page=True)
    sec.text.append(played_line(run, tables))
    sec.text.append(
        f"Each figure is judged against a {link('band', 'tolerance band')}: {link('in-band')}, "
        f"{link('out-of-band')} or {link('inconclusive')}. Seats: {link('win-share')} against the "
        f"{link('fair-share')} (band {bands['seat_win_share']}); card types: "
        f"{link('type-gap', 'against the average card')} (band ±{bands['card_type_pp']:g} pp); cards: "
        f"{link('contrast', 'against their type')} (band ±{bands['card_open_hand_pp']:g} pp). "
        f"[Glossary](#glossary).")
    verdicts = verdict_table(tables)
    if len(verdicts):
        sec.tables.append(Table("front_verdicts", "The verdict at each player count", verdicts,
                                note=f"Numbers in brackets elsewhere are {link('interval', '95% intervals')}. "
                                     "[Verdicts](#verdicts), [Verdicts across skill](#skill)."))
    seats = tables.get("seat_advantage", pd.DataFrame())
    types = tables.get("card_types", pd.DataFrame())
    if len(seats) or len(types):
        band_by = {s.players: run.seat_band(s.players) for s in run.segments}
        sec.figures.append(Figure(
            "front_charts", "Seats and card types", front_charts(seats, types, band_by, bands["card_type_pp"]),
            "Left: each seat's win share at 2p (2 players) to 5p, seat 1 playing first; 95% intervals "
            "over the seats together; dashed: "
            f"the fair share; green: the band. Right: each type against the average card; green: ±"
            f"{bands['card_type_pp']:g} pp. [Seat advantage](#seats), [Card types](#cards)."))
    todo = changes(tables, "", measured, commands=False)[:FRONT_CHANGES]
    if todo:
        sec.text_after.append("**What to change first**, largest first (how far, and the commands "
                              "that measure it: [Findings](#findings)):")
        sec.text_after += [f"{i}. {t}" for i, t in enumerate(todo, 1)]
    return sec
