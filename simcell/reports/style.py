"""One look for every report figure: type sizes, and colours that stay the same for a card type,
an HP source and a policy across figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files only, no display; set before pyplot is imported anywhere

import matplotlib.pyplot as plt  # noqa: E402

from simcell.vocabulary import COMPLETED_TYPES, HP_SOURCES  # noqa: E402

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
                  "receptor_bonus": "#fb9a99", "event": "#999999"}
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
