"""The report's header and provenance (what was run, on what, by which code), and its notes
(where the report departs from docs/method.md, and why)."""

from __future__ import annotations

import pandas as pd

from simcell.reports.data import RunData
from simcell.reports.glossary import entries as glossary_entries
from simcell.reports.render import Section, Table

def card_differences(run: RunData) -> pd.DataFrame | None:
    """Card values of the run that differ from the set shipped with the simcell that ran it, as
    the run directory records them (None for a run directory made before simcell recorded it)."""
    rows = run.meta.get("card_differences")
    if rows is None:
        return None
    return pd.DataFrame(rows, columns=["card", "field", "shipped", "run"])


def build(run: RunData) -> Section:
    m, r = run.meta, run.resolved
    sec = Section("header", "What was run")
    fields = "; ".join(
        f"**{f['name']}**: " + (f"{f['policy']} in every seat" if "policy" in f else
                                ("seats " + ", ".join(f["seats"]) if "seats" in f else
                                 f"pool rotated ({f['rotation']}) " + ", ".join(f["pool"])))
        for f in r["fields"])
    segs = ", ".join(f"{s['players']}p × {s['field_name']}: {s['games']:,} games in {s['blocks']} blocks"
                     for s in r["segments"])
    rules = run.game["rules"]
    sec.text += [
        f"**{m['games']:,} games**: {segs}. Policy fields: {fields}. "
        f"Duplicate mode: {'on' if r['duplicate'] else 'off'}.",
        f"Seed {r['seed']} · simcell {r['simcell_version']} · game content hash "
        f"`{r['game']['content_hash'][:16]}` · rules and policy code `{r['code_hash'][:16]}` · "
        f"record schema {r['record_schema_version']} · run identity `{m['resolved_hash'][:16]}`.",
        "Rules: " + ", ".join(f"{k} = {v}" for k, v in sorted(rules.items())) + ".",
        "Data files: " + ", ".join(f"{k} `{v}`" for k, v in m.get("data_files", [])) + "."
        + (" Overrides: " + "; ".join(m["overrides"]) + "." if m.get("overrides") else ""),
        "The shipped card values are a reconstruction (no public source lists the real ones); "
        "findings on them are findings about the reconstruction.",
    ]
    seeing = sorted({name for f in r["fields"] for name in f.get("sees_hidden", [])})
    if seeing:
        sec.text.append(f"**{', '.join(seeing)} sees the hidden cards and the event order**, which "
                        "no player sees: its figures are an upper reference, not play a player "
                        "could reach.")
    diffs = card_differences(run)
    if diffs is None:
        sec.text.append("Card values against the shipped set: not recorded in this run directory.")
    elif len(diffs):
        sec.tables.append(Table("card_differences", "Card values that differ from the shipped set", diffs))
    else:
        sec.text.append("Card values: as shipped.")
    return sec


NOTES = [
    "**The unit is the game.** Games are grouped in blocks (`report.blocks`, default 64, in game "
    "order); most intervals come from the delete-a-block jackknife (recompute the figure with each "
    "block left out; t with blocks − 1 degrees of freedom). Win share per seat uses a per-game "
    "t-interval (one value per game, ties split); proportions of games use Wilson intervals; "
    "medians use a block bootstrap with draws from the run's seed, so a rebuilt report is the same.",
    "**Several intervals at once** (Šidák): the seats' intervals, and the card types', are widened "
    "so that they hold together 95% of the time, not each on its own.",
    "**Verdicts** (an equivalence test): in band when the 90% interval lies inside the band, out of "
    "band when the 95% interval lies wholly outside it, otherwise inconclusive. Bands marked "
    "'default' are the shipped defaults (simcell/data/report.toml), not measured ATP equivalents.",
    "**HP above the table**: a seat's final HP minus the mean final HP of the players of the same "
    "game, so that games with high and low scores weigh alike.",
    "**Cards out of band** (43 cards tested at once): a card is flagged only if its "
    "Benjamini–Hochberg q-value (which keeps the share of false flags among all flags below 5%) is "
    "below 0.05 and its interval, simultaneous over the cards, lies wholly outside the band. "
    "Shrunken effects pull each card toward its type's mean by empirical Bayes (noisy cards "
    "move most); rank intervals give the range of ranks a card could hold.",
    "**Card types** are judged on the mean opening-hand effect of their cards minus the mean over "
    "all cards (each card counts once), jackknifed over blocks; cards within a type are judged "
    "against the other cards of their type, because types differ by design.",
    "**Association** (in the card tables): the within-game difference in win share between "
    "players who completed a card and the others, adjusted for cards completed, seat and policy "
    "(least squares with game fixed effects on the first 50,000 games, clustered by game). It is "
    "not an effect: good players complete more cards.",
    "The test of equal seats is a multinomial goodness of fit on the winner's seat when no game "
    "tied, else a Wald chi-square on the mean win-share vector.",
    "Seat figures come from homogeneous fields only; a mixed field's seats mix policy and seat. "
    "Winners (HP sources) are players with any share of the win; the rating model uses outright "
    "winners and leaves tied games out. Lead stability counts only games with a single leader "
    "after the round.",
    "The what-if figure of a card (a paired run with the card at its type's median) is not in "
    "the report yet.",
]


def glossary() -> Section:
    """The plain-language glossary the front sheet links to (reports/glossary.py)."""
    sec = Section("glossary", "Glossary")
    sec.text += [f"- {e}" for e in glossary_entries()]
    return sec


def notes() -> Section:
    sec = Section("notes", "Notes on method")
    sec.text += [f"- {n}" for n in NOTES]
    return sec
