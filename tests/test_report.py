"""The balance report (reports issue): the interval engine against hand computation and
calibration (docs/method.md §16), placebo labels, sources that add up, every
section and figure in both formats, a self-contained HTML and byte-identical rebuilds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simcell.reports import intervals as iv
from simcell.reports.build import build_report
from simcell.reports.data import ReportError
from simcell.runner.run import RunOptions, Runner
from simcell.vocabulary import HP_SOURCES

ROOT = Path(__file__).resolve().parent.parent


def make_run(folder: Path, body: str, **opts) -> Path:
    config = folder / "run.toml"
    config.write_text(body)
    out = folder / "out"
    Runner(config, RunOptions(out=out, workers=1, **opts)).run()
    return out


RANDOM_3P = """
[run]
players = 3
games = 10000
seed = 11

[[field]]
name = "random"
policy = "random"

[report]
blocks = 400
"""

PLACEBO = """
[run]
players = 2
games = 4000
seed = 5

[[field]]
name = "planner"
policy = "planner"

[[field]]
name = "placebo pool"
pool = ["planner", "balanced"]
"""


@pytest.fixture(scope="module")
def random_run(tmp_path_factory) -> Path:
    root = make_run(tmp_path_factory.mktemp("random"), RANDOM_3P)
    build_report(root)
    return root


@pytest.fixture(scope="module")
def placebo_run(tmp_path_factory) -> Path:
    root = make_run(tmp_path_factory.mktemp("placebo"), PLACEBO)
    build_report(root)
    return root


# -- the engine against hand computation ---------------------------------------------------------
def test_jackknife_ratio_by_hand():
    num = np.array([3.0, 5.0, 4.0])
    den = np.array([10.0, 10.0, 20.0])
    left = np.array([9 / 30, 7 / 30, 8 / 20])
    se = np.sqrt(2 / 3 * np.sum((left - left.mean()) ** 2))
    e = iv.jackknife_ratio(num, den)
    assert e.value == pytest.approx(12 / 40)
    assert e.se == pytest.approx(se)
    assert e.df == 2
    assert e.half_width == pytest.approx(stats.t.ppf(0.975, 2) * se)
    g = iv.jackknife(lambda a, b: a / b, num, den)
    assert (g.value, g.se) == pytest.approx((e.value, e.se))


def test_wilson_and_t_by_hand():
    w = iv.wilson(0, 10)
    assert w.low == pytest.approx(0.0, abs=1e-12) and w.high == pytest.approx(0.2775, abs=1e-4)
    w = iv.wilson(5, 10)
    assert (w.low, w.high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    x = np.array([1.0, 2.0, 4.0, 7.0])
    t = iv.t_mean(x)
    assert t.value == 3.5 and t.se == pytest.approx(x.std(ddof=1) / 2)
    assert iv.sidak(0.95, 5) == pytest.approx(0.95 ** 0.2)


def test_verdicts():
    assert iv.verdict(iv.Estimate(0.1, 0.2, 100), 1.0) == iv.IN_BAND
    assert iv.verdict(iv.Estimate(3.0, 0.2, 100), 1.0) == iv.OUT_OF_BAND
    assert iv.verdict(iv.Estimate(-3.0, 0.2, 100), 1.0) == iv.OUT_OF_BAND
    assert iv.verdict(iv.Estimate(0.9, 0.2, 100), 1.0) == iv.INCONCLUSIVE
    assert iv.verdict(iv.Estimate(0.0, 5.0, 100), 1.0) == iv.INCONCLUSIVE


def test_sample_size_by_hand():
    assert iv.games_needed(1_000_000, 0.2, 0.1) == 4_000_000
    assert iv.detectable_effect(1.0) == pytest.approx(1.959964 + 0.841621, abs=1e-5)


def test_bootstrap_quantile_is_seeded_and_covers():
    rng = np.random.default_rng(3)
    values = np.arange(0, 40)
    h = np.array([np.bincount(rng.binomial(39, 0.5, 200), minlength=40) for _ in range(64)])
    a = iv.bootstrap_quantile(h, values, 0.5, seed=9)
    b = iv.bootstrap_quantile(h, values, 0.5, seed=9)
    assert a == b and a.low <= 19.5 <= a.high


# -- calibration -------------------------------------------------------------------------------
def _null_shares(rng, games: int, players: int, tie_rate: float) -> np.ndarray:
    s = np.zeros((games, players))
    s[np.arange(games), rng.integers(0, players, games)] = 1.0
    ties = rng.random(games) < tie_rate
    for g in np.nonzero(ties)[0]:
        a, b = rng.choice(players, 2, replace=False)
        s[g] = 0.0
        s[g, [a, b]] = 0.5
    return s


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("tie_rate", [0.0, 0.1])
def test_seat_equality_test_rejects_five_percent_under_the_null(players, tie_rate):
    """docs/method.md: rejects 5% +- 1.5% at 2 and 5 players over at least 2,000 replicates on a
    fixed seed (with ties: the Wald test; without: the multinomial goodness of fit)."""
    rng = np.random.default_rng(20261130 + players)
    rejections = 0
    for _ in range(2000):
        test = iv.seat_equality(_null_shares(rng, 400, players, tie_rate))
        rejections += test.p_value < 0.05
    assert 0.035 <= rejections / 2000 <= 0.065


def test_seat_equality_test_detects_a_real_seat_effect():
    rng = np.random.default_rng(1)
    s = np.zeros((2000, 3))
    s[np.arange(2000), rng.choice(3, 2000, p=[0.4, 0.3, 0.3])] = 1.0
    assert iv.seat_equality(s).p_value < 1e-6


def test_jackknife_agrees_with_analytic_intervals(random_run):
    """Half-widths within 10% on 10,000 games where both apply: Wilson for the tie rate, the
    per-game t-interval for a seat's win share."""
    root = random_run
    games = pd.read_parquet(root / "games")
    players = pd.read_parquet(root / "players")
    k = 400
    blocks = games["game"].to_numpy() * k // len(games)
    tie = games["tie"].to_numpy().astype(float)
    jk = iv.jackknife_ratio(np.bincount(blocks, tie, k), np.bincount(blocks, minlength=k))
    wl = iv.wilson(int(tie.sum()), len(tie))
    assert jk.half_width == pytest.approx(wl.half_width, rel=0.10)
    seat0 = players[players["seat"] == 0].sort_values("game")["win_share"].to_numpy()
    jk = iv.jackknife_ratio(np.bincount(blocks, seat0, k), np.bincount(blocks, minlength=k))
    tm = iv.t_mean(seat0)
    assert jk.value == pytest.approx(tm.value)
    assert jk.half_width == pytest.approx(tm.half_width, rel=0.10)


