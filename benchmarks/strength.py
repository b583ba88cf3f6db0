"""Shared by the strength benchmarks: a duplicate-mode match between a challenger policy and a
field policy, scored per deal (every deal played under every seat rotation, so deal luck
cancels), with a normal interval over independent deals."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from simcell.config.load import PolicyField, load_default_game
from simcell.runner.fields import seating
from simcell.runner.games import play_chunk


@dataclass
class Match:
    players: int
    deals: int
    margin_pp: float  # challenger's mean win share minus its fair share 1/P, percentage points
    half_width_pp: float  # 95% interval half-width
    challenger_hp: float
    field_hp: float

    def line(self, label: str) -> str:
        return (f"{label:<34} {self.players}p  {self.margin_pp:+6.1f} pp ± {self.half_width_pp:4.1f}"
                f"   (HP {self.challenger_hp:5.1f} vs {self.field_hp:5.1f}; {self.deals} deals)")


def _chunk(args):
    field, players, seed, first, n = args
    s = seating(field, players)
    chunk = play_chunk(load_default_game(), players, seed, first, n, s, duplicate=True)
    return chunk.players, s.rotations


def duplicate_match(
    challenger: str, field_policy: str, players: int, deals: int, seed: int,
    params: dict[str, dict[str, float]] | None = None, workers: int | None = None,
) -> Match:
    """The challenger in one seat, the field policy in the others; each deal under every
    cyclic rotation of the seats."""
    pool = (challenger,) + (field_policy,) * (players - 1) if challenger != field_policy else None
    names = dict(params or {})
    if pool is None:  # the same policy with other parameters: a user-distinct label is needed
        raise ValueError("challenger and field must be different policies")
    field = PolicyField(name="match", pool=pool, rotation="cyclic",
                        params=tuple((k, tuple(sorted(v.items()))) for k, v in names.items()))
    games = deals * players
    workers = workers or os.cpu_count() or 1
    step = -(-deals // workers) * players
    jobs = [(field, players, seed, start, min(step, games - start)) for start in range(0, games, step)]
    if workers == 1:
        parts = [_chunk(j) for j in jobs]
    else:
        with ProcessPoolExecutor(len(jobs)) as ex:
            parts = list(ex.map(_chunk, jobs))
    rec = np.concatenate([p for p, _ in parts])
    rec = rec[np.argsort(rec["game"] * players + rec["seat"], kind="stable")]
    mine = rec["policy"] == 0
    deal = rec["deal"]
    share = np.bincount(deal[mine], weights=rec["win_share"][mine], minlength=deals) / players
    d = share - 1.0 / players
    return Match(
        players, deals, 100 * d.mean(), 100 * 1.96 * d.std(ddof=1) / np.sqrt(deals),
        float(rec["final_hp"][mine].mean()), float(rec["final_hp"][~mine].mean()),
    )
