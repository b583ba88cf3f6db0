"""The summary at the top of the report: a few plain sentences in game terms, each with its
numbers and intervals and a link to its section. Every sentence is written from the tables the
other sections show (their CSV data), so the summary cannot say what the sections do not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simcell.reports.data import RunData
from simcell.reports.estimates import interval_text
from simcell.reports import across_skill
from simcell.reports.intervals import IN_BAND, OUT_OF_BAND
from simcell.reports.measured import (  # noqa: F401  (changes: tests read it here too)
    Measured,
    changes,
    exploit_sentences,
    ladder_sentences,
)
from simcell.reports.render import Section
from simcell.reports.seat_table import rounds_held
from simcell.vocabulary import CARD_TYPE_PLURALS

# card types as a designer names them in a sentence (plural): one name per type everywhere
TYPE_PLURALS = CARD_TYPE_PLURALS
SOURCE_PHRASES = {
    "goal_marker": "goal markers",
    "goal_bonus": "goal bonuses",
    "receptor_bonus": "receptor bonuses",
    "event": "events",
    "start": "starting HP",
}
COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


def _ci(value: float, low: float, high: float, digits: int = 1, sign: bool = False, unit: str = "") -> str:
    return interval_text(value, low, high, digits, sign, unit)


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _source_phrase(src: str) -> str:
    return SOURCE_PHRASES.get(src, f"completed {TYPE_PLURALS.get(src, src)}")


def run_sentence(run: RunData) -> str:
    """What was played, in a designer's words."""
    counts = sorted({s.players for s in run.segments})
    fields = sorted({s.field_name for s in run.segments})
    who = (f"between {fields[0]} bots" if len(fields) == 1 else
           f"in {len(fields)} fields of bots ({', '.join(fields)})")
    diffs = run.meta.get("card_differences")
    cards = ("the shipped card set" if diffs == [] else
             f"the shipped card set with {len(diffs)} card value(s) changed" if diffs else
             "the run's card set")
    n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}- to {counts[-1]}"
    return (f"Built on **{run.meta['games']:,} games** of {n}-player Cytosis {who}, on {cards} "
            "(a reconstruction: no public source lists the real card values). "
            "[What was run](#header).")


def seat_sentences(seats: pd.DataFrame, sources: pd.DataFrame, band: str) -> list[str]:
    """From the seats section's tables `seat_advantage` and `seat_hp_sources` (CSV data)."""
    if seats.empty:
        return []
    out, frags, out_of_band = [], [], []
    groups = list(seats.groupby(["players", "field"], sort=False))
    two = seats["field"].nunique() > 1
    for (p, field), part in groups:
        part = part.set_index("seat")
        first, last = part.loc[0], part.loc[p - 1]
        share = _ci(first["win_share_pp"], first["win_share_pp_low"], first["win_share_pp_high"], unit="%")
        # every other seat out of band, by name: seat 1's own lead is a finding too
        others = part[(part.index > 0) & (part["verdict"] == OUT_OF_BAND)]
        rest = (f"; seat{'s' if len(others) > 1 else ''} " + ", ".join(
            f"{int(s)} {r['above_fair_pp']:+.1f}" for s, r in others.iterrows()) + " pp from the fair share"
            if len(others) else "")
        at = f"{p} players" + (f", {field}" if two else "")
        frags.append(f"{share} of {p}-player games against a fair {100 / p:.0f}% (the last seat: "
                     f"{last['win_share_pp']:.1f}%{rest})" if len(groups) == 1 else
                     f"{share} at {at} (fair {100 / p:.0f}%{rest})")
        if (part["verdict"] == OUT_OF_BAND).any():
            out_of_band.append(p)
    verdict = (f"no seat is shown out of the {band} band" if not out_of_band else
               f"out of the {band} band" + (f" at {out_of_band[0]} players" if len(groups) == 1 else
                                                   " at every player count" if len(out_of_band) == len(groups)
                                                   else " at " + _join([str(p) for p in out_of_band]) + " players"))
    out.append("The first player (seat 0) wins " + "; ".join(frags) + f": {verdict}. [Seat advantage](#seats).")
    # where the first player's lead comes from, at the count with the largest lead
    lead = seats[seats["seat"] == 0].sort_values("hp_above_table", ascending=False).iloc[0]
    p, field = int(lead["players"]), lead["field"]
    src = sources[(sources["players"] == p) & (sources["field"] == field) & (sources["seat"] == 0)].iloc[0]
    by_src = {c[len("hp_above_table_"):]: src[c] for c in src.index
              if c.startswith("hp_above_table_") and not c.endswith(("_low", "_high", "_se"))}
    main = max(by_src, key=lambda k: by_src[k])
    c = f"hp_above_table_{main}"
    counts = seats["players"].nunique()
    where = (f"At {p} players, the largest of its leads over the {counts} player counts (the seat "
             "section has each)," if counts > 1 else f"At {p} players")
    out.append(
        f"{where} the first player ends {_ci(lead['hp_above_table'], lead['hp_above_table_low'], lead['hp_above_table_high'], 2, True)} "
        f"HP above its table's mean, most of it from {_source_phrase(main)} "
        f"({_ci(src[c], src[c + '_low'], src[c + '_high'], 2, True)} HP). [Where the seat gap comes from](#seats).")
    return out


