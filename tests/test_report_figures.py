"""Report figures are readable (issue 38): once drawn, no two text labels of a figure overlap
(tick labels, axis labels, titles, legend texts, annotations), no label lies over another
panel's plotting area, and no legend hides a bar, an error bar or a point; checked on real runs
(2 players, 5 players with a mixed field, every player count in one run) for every figure of
every section the report builds."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.text as mtext  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402

from simcell.reports.build import SECTIONS  # noqa: E402
from simcell.reports.data import RunData  # noqa: E402
from simcell.runner.run import RunOptions, Runner  # noqa: E402

TOLERANCE_PX = 1.0  # boxes overlap when they share at least this much in every direction

Rect = tuple[tuple[float, float], float, float, float]  # centre, width, height, angle (radians)


# -- geometry ------------------------------------------------------------------------------------
def _box(x0: float, y0: float, x1: float, y1: float) -> Rect:
    return ((x0 + x1) / 2, (y0 + y1) / 2), abs(x1 - x0), abs(y1 - y0), 0.0


def _bbox(b) -> Rect:
    return _box(b.x0, b.y0, b.x1, b.y1)


def _corners(rect: Rect) -> list[tuple[float, float]]:
    (cx, cy), w, h, a = rect
    c, s = math.cos(a), math.sin(a)
    return [(cx + dx * c - dy * s, cy + dx * s + dy * c)
            for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]


def _overlap(a: Rect, b: Rect, tol: float = TOLERANCE_PX) -> bool:
    """Do two rotated rectangles share at least `tol` pixels along every separating axis (the
    edge normals of both)? For unrotated boxes: an intersection of at least tol x tol."""
    ca, cb = _corners(a), _corners(b)
    for angle in {a[3], a[3] + math.pi / 2, b[3], b[3] + math.pi / 2}:
        ux, uy = math.cos(angle), math.sin(angle)
        pa = [x * ux + y * uy for x, y in ca]
        pb = [x * ux + y * uy for x, y in cb]
        if min(max(pa), max(pb)) - max(min(pa), min(pb)) < tol:
            return False
    return True


# -- what a draw shows ---------------------------------------------------------------------------
@dataclass
class _Drawn:
    fig: object
    renderer: object
    texts: list[mtext.Text]
    rects: list[Rect]


def _draw(fig) -> _Drawn:
    """Draw the figure (Agg) and measure every Text artist the draw renders: visible, non-empty
    and reached by the draw (tick labels outside the view limits and texts of invisible axes or
    legends are not), in the figure's artist order. Texts beyond the figure's edge count: the
    report saves figures with bbox_inches="tight", which widens the image to show them."""
    drawn: set[int] = set()
    original = mtext.Text.draw

    def record(self, renderer):
        if self.get_visible() and self.get_text().strip():
            drawn.add(id(self))
        return original(self, renderer)

    with mock.patch.object(mtext.Text, "draw", record):
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in fig.findobj(mtext.Text) if id(t) in drawn]
    return _Drawn(fig, renderer, texts, [_rectangle(t, renderer) for t in texts])


def _rectangle(text: mtext.Text, renderer) -> Rect:
    """The text's rotated box in display pixels. get_window_extent is the axis-aligned box
    around the rotated text, too large for rotated tick labels side by side; the unrotated size
    is measured at rotation 0, and a rotated rectangle's axis-aligned box has the same centre.
    An annotation's box is its text's (Annotation.get_window_extent adds the arrow)."""
    box = mtext.Text.get_window_extent(text, renderer)
    centre = ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
    angle = text.get_rotation() % 180.0
    if angle == 0.0:
        return centre, box.width, box.height, 0.0
    text.set_rotation(0.0)
    try:
        flat = mtext.Text.get_window_extent(text, renderer)
    finally:
        text.set_rotation(angle)
    return centre, flat.width, flat.height, math.radians(angle)


def _panels(fig) -> list[tuple[str, object]]:
    """(name, axes) of the figure's drawn panels, colour bars included."""
    out = []
    for i, ax in enumerate(fig.axes):
        if ax.get_visible() and ax.axison:
            name = ax.get_title() or ax.get_ylabel() or ax.get_xlabel() or f"axes {i}"
            out.append((f"panel {name!r}", ax))
    return out


def _text_overlaps(d: _Drawn) -> list[tuple[str, str]]:
    return [(d.texts[i].get_text(), d.texts[j].get_text())
            for i, j in itertools.combinations(range(len(d.texts)), 2) if _overlap(d.rects[i], d.rects[j])]


