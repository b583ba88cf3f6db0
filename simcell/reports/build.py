"""Build a run directory's balance report: every section, written as report.html, report.md
with PNG figures beside it, and every table as CSV (under RUN_DIR/report/)."""

from __future__ import annotations

from pathlib import Path

from simcell.reports.data import RunData
from simcell.reports.render import Report, write_report
from simcell.reports.sections import advice, cards, header, policies, seats, shape, sources, verdicts

REPORT_DIR = "report"


def build_report(root: Path, out: Path | None = None) -> Path:
    """Write the report of the run directory `root` (default: root/report); returns its folder."""
    run = RunData(root)
    bands = dict(run.resolved["report"]["bands"])
    seat_band = float(bands["seat_win_share_pp"])
    card_band = float(bands["card_open_hand_pp"])
    sections = [
        header.build(run),
        verdicts.build(run),
        cards.build(run, card_band),
        seats.build(run, seat_band),
        sources.build(run),
        policies.build(run),
        shape.build(run),
        advice.build(run),
        header.notes(),
    ]
    title = f"simcell balance report: {Path(run.meta['config']).name}, {run.meta['games']:,} games"
    folder = out or Path(root) / REPORT_DIR
    write_report(Report(title, sections), folder)
    return folder