# -- the report of a run ------------------------------------------------------------------------
def test_sources_add_up(random_run):
    t = pd.read_csv(random_run / "report" / "tables" / "hp_by_source.csv")
    sources = [c for c in t.columns if c.startswith("hp_") and not c.endswith(("_low", "_high", "_se"))]
    assert len(sources) == len(HP_SOURCES)  # every source, starting HP ("start") included
    assert np.allclose(t[sources].sum(axis=1), t["final_hp"])
    v = pd.read_csv(random_run / "report" / "tables" / "hp_variance_share.csv")
    assert v.groupby(["players", "field"])["variance_share"].sum().to_numpy() == pytest.approx(1.0)
    flows = pd.read_csv(random_run / "report" / "tables" / "resource_flows.csv")
    assert flows["balances"].all()


def test_a_run_of_an_older_record_schema_reports_with_the_columns_it_lacks(tmp_path):
    """A run directory written before the HP source "start" (record schema 2: no hp_start
    column) still reports: its games started with no HP, so the source reads 0 and the sources
    still add up to the final HP. Without the filled-in column the report raised KeyError."""
    import pyarrow.parquet as pq

    root = make_run(tmp_path, RANDOM_3P.replace("games = 10000", "games = 600"))
    for part in sorted((root / "players").rglob("part-*.parquet")):
        t = pq.read_table(part)
        pq.write_table(t.drop(["hp_start"]), part)
    assert "hp_start" not in pq.ParquetFile(next((root / "players").rglob("part-*.parquet"))).schema_arrow.names
    build_report(root)
    t = pd.read_csv(root / "report" / "tables" / "hp_by_source.csv")
    assert (t["hp_start"] == 0).all()
    sources = [c for c in t.columns if c.startswith("hp_") and not c.endswith(("_low", "_high", "_se"))]
    assert np.allclose(t[sources].sum(axis=1), t["final_hp"])