def marker_sentence(marker: pd.DataFrame, by_round: pd.DataFrame, seats: pd.DataFrame) -> list[str]:
    """From the seats section's `seat_marker` and `seat_marker_by_round` tables."""
    if marker.empty:
        return []
    lead = seats[seats["seat"] == 0].sort_values("hp_above_table", ascending=False).iloc[0]
    p, field = int(lead["players"]), lead["field"]
    m = marker[(marker["players"] == p) & (marker["field"] == field) & (marker["seat"] == 0)].iloc[0]
    r = by_round[(by_round["players"] == p) & (by_round["field"] == field) & (by_round["seat"] == 0)]
    held = rounds_held(r.sort_values("round")["holder_share"].to_numpy())
    holds = (f"holds the First Player Marker at the start of {held} in most {p}-player games" if held
             else f"rarely holds the First Player Marker in {p}-player games")
    return [f"The first player {holds}, so it reaches Laureates and the goal cards first; "
            f"{100 * m['laureates_retake_share']:.0f}% of its Laureates placements are made while "
            "it already holds the marker. [Levers](#seats)."]


def goal_sentence(first: pd.DataFrame, worth: pd.DataFrame, seats: pd.DataFrame) -> list[str]:
    """From the goals section's `goals_first` and `laureates_worth` tables, at the player count
    (and field) whose first player leads most: the goal that takes the game's first marker, who
    places it, and what one Laureates visit is worth to the player who makes it."""
    if first.empty or seats.empty:
        return []
    lead = seats[seats["seat"] == 0].sort_values("hp_above_table", ascending=False).iloc[0]
    p, field = int(lead["players"]), lead["field"]
    f = first[(first["players"] == p) & (first["field"] == field) & first["claimed_first_pct"].notna()]
    if f.empty:
        return []
    top = f.sort_values("claimed_first_pct", ascending=False).iloc[0]
    by_seat = {s: top.get(f"by_seat_{s}_pct", np.nan) for s in range(p)}
    seat = max(by_seat, key=lambda s: -1.0 if pd.isna(by_seat[s]) else by_seat[s])
    words = (f"At {p} players the game's first goal marker goes on {top['goal']} in "
             f"{interval_text(top['claimed_first_pct'], top['claimed_first_pct_low'], top['claimed_first_pct_high'], unit='%')} "
             f"of games, placed by seat {seat} in {by_seat[seat]:.0f}% of them")
    w = worth[(worth["players"] == p) & (worth["field"] == field)] if len(worth) else worth
    every = w[w["seat"].astype(str) == "all"] if len(w) else w
    if len(every):
        a = every.iloc[0]
        ends = w.assign(seat=w["seat"].astype(str)).set_index("seat")
        edge = (f" (seat 0: {ends.loc['0', 'visit_win_pp']:.1f} pp; seat {p - 1}: "
                f"{ends.loc[str(p - 1), 'visit_win_pp']:.2f})" if {"0", str(p - 1)} <= set(ends.index) else "")
        words += (f"; one Laureates visit is worth "
                  f"{interval_text(a['visit_win_pp'], a['visit_win_pp_low'], a['visit_win_pp_high'])} pp "
                  f"of win share and {interval_text(a['visit_hp'], a['visit_hp_low'], a['visit_hp_high'], 2)} "
                  f"HP to the player who makes it{edge}")
    return [words + ". [Goals](#goals)."]