def _texts_over_panels(d: _Drawn) -> list[tuple[str, str]]:
    out = []
    for name, ax in _panels(d.fig):
        own = {id(t) for t in ax.findobj(mtext.Text)}
        area = _bbox(ax.get_window_extent(d.renderer))
        out += [(t.get_text(), name) for t, r in zip(d.texts, d.rects)
                if id(t) not in own and _overlap(r, area)]
    return out


def _data_marks(ax, renderer) -> list[tuple[str, Rect]]:
    """(name, rectangle) of what a legend must not hide: bars, error bars, scatter points, and
    the data series among the lines (those in data coordinates with a legend label, not
    reference lines across the axes such as axhline): each segment by its box."""
    marks = []
    series = [ln for ln in ax.lines if ln.get_transform() is ax.transData and not ln.get_label().startswith("_")]
    series += [c.lines[0] for c in ax.containers if isinstance(c, ErrorbarContainer) and c.lines[0] is not None]
    for line in series:
        xy = ax.transData.transform(line.get_xydata())
        name = f"line {line.get_label()!r}" if not line.get_label().startswith("_") else "error bar line"
        for (x0, y0), (x1, y1) in itertools.pairwise(xy):
            if math.isfinite(x0 + y0 + x1 + y1):
                marks.append((name, _box(min(x0, x1) - 1, min(y0, y1) - 1, max(x0, x1) + 1, max(y0, y1) + 1)))
    for c in ax.containers:
        if isinstance(c, BarContainer):
            marks += [(f"bar {i}", _bbox(p.get_window_extent(renderer))) for i, p in enumerate(c.patches)]
        elif isinstance(c, ErrorbarContainer):
            for lines in c.lines[2]:
                for i, seg in enumerate(lines.get_segments()):
                    (x0, y0), (x1, y1) = ax.transData.transform(seg[[0, -1]])
                    marks.append((f"error bar {i}", _box(x0 - 1, y0 - 1, x1 + 1, y1 + 1)))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and len(coll.get_offsets()):
            r = math.sqrt(float(coll.get_sizes()[0])) / 2 * ax.figure.dpi / 72
            points = coll.get_offset_transform().transform(coll.get_offsets())
            marks += [(f"point {i} of {coll.get_label()!r}", _box(x - r, y - r, x + r, y + r))
                      for i, (x, y) in enumerate(points)]
    return marks


def _legends_over_data(d: _Drawn) -> list[tuple[str, str]]:
    out = []
    for leg in [ax.get_legend() for ax in d.fig.axes] + list(d.fig.legends):
        if leg is None or not leg.get_visible():
            continue
        box = _bbox(leg.get_window_extent(d.renderer))
        name = "legend (" + ", ".join(t.get_text() for t in leg.get_texts()[:3]) + ")"
        for panel, ax in _panels(d.fig):
            hidden = [(name, f"{mark} in {panel}") for mark, rect in _data_marks(ax, d.renderer)
                      if _overlap(box, rect)]
            out += list(dict.fromkeys(hidden))  # a line once, not segment by segment
    return out


def text_overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of texts (as shown) of the figure, drawn, whose boxes overlap."""
    return _text_overlaps(_draw(fig))


def texts_over_panels(fig) -> list[tuple[str, str]]:
    """(text, panel) for texts drawn over the plotting area of a panel they do not belong to:
    a panel's tick labels over its neighbour, a suptitle or a figure legend over a panel."""
    return _texts_over_panels(_draw(fig))


def legends_over_data(fig) -> list[tuple[str, str]]:
    """(legend, mark) for a legend drawn over a bar, an error bar or a scatter point of any
    panel: the legend hides the data."""
    return _legends_over_data(_draw(fig))


def fractional_rounds(fig) -> list[str]:
    """Tick labels of a round axis (its label names a round) that are not whole numbers: a game
    has round 2 and round 3, not 2.5 (issue 70: the marker chart's round axis read 2.5, 5.0)."""
    out = []
    for ax in fig.axes:
        for axis, label, ticks in (("x", ax.get_xlabel(), ax.get_xticklabels()),
                                   ("y", ax.get_ylabel(), ax.get_yticklabels())):
            if "round" not in label.lower():
                continue
            bad = [t.get_text() for t in ticks if t.get_visible() and t.get_text()
                   and not t.get_text().lstrip("−-").isdigit()]
            if bad:
                out.append(f"{axis} axis {label!r} ticks {bad}")
    return out