def test_every_section_and_figure_in_both_formats(random_run):
    folder = random_run / "report"
    md = (folder / "report.md").read_text()
    page = (folder / "report.html").read_text()
    figures = sorted(p.stem for p in (folder / "figures").glob("*.png"))
    tables = sorted(p.stem for p in (folder / "tables").glob("*.csv"))
    for name in ("seat_win_share", "hp_by_source_seat", "hp_variance_share", "final_hp_by_policy",
                 "winning_hp_margin", "lead_stability", "spot_occupancy"):
        assert name in figures
    for name in ("card_verdicts", "card_top", "card_strength", "card_market", "card_efficiency",
                 "card_types", "card_type_forest", "card_forest_3p_f0", "card_funnel_3p_f0"):
        assert name in tables or name in figures
    for name in ("verdicts", "seat_advantage", "seat_hp_sources", "seat_marker", "seat_marker_by_round",
                 "seat_levers", "seat_equality_test", "hp_by_source", "policy_seat_balance",
                 "game_shape", "lead_stability", "spot_occupancy", "event_effects", "resource_flows",
                 "pacing", "supply", "feel", "sample_size"):
        assert name in tables
    for f in figures:
        assert f"(figures/{f}.png)" in md
    assert page.count('src="data:image/png;base64,') == len(figures)
    for title in ("Summary", "Findings", "Glossary", "What was run", "Verdicts", "Cards", "Seat advantage", "Where the HP come from",
                  "Policies", "Pacing and how the game feels", "Game shape", "Sample size", "Notes on method"):
        assert f"## {title}" in md and f">{title}</h2>" in page
    for t in tables:
        assert f"tables/{t}.csv" in md
    # the summary first, then the verdicts and the sections they summarise; provenance last
    order = [md.index(f"\n## {t}\n") for t in ("Summary", "Findings", "Verdicts", "Seat advantage", "Cards",
                                                 "Where the HP come from", "Sample size",
                                                 "What was run", "Notes on method")]
    assert order == sorted(order)
    assert page.index('<h2 id="summary">') < page.index("<h2", page.index('<h2 id="summary">') + 1)
    assert page.index("<h2") == page.index('<h2 id="summary">')


def test_summary_sentences_follow_the_tables(random_run):
    """The summary is written from the sections' own tables: a figure changed in a table
    changes its sentence, and every sentence links to its section."""
    from simcell.reports.sections import summary

    t = random_run / "report" / "tables"
    seats, sources = pd.read_csv(t / "seat_advantage.csv"), pd.read_csv(t / "seat_hp_sources.csv")
    before = summary.seat_sentences(seats, sources, "±2 pp")
    assert f"{seats.loc[0, 'win_share_pp']:.1f}%" in before[0] and "(seat 0)" in before[0]
    changed = seats.copy()
    changed.loc[0, ["win_share_pp", "win_share_pp_low", "win_share_pp_high"]] = [71.25, 70.5, 72.0]
    after = summary.seat_sentences(changed, sources, "±2 pp")
    assert "71.2% (70.5 to 72.0)" in after[0] and after[0] != before[0]
    # the largest source of the first player's lead names the sentence's cause
    lead = sources.copy()
    lead.loc[lead["seat"] == 0, "hp_above_table_event"] = 99.0
    assert "from events (+99.00" in summary.seat_sentences(seats, lead, "±2 pp")[1]
    types = pd.read_csv(t / "card_types.csv")
    flip = types.copy()
    flip.loc[0, ["gap_pp", "gap_pp_low", "gap_pp_high", "verdict"]] = [12.5, 11.0, 14.0, "out of band"]
    text = summary.type_sentence(flip, 1.0)[0]
    assert "+12.5 (+11.0 to +14.0) pp" in text
    assert summary.TYPE_PLURALS[flip.loc[0, "type"]] in text
    cards = pd.read_csv(t / "card_strength.csv")
    top = cards.loc[cards["contrast_pp"].idxmax(), "name"]
    assert f"strongest against its type is {top}" in summary.card_sentence(cards, 1.0)[0]
    md = (random_run / "report" / "report.md").read_text()
    block = md[md.index("## Findings"):md.index("## Verdicts")]
    items = [line for line in block.splitlines() if line.startswith("- ")]
    assert 3 <= len(items) <= 9 and before[0] in block
    assert all(re.search(r"\]\(#\w+\)\.$", line) for line in items)
    assert items[0].startswith("- This game is **")  # the answer first


