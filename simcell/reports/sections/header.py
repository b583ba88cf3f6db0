"""The report's header and provenance (what was run, on what, by which code), and its notes
(where the report departs from STATISTICS.md, and why)."""

from __future__ import annotations

import pandas as pd

from simcell.reports.data import RunData
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
    diffs = card_differences(run)
    if diffs is None:
        sec.text.append("Card values against the shipped set: not recorded in this run directory.")
    elif len(diffs):
        sec.tables.append(Table("card_differences", "Card values that differ from the shipped set", diffs))
    else:
        sec.text.append("Card values: as shipped.")
    return sec


NOTES = [
    "Seat figures come from homogeneous fields only; a mixed field's seats mix policy and seat.",
    "Win share per seat uses a per-game t-interval (a mean per game, ties split), simultaneous "
    "over seats by Šidák; every other mean and ratio uses the delete-a-block jackknife (t with "
    "K − 1 degrees of freedom); proportions of games use Wilson; medians use a block bootstrap "
    "with draws from the run's seed.",
    "Verdicts: in band when the 90% interval (an equivalence test at 5%) lies inside the band, "
    "out of band when the 95% interval lies wholly outside it, otherwise inconclusive. Bands "
    "marked 'default' are the shipped defaults of STATISTICS.md, not measured ATP equivalents.",
    "Winners (HP sources) are players with any share of the win; the rating model uses outright "
    "winners and leaves tied games out.",
    "Lead stability counts only games with a single leader after the round.",
    "Cards are flagged on the within-type contrast (a card against the other cards of its type): "
    "types differ by design, so raw opening-hand effects of a deck of identical cards per type are "
    "not zero. The what-if figure (a paired run with the card at its type's median) is not in the "
    "report yet.",
]


def notes() -> Section:
    sec = Section("notes", "Notes on method")
    sec.text += [f"- {n}" for n in NOTES]
    return sec
