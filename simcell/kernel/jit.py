"""The one decorator of the numba layer, and where its compiled code is cached.

`kernel_jit` compiles with `cache=True` (no recompilation per run) and `_nrt=False`: kernel code
allocates nothing (every buffer lives in the State) and, without numba's reference counting,
passing the State struct between rules functions costs nothing.

numba invalidates a cached function only when its own file changes, not when a function it
calls from another file does; a stale cache would then run old rules. So the cache lives in a
folder named by a hash of every numba-layer source file (`CODE_HASH`, for runs to record):
any change to the kernel or the policies compiles afresh. This module is imported before any
jitted function is defined.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import os
from pathlib import Path

import numba

_PACKAGE = Path(__file__).resolve().parent.parent
NUMBA_LAYER = ("kernel", "policies")


def _code_hash() -> str:
    """Hash of the syntax trees of every numba-layer file: code changes count, comments and
    formatting do not."""
    h = hashlib.sha256()
    for folder in NUMBA_LAYER:
        for path in sorted((_PACKAGE / folder).glob("*.py")):
            h.update(path.name.encode())
            h.update(ast.dump(ast.parse(path.read_text(encoding="utf-8"))).encode())
    return h.hexdigest()


CODE_HASH = _code_hash()


def _cache_dir() -> Path:
    base = os.environ.get("SIMCELL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "simcell"
    )
    return Path(base) / f"numba-{CODE_HASH[:16]}"


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(_cache_dir())


class _InlineCopy:
    """Stands in for the `copy` module inside numba.core.inline_closurecall (compile time only).

    Inlining a function at numba IR level copies the callee's IR block by block with one
    copy.deepcopy per block (InlineWorker.inline_ir). Every variable refers to the function's
    one Scope, which lists every variable, so each block's copy copied the whole Scope again:
    blocks x variables work per inlined call. With the kernel's rules inlined into the turn loop
    that was about half a cold compile (48 million variable copies; 730 s -> 355 s). Here the
    copies made during one inline_ir call share one memo, so the Scope is copied once, as a
    single deepcopy of the whole IR would; the inlined code is the same."""

    def __init__(self):
        self.memo: dict | None = None
        self.enabled = True  # tests compare with numba's own copying

    def deepcopy(self, x, memo=None):
        return copy.deepcopy(x, self.memo if memo is None and self.memo is not None else memo)

    def __getattr__(self, name):
        return getattr(copy, name)


def _share_inline_copy_memo() -> _InlineCopy | None:
    """Install _InlineCopy in numba's IR inliner; None (and nothing changed) if this numba's
    inliner is not laid out as expected."""
    try:
        from numba.core import inline_closurecall as icc

        worker = icc.InlineWorker
        inline_ir = worker.inline_ir
    except (ImportError, AttributeError):
        return None
    if getattr(icc, "copy", None) is not copy:
        return None
    shim = _InlineCopy()

    def shared_memo_inline_ir(self, *args, **kwargs):
        outer, shim.memo = shim.memo, ({} if shim.enabled else None)
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            shim.memo = outer

    icc.copy = shim
    worker.inline_ir = shared_memo_inline_ir
    return shim


INLINE_COPY = _share_inline_copy_memo()  # the installed _InlineCopy, or None


KERNEL_SYMBOL = "_ZN7simcell"  # how numba's mangled name of a function in this package begins


def _kernel_indices_unwrapped() -> bool:
    """Compile the kernel's array indexing without numba's negative-index wraparound. numba
    treats a signed index i < 0 as i + len, as Python does: a compare and an add against the
    array's length (loaded from the stack) before every access, about 8,000 bytes of the turn
    loop's 77,000, on every load of the hot paths. The kernel never indexes from the end (its
    -1s are "none" markers it tests before indexing), so for kernel code (whose functions
    numba names _ZN7simcell...; inlined callees are lowered inside them) an index is used as
    it is. User policies and any other numba code keep the wraparound. A build with numba's
    bounds checks (NUMBA_BOUNDSCHECK=1), which then rejects any negative index, plays every
    policy clean (tests/test_kernel_indices.py). False (nothing changed) if this numba's
    indexing is not laid out as expected."""
    try:
        from numba.core import types
        from numba.np import arrayobj
    except ImportError:
        return False
    numba_fix = getattr(arrayobj, "fix_integer_index", None)
    if numba_fix is None:
        return False

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and builder.function.name.find(KERNEL_SYMBOL) >= 0:
            return context.cast(builder, idx, idxty, types.intp)
        return numba_fix(context, builder, idxty, idx, size)

    arrayobj.fix_integer_index = fix_integer_index
    return True


KERNEL_INDICES_UNWRAPPED = _kernel_indices_unwrapped()


def kernel_jit(fn):
    """Compile a numba-layer function: nopython, cached, no reference counting."""
    return numba.njit(cache=True, _nrt=False)(fn)


def kernel_jit_inline(fn):
    """As kernel_jit, and inlined into its callers at numba IR level. Without it, a call that
    takes the State and GameTables passes them as ~870 flattened machine words (measured: about
    250 ns a call), so every rules function called on each turn is inlined; only the entry
    points (play_chunk, play_game, write_records, setup) keep a real call."""
    return numba.njit(cache=True, _nrt=False, inline="always")(fn)
