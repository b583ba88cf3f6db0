"""`simcell compare` calibrated over independent seeds (docs/method.md §16),
slow: 40 replicates each.

- A/A: the config against itself on independent seeds (unpaired): at most 5% of the headline
  comparisons flagged after Holm.
- Planted: one card +3 HP against the config on independent seeds (unpaired): the card's
  effect flagged (BH q < 0.05) in at least 80% of replicates.
- Paired: one real change (Insulin +1 ATP) on each of 40 seeds, paired: each replicate's 95%
  interval covers the mean of all replicates' differences in 92.5–97.5% of cases, pooled over
  the headline figures and the changed card's figures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simcell.tools.compare.report import build_compare
from simcell.runner.run import RunOptions, Runner

from tests.test_compare import BASE  # three players, the greedy policy in every seat

REPLICATES = 40
GAMES = 4000
PLANTED = '\n[overrides.cards."Lactase"]\nhp = {hp}\n'
DEARER = '\n[overrides.cards."Insulin"]\natp = 2\n'  # shipped: 1


def run(folder: Path, name: str, seed: int, extra: str = "") -> Path:
    config = folder / f"{name}.toml"
    config.write_text(BASE.format(games=GAMES, seed=seed) + extra)
    Runner(config, RunOptions(out=folder / name, workers=1)).run()
    return folder / name


def run_at(folder: Path, name: str, seed: int, games: int, extra: str = "") -> Path:
    config = folder / f"{name}.toml"
    config.write_text(BASE.format(games=games, seed=seed) + extra)
    Runner(config, RunOptions(out=folder / name, workers=1)).run()
    return folder / name


@pytest.mark.slow
def test_a_over_a_flags_at_most_five_percent(tmp_path):
    flagged, comparisons = 0, 0
    for r in range(REPLICATES):
        a, again = run(tmp_path, f"a{r}", 1000 + r), run(tmp_path, f"aa{r}", 2000 + r)
        head = pd.read_csv(build_compare(a, again, tmp_path / f"c{r}", unpaired=True) / "tables" / "headline.csv")
        flagged += int((head["p_holm"] < 0.05).sum())
        comparisons += len(head)
    print(f"\nA/A: {flagged} of {comparisons} headline comparisons flagged after Holm")
    assert flagged <= 0.05 * comparisons


@pytest.mark.slow
def test_a_planted_card_is_flagged_at_the_advised_games(tmp_path):
    """Lactase +3 HP against the config on independent seeds. The games come from the sample-size
    advice for one card screened among all: N x ((z + z_power) x SE / effect)^2, with the effect
    from a large paired pilot, the unpaired SE from pilot pairs on independent seeds, z the
    two-sided t quantile the card must pass to be first under Benjamini-Hochberg over the cards
    (alpha / cards), and 95% power: designed for 80% exactly, 40 replicates would miss 80% in
    four runs of ten by chance alone (at 90%, 32 of 40 were seen twice)."""
    from scipy import stats

    from simcell.config.load import load_default_game

    cards = load_default_game().cards
    extra = PLANTED.format(hp=next(c for c in cards if c.name == "Lactase").hp + 3)

    def lactase(out: Path) -> pd.Series:
        return pd.read_csv(out / "tables" / "cards.csv").set_index("name").loc["Lactase"]

    pilot = 25 * GAMES  # the effect from a paired pilot of its own size; the SE at GAMES
    paired = lactase(build_compare(run_at(tmp_path, "pilot", 4000, pilot),
                                   run_at(tmp_path, "pilot-planted", 4000, pilot, extra), tmp_path / "pp"))
    ses = []
    for k in range(4):
        u = lactase(build_compare(run(tmp_path, f"base{k}", 4100 + k), run(tmp_path, f"other{k}", 4200 + k, extra),
                                  tmp_path / f"pu{k}", unpaired=True))
        ses.append((u["open_hand_win_pp_high"] - u["open_hand_win_pp_low"]) / (2 * stats.t.ppf(0.975, 63)))
    effect, se = paired["open_hand_win_pp_diff"], float(np.sqrt(np.mean(np.square(ses))))
    # t quantiles: a difference's interval has the blocks' K - 1 = 63 degrees of freedom
    z = stats.t.ppf(1 - 0.05 / (2 * len(cards)), 63)
    games = int(np.ceil(GAMES * ((z + stats.t.ppf(0.95, 63)) * se / effect) ** 2))
    assert effect > 0 and games < 200_000, (effect, se, games)
    detected = 0
    for r in range(REPLICATES):
        a = run_at(tmp_path, f"a{r}", 6000 + r, games)
        b = run_at(tmp_path, f"b{r}", 7000 + r, games, extra)
        row = lactase(build_compare(a, b, tmp_path / f"c{r}", unpaired=True))
        detected += int(row["effect_q"] < 0.05 and row["open_hand_win_pp_diff"] > 0)
    print(f"\nplanted card: effect {effect:+.2f} pp (paired pilot, {pilot:,} games), unpaired SE "
          f"{se:.2f} pp at "
          f"{GAMES:,} games; advised {games:,} games; detected in {detected} of {REPLICATES}")
    assert detected >= 0.8 * REPLICATES


@pytest.mark.slow
def test_paired_intervals_cover_the_mean_change(tmp_path):
    diffs, lows, highs = [], [], []
    for r in range(REPLICATES):
        a = run(tmp_path, f"a{r}", 5000 + r)
        b = run(tmp_path, f"b{r}", 5000 + r, DEARER)
        out = build_compare(a, b, tmp_path / f"c{r}")
        head = pd.read_csv(out / "tables" / "headline.csv")
        card = pd.read_csv(out / "tables" / "cards.csv").set_index("name").loc["Insulin"]
        cols = ("open_hand_win_pp", "contrast_pp", "pick_rate_pct", "completion_pct")
        diffs.append(np.concatenate([head["difference"], [card[f"{c}_diff"] for c in cols]]))
        lows.append(np.concatenate([head["low"], [card[f"{c}_low"] for c in cols]]))
        highs.append(np.concatenate([head["high"], [card[f"{c}_high"] for c in cols]]))
    d, lo, hi = np.array(diffs), np.array(lows), np.array(highs)
    mean = d.mean(axis=0)
    covered = (lo <= mean) & (mean <= hi)
    rate = covered.mean()
    print(f"\npaired coverage of the mean change: {covered.sum()} of {covered.size} = {rate:.3f}; "
          f"by figure: {np.round(covered.mean(axis=0), 2).tolist()}")
    assert 0.925 <= rate <= 0.975