def test_the_first_screen_answers_and_names_every_figure_out_of_band(random_run):
    """The summary opens with the verdict (in balance or not, by which figures, at which
    counts), names every type and every seat out of band (none left as "N more"), and lists the
    changes most likely to help, each with its direction and the command that measures it."""
    from simcell.reports.sections import summary

    t = random_run / "report" / "tables"
    verdicts, cv = pd.read_csv(t / "verdicts.csv"), pd.read_csv(t / "card_verdicts.csv")
    types = pd.read_csv(t / "card_types.csv")
    out = types.copy()
    out["verdict"] = "out of band"
    out["gap_pp"] = np.linspace(-5, 5, len(out))
    bad = verdicts.copy()
    bad["verdict"] = "out of band"
    text = summary.verdict_sentence(bad, cv, out)[0]
    assert text.startswith("This game is **not in balance** at ") and f"{len(out)} of {len(out)} card types" in text
    good = verdicts.assign(verdict="in band")
    assert "**in balance**" in summary.verdict_sentence(good, cv.assign(**{"out of band": 0, "inconclusive": 0}),
                                                        types.assign(verdict="in band"))[0]
    named = summary.type_sentence(out, 1.0)[0]
    assert all(summary.TYPE_PLURALS[x] in named for x in out["type"]) and "more type" not in named
    seats = pd.read_csv(t / "seat_advantage.csv").assign(verdict="out of band")
    lines = summary.seat_sentences(seats, pd.read_csv(t / "seat_hp_sources.csv"), "±2 pp")
    assert all(f" {s} {a:+.1f}" in lines[0] for s, a in zip(seats["seat"], seats["above_fair_pp"]) if s > 0)
    todo = summary.changes({"seat_advantage": seats, "card_types": out,
                            "card_strength": pd.read_csv(t / "card_strength.csv")}, "x.toml")
    assert 3 <= len(todo) <= 4 and todo[0].startswith("**The seats**") and "simcell seats x.toml" in todo[0]
    steps = [x for x in todo if "types." in x]
    assert steps and all("simcell sweep x.toml --set 'types." in x for x in steps)
    assert all(("dearer" in x) == ("+0,+1,+2" in x) for x in steps)


def test_a_two_field_summary_says_which_field_each_figure_belongs_to(random_run):
    """With two fields at one player count, every type figure and every card sentence names its
    field (a type out of band in one field only says which), and a card's contrast names the
    cards it is measured against."""
    from simcell.reports.sections import summary

    t = random_run / "report" / "tables"
    types = pd.read_csv(t / "card_types.csv")
    one = types[types["players"] == types["players"].iloc[0]]
    two = pd.concat([one.assign(field="planner"), one.assign(field="greedy")], ignore_index=True)
    two["verdict"] = "in band"
    two.loc[(two["field"] == "greedy") & (two["type"] == "enzyme"), ["verdict", "gap_pp"]] = ["out of band", -4.0]
    two.loc[two["type"] == "detox", ["verdict"]] = "out of band"
    two.loc[two["type"] == "detox", "gap_pp"] = [2.0, 3.0]
    text = summary.type_sentence(two, 1.0)[0]
    p = int(one["players"].iloc[0])
    assert "Enzymes are worth less than the average card: -4.0" in text and f"pp at {p} players, greedy field" in text
    assert f"out of band at 2 of 2 fields, from +2.0 pp ({p} players, planner field) to +3.0 pp ({p} players, greedy field)" in text
    cards = pd.read_csv(t / "card_strength.csv")
    c = cards[cards["players"] == p]
    lines = summary.card_sentence(pd.concat([c.assign(field="planner"), c.assign(field="greedy")]), 1.0)
    assert f"at {p} players, planner field" in lines[0] and f"at {p} players, greedy field" in lines[1]
    assert "pp against the other " in lines[0]


