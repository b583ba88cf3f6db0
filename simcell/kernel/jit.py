"""The decorators of the numba layer (kernel/, policies/, play/), the one patch of numba it
installs, and where its compiled code is cached.

Four decorators, all compiling with `cache=True` and `_nrt=False` (kernel code allocates
nothing: every buffer lives in the State):
- `kernel_entry`: a function Python calls (the game loops of play/game.py, the record sums).
- `kernel_jit_inline`: a rules or policy function, inlined into its callers by LLVM
  (`forceinline`). Compiled once per argument types, with no CPython or C wrapper.
- `kernel_jit`: the same, called by a real call (rare steps: Phase 2, setup, a completion).
- `kernel_jit_literal`: a small skeleton (a game or turn loop) inlined at numba IR level, so
  that its callers' constant flags prune its branches before typing.
The State and GameTables travel between them as Refs (kernel/ref.py), one word each.

numba invalidates a cached function only when its own file changes, not when a function it
calls from another file does; a stale cache would then run old rules. So the cache lives in a
folder named by a hash of every numba-layer source file (`CODE_HASH`, for runs to record):
any change to the kernel or the policies compiles afresh. This module is imported before any
jitted function is defined.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import os
from pathlib import Path

import numba
from numba.core import types as nbtypes
from numba.core.registry import CPUDispatcher

_PACKAGE = Path(__file__).resolve().parent.parent
NUMBA_LAYER = ("kernel", "policies", "play")  # the packages of compiled code
VOCABULARY = "vocabulary.py"  # plain Python, but its constants are compiled into the kernel


def numba_layer_files() -> list[Path]:
    """Every source file whose code the compiled kernel holds."""
    files = [path for folder in NUMBA_LAYER for path in sorted((_PACKAGE / folder).glob("*.py"))]
    return files + [_PACKAGE / VOCABULARY]


def _code(tree: ast.Module) -> ast.Module:
    """The tree without its docstrings (module, class and function): what they say is not code."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _code_hash() -> str:
    """Hash of the syntax trees of every numba-layer file and the vocabulary: code changes
    count; comments, docstrings and formatting do not."""
    h = hashlib.sha256()
    for path in numba_layer_files():
        h.update(path.relative_to(_PACKAGE).as_posix().encode())
        h.update(ast.dump(_code(ast.parse(path.read_text(encoding="utf-8")))).encode())
    return h.hexdigest()


CODE_HASH = _code_hash()


def _simcell_cache() -> Path:
    base = os.environ.get("SIMCELL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "simcell"
    )
    return Path(base)


def cache_base() -> Path:
    """The folder that holds the numba layer's caches (one subfolder per CODE_HASH), or numba's
    own NUMBA_CACHE_DIR when that is set."""
    return Path(os.environ["NUMBA_CACHE_DIR"]) if os.environ.get("NUMBA_CACHE_DIR") else _simcell_cache()


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(_simcell_cache() / f"numba-{CODE_HASH[:16]}")


KERNEL_SYMBOLS = ("_ZN7simcell6kernel", "_ZN7simcell8policies")  # numba's mangled names
_PATCHED: list[bool] = []  # [whether the indexing patch is in] once install_patches has run


def _kernel_indices_unwrapped() -> bool:
    """Compile the numba layer's array indexing without numba's negative-index wraparound.
    numba treats a signed index i < 0 as i + len, as Python does: a compare and an add against
    the array's length before every access, on every load of the hot paths. The kernel never
    indexes from the end (its -1s are "none"
    markers it tests before indexing), so in functions of simcell.kernel and simcell.policies
    (whose symbols numba names _ZN7simcell6kernel... and _ZN7simcell8policies...) an index is
    used as it is. Any other numba code, user policies included, keeps the wraparound. A build
    with numba's bounds checks (NUMBA_BOUNDSCHECK=1), which then rejects any negative index,
    plays every policy clean (tests/test_kernel_indices.py). False (nothing changed) if this
    numba's indexing is not laid out as expected."""
    try:
        from numba.core import types
        from numba.np import arrayobj
    except ImportError:
        return False
    numba_fix = getattr(arrayobj, "fix_integer_index", None)
    if numba_fix is None or list(inspect.signature(numba_fix).parameters) != [
            "context", "builder", "idxty", "idx", "size"]:
        return False

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and builder.function.name.startswith(KERNEL_SYMBOLS):
            return context.cast(builder, idx, idxty, types.intp)
        return numba_fix(context, builder, idxty, idx, size)

    arrayobj.fix_integer_index = fix_integer_index
    return True


def install_patches() -> bool:
    """Install the indexing patch (once, when the numba layer first compiles or loads a
    function); returns whether it is in."""
    if not _PATCHED:
        _PATCHED.append(_kernel_indices_unwrapped())
    return _PATCHED[0]


class EntryDispatcher(CPUDispatcher):
    """numba's dispatcher, installing the patch before it compiles or loads."""

    def compile(self, sig):
        install_patches()
        return super().compile(sig)


class KernelDispatcher(EntryDispatcher):
    """A numba-layer function compiled for calls from numba code only: no CPython or C wrapper,
    whose unboxing code took longer to compile than most rules. Called from Python (tests,
    benchmarks), it compiles, once per pattern of arguments and uncached, a companion entry
    point that takes the State and GameTables by value and passes their Refs.

    A constant argument is typed as its plain type, not as a literal: numba would compile the
    function again for each constant value it is called with (a dozen copies of the smallest
    rules), and no rules function branches on a literal's value before typing."""

    def get_call_template(self, args, kws):
        return super().get_call_template(
            [nbtypes.unliteral(a) for a in args], {k: nbtypes.unliteral(v) for k, v in kws.items()})

    def __call__(self, *args, **kwargs):
        values = inspect.signature(self.py_func).bind(*args, **kwargs).args
        tuples = tuple(isinstance(v, tuple) and hasattr(v, "_fields") for v in values)
        entries = self.__dict__.setdefault("_python_entries", {})
        entry = entries.get(tuples)
        if entry is None:
            from simcell.kernel.ref import as_ref

            name = self.py_func.__name__
            names = [f"a{i}" for i in range(len(values))]
            passed = [f"as_ref({n})" if t else n for n, t in zip(names, tuples)]
            scope = {"__name__": self.py_func.__module__, "target": self, "as_ref": as_ref}
            exec(f"def {name}({', '.join(names)}):\n    return target({', '.join(passed)})\n",
                 scope)
            entry = _dispatcher(EntryDispatcher, scope[name], cache=False)
            entries[tuples] = entry
        return entry(*values)


def _dispatcher(cls, fn, cache=True, **options):
    disp = cls(py_func=fn, locals={}, targetoptions=dict(nopython=True, boundscheck=None,
                                                         _nrt=False, **options))
    if cache:
        disp.enable_caching()
    return disp


_NO_WRAPPERS = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True)


def kernel_entry(fn):
    """A numba-layer function called from Python."""
    return _dispatcher(EntryDispatcher, fn)


def kernel_jit(fn):
    """A numba-layer function called from numba code by a real call."""
    return _dispatcher(KernelDispatcher, fn, **_NO_WRAPPERS)


def kernel_jit_inline(fn):
    """A numba-layer function inlined into its callers by LLVM (alwaysinline)."""
    return _dispatcher(KernelDispatcher, fn, forceinline=True, **_NO_WRAPPERS)


def kernel_jit_literal(fn):
    """A small numba-layer skeleton inlined into each caller at numba IR level, so that the
    caller's constant flags prune its branches before typing (what the pruned branches call is
    never compiled)."""
    return _dispatcher(EntryDispatcher, fn, inline="always")
