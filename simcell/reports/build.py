"""Build a run directory's balance report: every section, written as report.html, report.md
with PNG figures beside it, and every table as CSV (under RUN_DIR/report/).

The sections fall in two groups of about equal work that share no cached figure (RunData.cache):
with two or more cores the second group is built in a child process while this one builds the
first, figures rendered on each side. The output does not depend on it (byte-identical)."""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from simcell.reports.data import RunData
from simcell.reports.measured import find as find_measured
from simcell.reports.render import Report, Section, write_report
from simcell.reports.sections import (
    across_skill,
    advice,
    cards,
    front,
    goals,
    header,
    pacing,
    policies,
    seats,
    shape,
    sources,
    summary,
    verdicts,
)

REPORT_DIR = "report"


def _card_band(run: RunData) -> float:
    return float(run.resolved["report"]["bands"]["card_open_hand_pp"])


def _type_band(run: RunData) -> float:
    # runs made before the type band existed: its shipped default
    return float(run.resolved["report"]["bands"].get("card_type_pp", 1.0))


def bands_of(run: RunData) -> dict:
    """The bands the front sheet and the findings state: the seat band as a label, the card and
    type bands in pp."""
    return {"seat_win_share": run.seat_band_label(), "card_open_hand_pp": _card_band(run),
            "card_type_pp": _type_band(run)}


# the report's sections, in reading order after the summary (written last, from their tables)
SECTIONS: dict[str, Callable[[RunData], Section]] = {
    "verdicts": verdicts.build,
    "across_skill": across_skill.build,
    "seats": seats.build,
    "goals": goals.build,
    "cards": lambda run: cards.build(run, _card_band(run), _type_band(run)),
    "pacing": pacing.build,
    "sources": sources.build,
    "policies": policies.build,
    "shape": shape.build,
    "advice": advice.build,
    "header": header.build,
    "glossary": lambda run: header.glossary(),
    "notes": lambda run: header.notes(),
}
# built beside the rest: about half the work (1M games, one process each: these 5.3 s, the rest
# 4.9 s), and none of the card and seat figures that verdicts, cards, seats and advice share
# through RunData.cache
SIDE_GROUP = ("sources", "shape", "pacing")


def build_sections(root: Path, names: tuple[str, ...]) -> dict[str, Section]:
    """The named sections of a run directory's report, figures rendered to PNG."""
    run = RunData(root)
    return {name: SECTIONS[name](run).rendered() for name in names}


def _side_pool() -> ProcessPoolExecutor:
    # fork shares this process's imports (spawn re-imports them: ~1.5 s); a process with other
    # threads running (a Dask client's) is not forked, as a lock they hold would stay held
    method = "fork" if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(method))


def build_report(root: Path, out: Path | None = None, jobs: int | None = None,
                 measured: list[Path] = ()) -> Path:
    """Write the report of the run directory `root` (default: root/report); returns its folder.
    `jobs`: processes to build it with (default: 2 if the machine has two cores, else 1).
    `measured`: tool folders (seats, sweep, calibrate, probe) whose sizes the summary's changes
    quote, beside any inside `root`."""
    run = RunData(root)  # a directory that is not a complete run fails here, before any work
    tools = find_measured(run, list(measured))  # ... as does a folder that is not a tool's
    jobs = jobs if jobs is not None else min(2, os.cpu_count() or 1)
    here = tuple(n for n in SECTIONS if jobs < 2 or n not in SIDE_GROUP)
    built: dict[str, Section] = {}
    if len(here) == len(SECTIONS):
        built = build_sections(root, here)
    else:
        with _side_pool() as pool:
            side = pool.submit(build_sections, root, SIDE_GROUP)
            try:
                built.update(build_sections(root, here))
                built.update(side.result())
            finally:
                side.cancel()
    tables = {t.name: t.data for sec in built.values() for t in sec.tables}
    bands = bands_of(run)
    # the front sheet and the findings last, from every other section's tables; placed first
    findings = summary.build(run, tables, bands, tools)
    sheet = front.build(run, tables, bands, tools).rendered()
    title = f"simcell balance report: {Path(run.meta['config']).name}, {run.meta['games']:,} games"
    folder = out or Path(root) / REPORT_DIR
    write_report(Report(title, [sheet, findings] + [built[n] for n in SECTIONS]), folder)
    return folder