def figure_problems(fig) -> list[str]:
    """Everything that makes the figure's labels unreadable, one line each (one draw)."""
    d = _draw(fig)
    return ([f"texts overlap: {a!r} / {b!r}" for a, b in _text_overlaps(d)]
            + [f"text over another panel: {a!r} over {b}" for a, b in _texts_over_panels(d)]
            + [f"legend over data: {a} over {b}" for a, b in _legends_over_data(d)]
            + [f"round axis with a fractional tick: {a}" for a in fractional_rounds(fig)])


# -- the checks can fail -------------------------------------------------------------------------
def test_a_round_axis_with_fractional_ticks_is_found():
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3, 4], [0, 1, 2, 3])  # the default ticks: 1.0, 1.5, 2.0, ...
    ax.set_xlabel("round")
    assert any("fractional" in p for p in figure_problems(fig))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    assert not figure_problems(fig)
    plt.close(fig)


def test_overlapping_labels_are_found():
    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, "first label")
    ax.text(0.52, 0.5, "second label")
    ax.set_title("a title")
    assert text_overlaps(fig) == [("first label", "second label")]
    plt.close(fig)


def test_crowded_tick_labels_are_found():
    fig, ax = plt.subplots(figsize=(3, 3))
    ax.bar(range(12), range(12))
    labels = [f"long label {i}" for i in range(12)]
    ax.set_xticks(range(12), labels)
    assert ("long label 0", "long label 1") in text_overlaps(fig)
    ax.set_xticks(range(12), labels, rotation=90)
    assert text_overlaps(fig) == []
    plt.close(fig)


def test_a_clean_figure_passes():
    fig, (ax, bars) = plt.subplots(ncols=2, figsize=(8, 4))
    ax.plot([0, 1, 2], [1, 3, 2], label="a line")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title("title")
    ax.legend(loc="lower right")
    ax.annotate("peak", (1, 3), xytext=(1.2, 2.5))
    bars.bar([0, 1], [1, 2], label="bars")
    bars.set_ylim(0, 4)
    bars.legend(loc="upper left")
    fig.suptitle("suptitle")
    fig.tight_layout()
    assert figure_problems(fig) == []
    plt.close(fig)


def test_hidden_texts_do_not_count():
    """Tick labels outside the view limits, invisible texts and axes, empty texts."""
    fig, (ax, other) = plt.subplots(ncols=2)
    ax.set_xticks(range(10), [f"tick {i}" for i in range(10)])
    ax.set_xlim(-0.5, 0.5)  # only "tick 0" is in view; the others keep their (stale) places
    ax.text(0.5, 0.5, "hidden").set_visible(False)
    ax.text(0.5, 0.5, "shown")
    ax.text(0.5, 0.5, "")
    other.text(0.5, 0.5, "in an invisible axes")
    other.text(0.5, 0.5, "also in it")
    other.set_visible(False)
    assert figure_problems(fig) == []
    plt.close(fig)


def test_rotated_neighbours_are_not_an_overlap():
    """Rotated tick labels side by side: their axis-aligned boxes overlap, the texts do not."""
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.set_xticks(range(8), [f"a rather long label {i}" for i in range(8)], rotation=30, ha="right")
    fig.tight_layout()
    d = _draw(fig)
    ticks = [b for b in (t.get_window_extent(d.renderer) for t in d.texts) if b.width > 40]
    assert any(a.overlaps(b) for a, b in itertools.pairwise(ticks))  # the axis-aligned boxes do
    assert text_overlaps(fig) == []
    plt.close(fig)


def test_labels_over_a_neighbouring_panel_are_found():
    fig, (a, b) = plt.subplots(ncols=2, figsize=(5, 3))
    fig.subplots_adjust(wspace=0.05)
    b.set_yticks([0.2, 0.8], ["a long row label", "another long one"])
    assert texts_over_panels(fig) == [("a long row label", "panel 'axes 0'"),
                                      ("another long one", "panel 'axes 0'")]
    b.tick_params(labelleft=False)
    assert texts_over_panels(fig) == []
    plt.close(fig)


def test_a_legend_over_a_bar_is_found():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar([0, 1], [10, 9.5], label="win share")
    ax.axhline(5, label="fair share")
    ax.legend(loc="upper right")
    assert legends_over_data(fig) == [("legend (fair share, win share)", "bar 1 in panel 'axes 0'")]
    ax.set_ylim(0, 16)
    assert legends_over_data(fig) == []
    plt.close(fig)


def test_a_legend_over_a_line_is_found_and_over_a_reference_line_is_not():
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(0, 3, 61)
    ax.step(x, 2.5 + 0.3 * np.sin(4 * x), where="mid", label="a distribution")
    ax.axhline(0.3, color="black", label="reference")
    ax.set_ylim(0, 3.2)
    ax.legend(loc="upper center")
    assert legends_over_data(fig) == [("legend (a distribution, reference)",
                                       "line 'a distribution' in panel 'axes 0'")]
    ax.legend(loc="lower center")  # over the reference line only
    assert legends_over_data(fig) == []
    plt.close(fig)


