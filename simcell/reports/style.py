"""One look for every report figure: type sizes, and colours that stay the same for a card type,
an HP source and a policy across figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files only, no display; set before pyplot is imported anywhere

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from simcell.vocabulary import (  # noqa: E402
    CARD_TYPE_LABELS,
    CARD_TYPE_PLURALS,
    COMPLETED_TYPES,
    HP_SOURCES,
)

RC = {
    "figure.figsize": (7.5, 4.2),
    "figure.dpi": 110,
    "font.size": 10,
    "axes.titlesize": 12,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.hashsalt": "simcell",
}

# card types (and the HP sources named after them): one colour each, everywhere
TYPE_COLOURS = {
    "enzyme": "#1b9e77",
    "protein_hormone": "#d95f02",
    "steroid_hormone": "#7570b3",
    "protein_receptor": "#e7298a",
    "steroid_receptor": "#66a61e",
    "detox": "#e6ab02",
    "additional_resource": "#a6761d",
}
SOURCE_COLOURS = {**{t: TYPE_COLOURS[t] for t in COMPLETED_TYPES},
                  "goal_marker": "#1f78b4", "goal_bonus": "#a6cee3",
                  "receptor_bonus": "#fb9a99", "event": "#999999", "start": "#cab2d6"}
assert set(SOURCE_COLOURS) == set(HP_SOURCES)
POLICY_PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb",
                  "#000000")


def policy_colours(names: list[str]) -> dict[str, str]:
    """A colour per policy name: fixed by the sorted order of every policy in the run, so a
    policy keeps its colour in every figure of a report."""
    return {n: POLICY_PALETTE[i % len(POLICY_PALETTE)] for i, n in enumerate(sorted(set(names)))}


def figure(**kwargs):
    """A new figure in the report's style."""
    with plt.rc_context(RC):
        fig, ax = plt.subplots(**kwargs)
    return fig, ax


def pretty(name: str) -> str:
    return name.replace("_", " ")


def type_label(name: str) -> str:
    """A card type by its one name (vocabulary.CARD_TYPE_LABELS): "Protein Hormone Receptor",
    never protein_receptor or "Protein Receptor"."""
    return CARD_TYPE_LABELS.get(name, pretty(name))


def source_label(name: str) -> str:
    """An HP source by name: the completed cards of a type by the type's plural
    ("Protein Hormone Receptors"), the others in words ("goal marker")."""
    return CARD_TYPE_PLURALS.get(name, pretty(name))


# a column of names beside a figure's axes (name_points): the spacing, in multiples of the font size
LABEL_LINE = 1.4


def label_column_height(n: int, fontsize: float = 7.0) -> float:
    """Inches a column of n names takes: the axes height that fits them (name_points)."""
    return n * fontsize * LABEL_LINE / 72


def spread(wanted, gap: float, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """Positions as near to `wanted` (ascending) as they can be while at least `gap` apart,
    within [low, high] when they fit there: moved up past the ones below, then down from the
    top."""
    out = np.clip(np.asarray(wanted, dtype=float), low, high)
    for i in range(1, len(out)):
        out[i] = max(out[i], out[i - 1] + gap)
    if len(out) and out[-1] > high:
        out[-1] = high
        for i in range(len(out) - 2, -1, -1):
            out[i] = min(out[i], out[i + 1] - gap)
    return out


def name_points(ax, x, y, names, fontsize: float = 7.0) -> None:
    """Name points of `ax` in a column beside its right edge, each name joined to its point by
    a thin line: in the order of the points' heights, at least a line apart, as near to their
    points' heights as that allows. Names written at their points overlap when the points are
    close (flagged cards dealt about equally often). Call after everything that sets the y
    limits is drawn (they are fixed here) and after the axes' final position is set (its height
    fits label_column_height(len(names)) or more)."""
    x, y, names = np.asarray(x, dtype=float), np.asarray(y, dtype=float), [str(n) for n in names]
    if not len(names):
        return
    low, high = ax.get_ylim()
    ax.set_ylim(low, high)
    height_in = ax.get_position().height * ax.figure.get_figheight()
    order = sorted(range(len(names)), key=lambda i: (y[i], names[i]))
    at = spread([(y[i] - low) / (high - low) for i in order], fontsize * LABEL_LINE / 72 / height_in)
    for i, level in zip(order, at):
        ax.annotate(names[i], (x[i], y[i]), xytext=(1.03, level), textcoords="axes fraction",
                    ha="left", va="center", fontsize=fontsize, annotation_clip=False,
                    arrowprops={"arrowstyle": "-", "color": "#888888", "lw": 0.6, "shrinkA": 0,
                                "shrinkB": 2})