def type_sentence(types: pd.DataFrame, band: float) -> list[str]:
    """From the cards section's `card_types` table."""
    if types.empty:
        return []
    out_t = types[types["verdict"] == OUT_OF_BAND]
    if out_t.empty:
        shown_in = types[types["verdict"] == IN_BAND]
        return [f"No card type is shown out of the ±{band:g} pp band against the mean of all cards "
                f"({len(shown_in)} of {len(types)} type figures are shown inside it). "
                "[Card types](#cards)."]
    parts = []
    segments = types[["players", "field"]].drop_duplicates()
    two = types["field"].nunique() > 1
    for t, part in out_t.groupby("type", sort=False):
        part = part.sort_values(["players", "field"])
        more = "more" if part["gap_pp"].mean() > 0 else "less"
        if len(segments) == 1 or len(part) == 1:
            r = part.iloc[0]  # one segment: named once, at the head of the sentence
            vals = (f"{_ci(r.gap_pp, r.gap_pp_low, r.gap_pp_high, 1, True)} pp"
                    + (f" at {_where(r, two)}" if len(segments) > 1 else ""))
        else:
            lo, hi = part.loc[part["gap_pp"].abs().idxmin()], part.loc[part["gap_pp"].abs().idxmax()]
            what = "player counts and fields" if two and types["players"].nunique() > 1 else \
                "fields" if two else "player counts"
            vals = (f"out of band at {len(part)} of {len(segments)} {what}, from {lo.gap_pp:+.1f} pp "
                    f"({_where(lo, two)}) to {hi.gap_pp:+.1f} pp ({_where(hi, two)})")
        parts.append((abs(part["gap_pp"]).max(), f"{TYPE_PLURALS.get(t, t)} are worth {more} than the "
                      f"average card: {vals}"))
    parts.sort(key=lambda x: -x[0])
    text = "; ".join(p for _, p in parts)
    at = f" at {_where(segments.iloc[0], two)}" if len(segments) == 1 else ""
    return [f"Card types out of band{at}: {text} (a player dealt one in the opening hand wins this "
            f"much more or less often than one dealt the average card; band ±{band:g} pp). "
            "[Card types](#cards)."]


def _where(row, two: bool) -> str:
    """Where a figure was measured: its player count, and its field when the run has two."""
    return f"{int(row['players'])} players" + (f", {row['field']} field" if two else "")


def _holder(card) -> str:
    """What being dealt the card does against an average player, in words: a card strong
    against its type can still lose (its whole type is weak)."""
    e = card["open_hand_win_pp"]
    return (f"a player dealt it wins {abs(e):.1f} pp {'more' if e > 0 else 'less'} often than "
            "the average player")


def card_sentence(cards: pd.DataFrame, band: float) -> list[str]:
    """From the cards section's `card_strength` table."""
    if cards.empty:
        return []
    out = []
    two = cards["field"].nunique() > 1
    for (_p, _field), part in cards.groupby(["players", "field"], sort=False):
        flagged = part[part["flagged"]]
        n = len(part)
        ranked = part[np.isfinite(part["contrast_pp"])].sort_values("contrast_pp")
        strong, weak = ranked.iloc[-1], ranked.iloc[0]
        head = (f"{len(flagged)} of {n} cards are out of line within their type" if len(flagged)
                else f"No card is shown out of line within its type (0 of {n})")

        def against(c) -> str:  # the card's contrast, naming the cards it is measured against
            return (f"{_ci(c['contrast_pp'], c['contrast_pp_low'], c['contrast_pp_high'], 1, True)} pp "
                    f"against the other {TYPE_PLURALS.get(c['type'], c['type'])}; {_holder(c)}")

        out.append(f"{head} at {_where(part.iloc[0], two)} (band ±{band:g} pp); the strongest against its "
                   f"type is {strong['name']} ({against(strong)}), the weakest {weak['name']} ({against(weak)}).")
    if len(out) > 2:  # one sentence for many player counts
        counts = cards.groupby("players")["flagged"].sum()
        n = cards.groupby("players").size().iloc[0]
        if not counts.any():
            return [f"No card is shown out of line within its type at any player count (band "
                    f"±{band:g} pp, {n} cards). [Cards](#cards)."]
        return [f"Cards out of line within their type (band ±{band:g} pp): "
                + ", ".join(f"{int(v)} at {p} players" for p, v in counts.items())
                + f" of {n}. [Cards](#cards)."]
    out[-1] += " [Cards](#cards)."
    return out