def test_an_interval_that_would_print_with_equal_ends_says_why():
    from simcell.reports.estimates import Estimate, fmt, interval_text

    assert interval_text(2.0, 2.0, 2.0, 2) == "2.00 (the same in every game)"
    assert interval_text(2.831, 2.8291, 2.8346, 2) == "2.831 (2.829 to 2.835)"  # one more digit
    assert interval_text(0.0, -0.04, 0.03, 1, True) == "+0.00 (-0.04 to +0.03)"  # not "-0.0 to +0.0"
    assert interval_text(0.0, -1e-7, 1e-7, 1, True) == "+0.0 (within ±1e-07)"
    assert interval_text(3.5, 3.1, 3.9, 1, True) == "+3.5 (+3.1 to +3.9)"  # untouched
    assert fmt(Estimate(41.0, 0.0, bounds=(41.0, 41.0)), 1, 0) == "41 (every resample gives 41)"


def test_html_has_no_external_references(random_run):
    page = (random_run / "report" / "report.html").read_text()
    assert not re.search(r"https?://", page)
    assert "<script" not in page and "<link" not in page
    for src in re.findall(r'src="([^"]*)"', page):
        assert src.startswith("data:image/png;base64,")
    assert not re.search(r"url\(", page)


def test_report_rebuilds_byte_identical(random_run, tmp_path):
    from typer.testing import CliRunner

    from simcell.cli import app

    result = CliRunner().invoke(app, ["report", str(random_run), "--out", str(tmp_path / "again")])
    assert result.exit_code == 0, result.output
    first = random_run / "report"
    for path in sorted(first.rglob("*")):
        if path.is_file():
            other = tmp_path / "again" / path.relative_to(first)
            assert other.read_bytes() == path.read_bytes(), path.name


def test_report_is_the_same_built_in_one_process_or_two(random_run, tmp_path):
    """build_report with jobs=2 builds some sections in a child process: the files must be the
    bytes of a one-process build."""
    first = build_report(random_run, tmp_path / "two", jobs=2)
    second = build_report(random_run, tmp_path / "one", jobs=1)
    names = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert any(n.suffix == ".png" for n in names)
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_report_error_in_the_side_process_reaches_the_caller(random_run, tmp_path):
    """The shape section (built in the child) reads the per-game records: without them the
    caller gets the child's ReportError, and no report is written."""
    import shutil

    root = tmp_path / "run"
    shutil.copytree(random_run, root, ignore=shutil.ignore_patterns("report"))
    shutil.rmtree(root / "games")
    with pytest.raises(ReportError, match="missing"):
        build_report(root, jobs=2)
    assert not (root / "report").exists()


def test_report_of_an_unfinished_run_is_a_clear_error(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"status": "interrupted"}))
    with pytest.raises(ReportError, match="--resume"):
        build_report(tmp_path)
    with pytest.raises(ReportError, match="not a simcell run directory"):
        build_report(tmp_path / "nothing")


def test_seat_table_matches_the_records(random_run):
    t = pd.read_csv(random_run / "report" / "tables" / "seat_advantage.csv")
    players = pd.read_parquet(random_run / "players")
    means = players.groupby("seat")["win_share"].mean().to_numpy() * 100
    assert np.allclose(t["win_share_pp"].to_numpy(), means)
    assert (t["win_share_pp_low"] < t["win_share_pp"]).all()


def test_placebo_labels(placebo_run):
    """One policy under two names (balanced = the planner's defaults): the rating difference is
    in band (its interval covers 0), and the seat effect equals self-play's."""
    folder = placebo_run / "report" / "tables"
    ratings = pd.read_csv(folder / "policy_ratings.csv")
    row = ratings[ratings["term"] == "policy: balanced"].iloc[0]
    assert row["low"] < 0 < row["high"]
    assert abs(row["log_odds"]) < 0.15
    seats = ratings[ratings["term"] == "seat 1"].iloc[0]
    # self-play's seat effect, on the same scale: log-odds that seat 1 wins an untied game
    players = pd.read_parquet(placebo_run / "players")
    own = players[players["field"].astype(int) == 0].sort_values(["game", "seat"])
    wins = own["win_share"].to_numpy().reshape(-1, 2)
    untied = wins[(wins == 1).any(axis=1)]
    x = untied[:, 1].mean()
    self_play = np.log(x / (1 - x))
    se = np.sqrt(1 / (len(untied) * x * (1 - x)))
    assert abs(seats["log_odds"] - self_play) < 3 * np.hypot(seats["se"], se)
    balance = pd.read_csv(folder / "policy_seat_balance.csv")
    pool = balance[balance["field"] == "placebo pool"]
    assert (pool[["seat 0", "seat 1"]].to_numpy() == 2000).all()


