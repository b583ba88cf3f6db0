"""The numba layer's array indexing without numba's negative-index wraparound (kernel/jit.py,
_kernel_indices_unwrapped): code of simcell.kernel and simcell.policies indexes as it is, any
other numba code (simcell's other packages, user policies) keeps Python's meaning of a negative
index, and a bounds-checked build, which then rejects any negative index the kernel would use,
plays a slice of every built-in policy to the same games."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from simcell.kernel.jit import install_patches

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import numba

@numba.njit
def item(a, i):
    return a[i]

@numba.njit(boundscheck=True, _nrt=False)
def checked_item(a, i):
    return a[i]
"""


def _probe(module_name: str):
    """`item` compiled as a function of module `module_name`, and its LLVM IR."""
    module = types.ModuleType(module_name)
    exec(PROBE, module.__dict__)
    sys.modules[module_name] = module
    try:
        a = np.arange(5)
        assert module.item(a, 2) == 2
        return module.item, module.item.inspect_llvm(module.item.signatures[0])
    finally:
        del sys.modules[module_name]


def _wraps(ir: str, module_name: str) -> bool:
    """Does `item`'s compiled body (numba's mangled name: _ZN, then each part of the module's
    name after its length; not the CPython wrapper) compare its index with 0, numba's
    wraparound?"""
    symbol = "@_ZN" + "".join(f"{len(part)}{part}" for part in module_name.split("."))
    body = next(part for part in ir.split("define ") if symbol in part.split("(")[0])
    return "icmp slt" in body


def test_kernel_code_indexes_as_is_and_other_code_keeps_the_wraparound() -> None:
    assert install_patches(), "numba's indexing is not laid out as kernel/jit.py expects"
    for name in ("simcell.kernel._index_probe", "simcell.policies._index_probe"):
        _, kernel_ir = _probe(name)
        assert not _wraps(kernel_ir, name), f"{name} still wraps negative indices"
    # so a bounds-checked kernel rejects a negative index (the test below relies on it)
    module = types.ModuleType("simcell.kernel._checked_probe")
    exec(PROBE, module.__dict__)
    sys.modules[module.__name__] = module
    try:
        assert module.checked_item(np.arange(5), 4) == 4
        with pytest.raises(IndexError):
            module.checked_item(np.arange(5), -1)
    finally:
        del sys.modules[module.__name__]
    # simcell outside the numba layer, and user modules, even ones named alike
    for name in ("simcell.runner._index_probe", "simcell_policies", "user_policies"):
        item, ir = _probe(name)
        assert _wraps(ir, name)
        assert item(np.arange(5), -1) == 4  # Python's meaning, as numba gives it


BOUNDS_CHECKED = """
import sys
from tests.test_play_digests import DIGESTS, FIELDS, digest
from simcell.config.load import load_default_game
from simcell.runner.fields import homogeneous
from simcell.runner.games import play_chunk
game = load_default_game()
for players in (2, 5):
    for policy in ("random", "greedy", "planner", "enzyme_focused", "protein_pipeline",
                   "steroid_pipeline", "detox_goals", "balanced"):
        play_chunk(game, players, 11, 0, 100, homogeneous(policy, players), blocks=4)
    play_chunk(game, players, 11, 0, 1, homogeneous("rollout", players, playouts=2, candidates=3),
               blocks=1)
changed = [f for f in FIELDS if digest(*f) != DIGESTS[f]]
print("changed:", changed)
sys.exit(1 if changed else 0)
"""


def test_a_bounds_checked_build_plays_every_policy_to_the_same_games(tmp_path: Path) -> None:
    """numba's bounds checks (NUMBA_BOUNDSCHECK=1) test each index after the wraparound step,
    so without it they raise IndexError for any negative index the kernel uses, and for any
    index past an array's end. A slice of every built-in policy at 2 and 5 players (the rollout
    with a small budget) plays clean, and the heuristic fields play the games of
    test_play_digests. Compiles the three game loops afresh with the checks (about 2 minutes)."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", BOUNDS_CHECKED], cwd=ROOT, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert "changed: []" in result.stdout
