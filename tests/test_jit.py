"""The numba layer's decorators (kernel/jit.py) do what the kernel relies on, on this numba: a
rules function compiles once whatever constants it is called with, has no Python wrapper, is
inlined by LLVM, can still be called from Python (through a companion entry), and a skeleton
inlined at numba IR level has its callers' constant flags prune its branches before typing. Each
test fails if numba's internals they rest on move (the pinned numba in pyproject.toml)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.core.errors import TypingError

from simcell.kernel import jit
from simcell.kernel.jit import (
    KernelDispatcher,
    install_patches,
    kernel_entry,
    kernel_jit,
    kernel_jit_inline,
    kernel_jit_literal,
)
from simcell.kernel.state import GameTables

ROOT = Path(__file__).resolve().parent.parent


@kernel_jit_inline
def _scaled(x, k):
    return x * k + 1


@kernel_entry
def _twice_scaled(x):
    return _scaled(x, 2) + _scaled(x, 3)


@kernel_jit
def _cannot_type(x):
    return "a" + x  # a typing error if ever compiled


@kernel_jit_literal
def _skeleton(x, use_it):
    if use_it:
        return _cannot_type(x)
    return x + 1


@kernel_entry
def _pruned(x):
    return _skeleton(x, False)


@kernel_entry
def _not_pruned(x):
    return _skeleton(x, True)


def test_the_indexing_patch_is_installed_for_this_numba() -> None:
    assert install_patches()
    assert jit._PATCHED == [True]


FRESH = """
import numpy as np
from tests.test_jit import _scaled, _twice_scaled
from simcell.config.load import load_default_game
from simcell.kernel.legal import free_spot
from simcell.kernel.ref import Ref
from simcell.runner.games import game_state, tables_for

_twice_scaled(np.int64(5))
callee = _scaled.overloads[_scaled.signatures[0]]
caller = _twice_scaled.overloads[_twice_scaled.signatures[0]]
body = [part for part in caller.library.get_llvm_str().split("define ")
        if caller.fndesc.mangled_name in part.split("(")[0]][0]
print("specializations", len(_scaled.signatures), _scaled.signatures[0])
print("wrapper", callee.fndesc.llvm_cpython_wrapper_name in callee.library.get_llvm_str())
print("call_left", callee.fndesc.mangled_name in body)

gt = tables_for(load_default_game(), 3)
st = game_state(gt)
st.spot_occ[:] = -1
assert free_spot(st, gt, 0) == gt.loc_first_spot[0]
sig = free_spot.signatures[0]
cres = free_spot.overloads[sig]
ir = cres.library.get_llvm_str()
define = next(line for line in ir.splitlines()
              if line.startswith("define") and cres.fndesc.mangled_name in line)
print("refs", isinstance(sig[0], Ref) and isinstance(sig[1], Ref))
print("words", define.count(",") + 1)
print("invariant", "!invariant.load" in ir)
"""


def test_rules_compile_once_without_a_wrapper_inlined_and_take_refs(tmp_path) -> None:
    """Compiled afresh (cached code cannot be inspected): a rules function called with the
    constants 2 and 3 has one specialization, for plain types; no CPython wrapper; no call to
    it left in its caller; and the kernel's rules take the State and GameTables as Refs (one
    word each, not ~950), whose loads are marked invariant (kernel/ref.py)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", FRESH], cwd=ROOT, env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert lines["specializations"] == "1 (int64, int64)"
    assert lines["wrapper"] == "False"
    assert lines["call_left"] == "False"
    assert lines["refs"] == "True"
    assert int(lines["words"]) < 10
    assert lines["invariant"] == "True"


def test_a_rules_function_called_from_python_runs_through_a_companion() -> None:
    assert isinstance(_scaled, KernelDispatcher)
    assert _scaled(np.int64(4), np.int64(5)) == 21
    assert _scaled(np.int64(4), np.int64(6)) == 25  # the companion is compiled once
    assert len(_scaled.__dict__["_python_entries"]) == 1


def test_a_skeletons_constant_flag_prunes_what_it_does_not_take_before_typing() -> None:
    assert _pruned(np.int64(4)) == 5  # _cannot_type was never typed
    with pytest.raises(TypingError):
        _not_pruned(np.int64(4))


def test_every_kernel_and_policy_function_uses_the_layers_decorators() -> None:
    """No bare numba.njit in the numba layer: each function must be cached and fenced."""
    import ast
    from pathlib import Path

    root = Path(jit.__file__).resolve().parent.parent
    bare = []
    for folder in jit.NUMBA_LAYER:
        for path in (root / folder).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and node.attr in ("njit", "jit", "cfunc") \
                        and path.name not in ("jit.py", "user.py"):
                    bare.append(f"{path.name}:{node.lineno}")
    assert not bare, bare
    assert "max_legal" in GameTables._fields  # the layer's tables are NamedTuples (kernel/ref.py)


def test_the_code_hash_ignores_docstrings_and_comments_not_code():
    """A kernel file's docstring reworded (its references moved into the repository's docs) leaves the numba
    cache valid; a changed constant does not."""
    import ast

    from simcell.kernel.jit import _code

    def dump(src: str) -> str:
        return ast.dump(_code(ast.parse(src)))

    a = '"""Setup (the rules, section 1)."""\ndef f(x):\n    """doc"""\n    return x + 1  # one\n'
    b = '"""Setup (docs/rules.md §1)."""\ndef f(x):\n    """other doc"""\n    return x + 1\n'
    c = '"""Setup."""\ndef f(x):\n    return x + 2\n'
    assert dump(a) == dump(b) != dump(c)
    assert dump('def g():\n    """only a docstring"""\n') == dump("def g():\n    pass\n")