def test_seat_equality_test_survives_a_short_run_with_a_constant_seat():
    """Ten games with a tie and a seat that never won: the covariance is singular (found by a
    10-game `simcell run`, whose report crashed in np.linalg.solve). The test falls back to the
    generalised inverse with df = its rank, and to no test when nothing varies."""
    s = np.zeros((10, 3))
    s[:6, 0] = 1.0
    s[6:9, 1] = 1.0
    s[9, [0, 1]] = 0.5  # a tie; seat 2 never wins
    test = iv.seat_equality(s)
    assert test.df == 1 and "singular" in test.name
    assert np.isfinite(test.statistic) and 0.0 <= test.p_value <= 1.0
    flat = np.full((10, 2), 0.5)  # every game tied: nothing varies
    none = iv.seat_equality(flat)
    assert none.df == 0 and np.isnan(none.statistic) and np.isnan(none.p_value)
    full = iv.seat_equality(np.vstack([s, [[0.0, 0.5, 0.5]]]))  # seat 2 ties once: full rank
    assert full.df == 2 and "singular" not in full.name


def test_numbers_print_as_a_designer_reads_them():
    """Issue 70 defect 9: an interval apart by rounding error alone is one value (it printed
    "7.333 (within ±1e-14)"), a ± half-width shows at least one digit that is not zero (it
    printed "1.5 ± 0.0" at a million games), and a real interval still prints its ends."""
    from simcell.reports.estimates import interval_text
    from simcell.reports.summary import _pm

    v = 22 / 3
    assert interval_text(v, v - 1e-14, v + 1e-14, 3) == "7.333 (the same in every game)"
    assert interval_text(v, v - 0.002, v + 0.002, 3) == "7.333 (7.331 to 7.335)"
    assert _pm(iv.Estimate(0.015, 0.00015, 999), 100) == "1.50 ± 0.03"
    assert _pm(iv.Estimate(0.581, 0.0035, 999), 100) == "58.1 ± 0.7"


def test_a_card_type_has_one_name_in_the_report(random_run):
    """Issue 70 defect 11: the Protein Hormone Receptors are named so in every table, figure
    legend and sentence (the report called them protein_receptor, "protein receptor" and
    "Protein Receptors"); code spans (config keys, commands) keep the type's key."""
    from simcell.vocabulary import CARD_TYPE_LABELS

    plurals = {"enzyme": "Enzymes", "protein_hormone": "Protein Hormones", "steroid_hormone": "Steroid Hormones",
               "protein_receptor": "Protein Hormone Receptors", "steroid_receptor": "Steroid Hormone Receptors",
               "detox": "Detoxification cards", "additional_resource": "Additional Resource cards"}
    md = (random_run / "report" / "report.md").read_text()
    prose = re.sub(r"`[^`]*`", "", md)
    for key, label in CARD_TYPE_LABELS.items():
        others = {key, key.replace("_", " ")} - {label.lower(), plurals[key].lower()}
        for other in others:
            found = re.findall(rf"(?<![\w.]){re.escape(other)}(?![\w])", prose, flags=re.IGNORECASE)
            assert not [f for f in found if f not in (label, plurals[key])], (key, other, found[:3])
    assert "Protein Receptors" not in prose
    assert "Protein Hormone Receptor" in prose


# -- pacing and how the game feels (issue 70) ---------------------------------------------------
def test_lead_changes_by_hand():
    from simcell.reports.sections.pacing import lead_changes

    # 3 players, 5 steps: leader 0; 0 and 1 tie (no leader, 0 is still the last); 1; 1; 0
    one = [[3, 1, 0], [4, 4, 0], [4, 6, 1], [5, 8, 2], [10, 9, 2]]
    level = [[1, 1, 1]] * 5  # never a sole leader
    back = [[2, 0, 0], [2, 2, 0], [3, 2, 0], [3, 3, 3], [3, 3, 5]]  # 0, tie, 0 again, tie, 2
    assert lead_changes(np.array([one, level, back])).tolist() == [2, 0, 1]