def verdict_sentence(verdicts: pd.DataFrame, card_verdicts: pd.DataFrame,
                     types: pd.DataFrame) -> list[str]:
    """One answer first: in balance or not, by which figures, at which counts (the verdicts
    section's `verdicts` and `card_verdicts` tables)."""
    if verdicts.empty:
        return []
    two = verdicts["field"].nunique() > 1
    out = []
    for (p, field), part in verdicts.groupby(["players", "field"], sort=False):
        where = f"{p} players" + (f" ({field})" if two else "")
        cv = card_verdicts[(card_verdicts["players"] == p) & (card_verdicts["field"] == field)]
        bad = [WHAT[f] for f in part.loc[part["verdict"] == OUT_OF_BAND, "figure"] if f in WHAT]
        tv = types[(types["players"] == p) & (types["field"] == field)] if len(types) else types
        if len(tv) and "card types" in bad:
            bad[bad.index("card types")] = f"{int((tv['verdict'] == OUT_OF_BAND).sum())} of {len(tv)} card types"
        if len(cv) and int(cv["out of band"].iloc[0]):
            bad.append(f"{int(cv['out of band'].iloc[0])} of {int(cv['cards'].iloc[0])} cards within their type")
        unsure = (part["verdict"] != IN_BAND).any() or (len(cv) and int(cv["inconclusive"].iloc[0]))
        out.append(f"**not in balance** at {where}: out of band are {_join(bad)}" if bad else
                   f"**not shown in balance** at {where} (no figure is out of band; some need more games)"
                   if unsure else f"**in balance** at {where}: every headline figure and card is shown in band")
    return ["This game is " + "; ".join(out) + ". [Verdicts](#verdicts)."]


# the verdicts table's figures, as the verdict sentence names them
WHAT = {"seat win share − fair share (pp)": "the seats' win shares",
        "seat HP − table mean": "the seats' HP",
        "card type − average card (pp)": "card types"}


def build(run: RunData, tables: dict[str, pd.DataFrame], bands: dict[str, float],
          measured: Measured | None = None) -> Section:
    """The summary from the other sections' tables (name -> CSV data), and the sizes the tool
    folders in `measured` give its changes."""
    sec = Section("findings", "Findings")
    empty = pd.DataFrame()
    # the answer first, then what it is built on, in one item
    answer = verdict_sentence(tables.get("verdicts", empty), tables.get("card_verdicts", empty),
                              tables.get("card_types", empty))
    played = run_sentence(run)
    sentences = [answer[0].removesuffix(" [Verdicts](#verdicts).") + " " + played] if answer else [played]
    sentences.append(across_skill.sentence(tables.get(across_skill.TABLE)))
    if measured is not None:  # the field's place on a bot ladder, when a ladder folder is given
        sentences += ladder_sentences(measured, [(s.players, s.field_name, s.policies[0])
                                               for s in run.segments if len(set(s.policies)) == 1])
    sentences += seat_sentences(tables.get("seat_advantage", empty), tables.get("seat_hp_sources", empty),
                                bands["seat_win_share"])
    if "seat_advantage" in tables:
        sentences += marker_sentence(tables["seat_marker"], tables["seat_marker_by_round"],
                                     tables["seat_advantage"])
        sentences += goal_sentence(tables.get("goals_first", empty), tables.get("laureates_worth", empty),
                                   tables["seat_advantage"])
    sentences += type_sentence(tables.get("card_types", empty), bands["card_type_pp"])
    sentences += card_sentence(tables.get("card_strength", empty), bands["card_open_hand_pp"])
    if run.resolved["report"].get("exploit"):
        sentences += exploit_sentences(Path(run.resolved["report"]["exploit"]), run.meta)
    sec.text += [f"- {s}" for s in sentences]
    todo = changes(tables, Path(run.meta["config"]).name if run.meta.get("config") else "CONFIG", measured)
    if todo:
        sec.text.append("What to change first, largest first: each a direction, and how far where a "
                        "tool has measured it, else the command that measures it "
                        f"(`simcell tune {Path(run.meta.get('config') or 'CONFIG').name}` proposes values "
                        "for every card at once; `simcell report RUN --measured FOLDER` reads a tool's folder):")
        sec.text += [f"{i}. {t}" for i, t in enumerate(todo, 1)]
    for note in measured.skipped if measured else []:
        sec.text.append(f"- {note}.")
    return sec