def test_spread_keeps_names_a_line_apart():
    from simcell.reports.style import spread

    assert spread([0.1, 0.5, 0.9], 0.1).tolist() == [0.1, 0.5, 0.9]  # far enough apart: unmoved
    at = spread([0.5, 0.5, 0.52, 0.98, 1.0], 0.1)
    assert np.all(np.diff(at) >= 0.1 - 1e-12) and at[-1] <= 1.0 and at[0] >= 0.0
    assert at[0] == 0.5 and at[-1] == 1.0


# -- the report's figures ------------------------------------------------------------------------
PLANNER = '[[field]]\nname = "planner"\npolicy = "planner"\n'
ARCHETYPES = ('[[field]]\nname = "archetype pool"\npool = ["enzyme_focused", "protein_pipeline", '
              '"steroid_pipeline", "detox_goals", "balanced"]\n')
RUNS = {  # name: players, games per player count and field, fields
    "2p": ("2", 4000, PLANNER),
    "5p-two-fields": ("5", 2000, PLANNER + "\n" + ARCHETYPES),
    "2-5p": ("[2, 3, 4, 5]", 1500, PLANNER),
}
_made: dict[str, Path] = {}


def made_run(name: str, tmp_path_factory) -> Path:
    """The run directory of RUNS[name], played once per test session."""
    if name not in _made:
        players, games, fields = RUNS[name]
        folder = tmp_path_factory.mktemp(f"figures_{name}")
        config = folder / "run.toml"
        config.write_text(f"[run]\nplayers = {players}\ngames = {games}\nseed = 38\n\n{fields}")
        _made[name] = folder / "out"
        Runner(config, RunOptions(out=_made[name], workers=1)).run()
    return _made[name]


@pytest.mark.parametrize("name", list(RUNS))
def test_no_report_figure_has_overlapping_labels(name, tmp_path_factory):
    from simcell.reports.build import bands_of
    from simcell.reports.sections import front

    run = RunData(made_run(name, tmp_path_factory))
    problems, figures, tables = [], 0, {}

    def check(key, section):
        nonlocal figures
        tables.update({t.name: t.data for t in section.tables})
        for f in section.figures:  # before Section.rendered(): f.fig is a matplotlib Figure
            figures += 1
            found = figure_problems(f.fig)
            plt.close(f.fig)
            if found:
                more = f"\n    ... and {len(found) - 10} more" if len(found) > 10 else ""
                problems.append(f"{key}: figure {f.name!r} ({f.title}):\n    "
                                + "\n    ".join(found[:10]) + more)

    for key, build in SECTIONS.items():
        check(key, build(run))
    check("front sheet", front.build(run, tables, bands_of(run)))  # from the sections' tables
    assert figures > 0
    assert not problems, "report figures with unreadable labels:\n" + "\n".join(problems)


def test_funnel_names_many_flagged_cards_readably(tmp_path_factory):
    """A long run flags more cards than these short ones: flag the 15 strongest within-type
    contrasts of a real segment; every name is shown, and none overlaps another."""
    from simcell.reports.sections import cards

    run = RunData(made_run("2p", tmp_path_factory))
    frame = cards.segment_cards(run, run.segments[0], 1.0).copy()
    strongest = frame["contrast_pp"].abs().sort_values(ascending=False).index[:15]
    frame["flagged"] = frame.index.isin(strongest)
    fig = cards._funnel(frame, run.segments[0])
    found = figure_problems(fig)
    shown = {t.get_text() for t in _draw(fig).texts}
    plt.close(fig)
    assert set(frame.loc[strongest, "name"]) <= shown
    assert not found, "funnel plot with 15 flagged cards:\n" + "\n".join(found)


def test_the_marker_chart_counts_whole_rounds(tmp_path_factory):
    """Issue 70: the First Player Marker chart's round axis read 2.5, 5.0, 7.5 (a game has no
    round 2.5; with a panel per player count, each panel narrow); every figure with a round axis
    now ticks whole rounds."""
    run = RunData(made_run("2-5p", tmp_path_factory))
    found = {}
    for build in SECTIONS.values():
        for f in build(run).figures:
            f.fig.canvas.draw()  # tick labels are set when drawn
            found[f.name] = fractional_rounds(f.fig)
            plt.close(f.fig)
    assert "seat_marker_holder" in found and "lead_stability" in found
    assert not any(found.values()), {k: v for k, v in found.items() if v}