def _lead_changes_plain(path: np.ndarray) -> int:
    """Lead changes of one game (steps x players) as the definition says, in plain Python."""
    last, changes = None, 0
    for hp in path.tolist():
        best = max(hp)
        if hp.count(best) == 1:
            now = hp.index(best)
            changes += last is not None and now != last
            last = now
    return changes


def test_pacing_figures_agree_with_the_records(random_run):
    """Every pacing and feel figure recomputed from the records by hand: placements, cards the
    winner completed (ties: their mean), reshuffles, games the box would run short, lead
    changes; and each interval holds its figure."""
    from simcell.reports.data import RunData
    from simcell.vocabulary import COMPLETED_TYPES

    run = RunData(random_run)
    seg = run.segments[0]
    rounds = run.rounds(seg.players)
    players = pd.read_parquet(random_run / "players").sort_values(["game", "seat"])
    games = pd.read_parquet(random_run / "games").sort_values("game")
    n, p = len(games), seg.players
    pacing = pd.read_csv(random_run / "report" / "tables" / "pacing.csv").iloc[0]
    feel = pd.read_csv(random_run / "report" / "tables" / "feel.csv").iloc[0]
    placed = players.filter(like="placed_").to_numpy().sum()
    assert pacing["placements_per_player"] == pytest.approx(placed / (n * p))
    completed = players[[f"completed_{t}" for t in COMPLETED_TYPES]].to_numpy().sum(axis=1)
    assert pacing["winner_cards_completed"] == pytest.approx((completed * players["win_share"]).sum() / n)
    assert pacing["reshuffles_per_game"] == pytest.approx(games["reshuffles"].mean())
    supply = run.game["board"]["supply"]
    short = np.zeros(n, bool)
    for j, res in enumerate(("mrna", "protein", "carb", "lipid", "atp")):
        short |= games[f"peak_{res}"].to_numpy() > supply[j]
    assert pacing["games_short_pct"] == pytest.approx(100 * short.mean())
    steps = [f"hp_round_{r}" for r in range(1, rounds + 1)] + ["final_hp"]
    path = players[steps].to_numpy().reshape(n, p, len(steps)).transpose(0, 2, 1)
    by_hand = np.mean([_lead_changes_plain(g) for g in path])
    assert feel["lead_changes_per_game"] == pytest.approx(by_hand)
    assert by_hand > 0  # a random field changes leader
    for table, col in ((pacing, "placements_per_player"), (pacing, "winner_cards_completed"),
                       (feel, "lead_changes_per_game"), (feel, "margin_mean")):
        assert table[f"{col}_low"] <= table[col] <= table[f"{col}_high"], col
    md = (random_run / "report" / "report.md").read_text()
    assert "## Pacing and how the game feels" in md and "### Lead stability" in md


LIMITED = """
[run]
players = 3
games = 2000
seed = 21

[[field]]
name = "planner"
policy = "planner"

[rules]
supply_limited = true
"""


def test_gains_cut_by_a_limited_supply_are_reported(tmp_path):
    """Issue 70 defect 8: under a limited supply the report gives the share of games in which
    each resource's gains were cut (the records' shortfall columns), in percent in the CSV as in
    the report; it printed "games short 0%" (a peak can never pass a limited supply) while the
    records showed lipid gains cut in most games."""
    root = make_run(tmp_path, LIMITED)
    build_report(root)
    games = pd.read_parquet(root / "games")
    md = (root / "report" / "report.md").read_text()
    lipid_cut = 100 * (games["shortfall_lipid"] > 0).mean()
    printed = [line for line in md.splitlines() if "| lipid |" in line]
    # 3de70e4 printed "games short 0.00" for every resource here, lipid's gains cut in most games
    assert "games short" not in md, (f"lipid gains cut in {lipid_cut:.1f}% of games; the report "
                                     f"prints: {printed}")
    supply = pd.read_csv(root / "report" / "tables" / "supply.csv").set_index("resource")
    for res in ("mrna", "protein", "carb", "lipid", "atp"):
        share = 100 * (games[f"shortfall_{res}"] > 0).mean()
        assert supply.loc[res, "games_gains_cut_pct"] == pytest.approx(share), res
    assert supply["games_gains_cut_pct"].max() > 10  # the box runs dry in many games
    table = md[md.index("### Games with a gain cut by the limited supply"):]
    lipid = next(line for line in table.splitlines() if line.startswith("| lipid |"))
    assert lipid.split("|")[3].strip().startswith(f"{supply.loc['lipid', 'games_gains_cut_pct']:.1f}")


def test_the_front_sheet_reads_alone(random_run):
    """Issue 70: the report opens with the front sheet: what was played (date, games, bots,
    content hash, rules), the verdict at each player count, the seat and card-type charts, what
    to change first in words (no command), and a glossary entry behind every term it links."""
    md = (random_run / "report" / "report.md").read_text()
    page = (random_run / "report" / "report.html").read_text()
    sheet = md[md.index("## Summary"):md.index("## Findings")]
    meta = json.loads((random_run / "run.json").read_text())
    assert f"played {meta['completed'][:10]}" in sheet
    assert f"`{json.loads((random_run / 'resolved.json').read_text())['game']['content_hash'][:12]}`" in sheet
    assert "10,000 games" in sheet and "random in every seat" in sheet and "turn order marker" in sheet
    verdicts = pd.read_csv(random_run / "report" / "tables" / "front_verdicts.csv")
    assert verdicts["players"].tolist() == [3] and verdicts["in balance?"].iloc[0] in (
        "no", "yes", "not shown (more games)")
    assert "(figures/front_charts.png)" in sheet
    todo = sheet[sheet.index("**What to change first**"):] if "What to change first" in sheet else ""
    assert "simcell " not in todo.replace("[Findings](#findings)", "")  # words, not commands
    links = set(re.findall(r"\]\(#(g-[\w-]+)\)", sheet))
    assert {"g-band", "g-in-band", "g-out-of-band", "g-inconclusive", "g-win-share", "g-fair-share",
            "g-content-hash", "g-bots"} <= links
    for anchor in links:
        assert f'<li id="{anchor}">' in page, anchor  # every link has its glossary entry
    assert page.index('<div class="page">') < page.index('<h2 id="summary">') < page.index('<h2 id="findings">')


def test_the_front_verdict_of_a_mixed_field_run_reads_its_cards_alone():
    """A run whose only field mixes policies has no seat verdicts (the seats section says so):
    the front sheet's verdict comes from the card types and cards, and names no seat (it raised
    KeyError 'verdict' on 514e2dd)."""
    from simcell.reports.sections.front import verdict_table
    types = pd.DataFrame({"players": [3, 3], "field": ["mixed"] * 2, "type": ["enzyme", "detox"],
                          "verdict": ["in band", "out of band"]})
    table = verdict_table({"card_types": types})
    assert table.to_dict("records")[0] | {"card types out of band": None} == {
        "players": 3, "in balance?": "no", "seat furthest from fair": "no homogeneous field",
        "card types out of band": None}
    assert table["card types out of band"].iloc[0] == "1 of 2"


def test_the_front_sheet_names_the_seat_switches_when_set():
    """Issue 69: the rule words name a snake placement order and Laureates once each when a run
    sets them, and say nothing of them for the default game or a run from before the switches
    (its resolved rules lack the keys)."""
    from simcell.reports.sections.front import _rules_words
    old = {"turn_order": "marker", "laureates_holder_may_take": True, "grey_per_player": 1,
           "supply_limited": False, "epigenetic": False, "tie_rule": "split"}
    default = old | {"placement_order": "clockwise", "laureates_once_each": False}
    assert _rules_words(old) == _rules_words(default)
    assert "placement" not in _rules_words(default) and "visit" not in _rules_words(default)
    words = _rules_words(default | {"placement_order": "snake_round", "laureates_once_each": True})
    assert words.startswith("turn order marker, placement order reversed every other round, ")
    assert "no second Laureates visit until every player has made one" in words
    assert "after each pass round the table" in _rules_words(default | {"placement_order": "snake_pass"})
