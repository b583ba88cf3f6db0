"""User policies: a plain Python function in a file outside the package, named in a config as
"path/to/file.py:function", compiled here with numba as a C callback of one fixed signature and
handed to the cached kernel, which calls it by pointer (so the kernel never recompiles; the user
function compiles on each run, in about a second).

The signature (docs/policies.md, "Your own policy"):

    def my_policy(obs, legal, n_legal, params, key) -> int

    obs      int64[:]   the seat's observation (simcell/kernel/observation.py layout)
    legal    int64[:]   legal action codes; the first n_legal are this decision's, ascending
    n_legal  int        how many (always 2 or more)
    params   float64[:] the field's `params` for this policy, in name order, zero-padded
    key      uint64     this decision's chance-stream key (hash it for draws)
    returns  the index in 0 .. n_legal - 1 of the chosen action

The body must compile in numba's nopython mode (numpy and plain loops; no Python objects).
"""

from __future__ import annotations

import importlib.util
import inspect
from functools import lru_cache
from pathlib import Path

import numba
from numba import types

USER_SIGNATURE = types.int64(
    types.int64[::1], types.int64[::1], types.int64, types.float64[::1], types.uint64
)
PARAMETERS = ("obs", "legal", "n_legal", "params", "key")


class UserPolicyError(ValueError):
    """A user policy that cannot be loaded, compiled or played."""


def _no_user_policy(obs, legal, n_legal, params, key):  # pragma: no cover - compiled
    return 0


@lru_cache(maxsize=1)
def no_user_policy():
    """The callback passed when a field holds no user policy (never called)."""
    return numba.cfunc(USER_SIGNATURE, cache=True)(_no_user_policy)


def _load_function(spec: str, base: Path):
    file_part, _, func_name = spec.partition(":")
    path = Path(file_part)
    path = path if path.is_absolute() else base / path
    if not path.is_file():
        raise UserPolicyError(f"user policy {spec!r}: file not found: {path}")
    module_name = f"simcell_user_policy_{abs(hash(str(path.resolve())))}"
    loader = importlib.util.spec_from_file_location(module_name, path)
    if loader is None or loader.loader is None:
        raise UserPolicyError(f"user policy {spec!r}: cannot import {path}")
    module = importlib.util.module_from_spec(loader)
    try:
        loader.loader.exec_module(module)
    except Exception as exc:  # the user's file failed to import: say where
        raise UserPolicyError(f"user policy {spec!r}: importing {path} failed: {exc}") from exc
    fn = getattr(module, func_name, None)
    if fn is None:
        found = [n for n, v in vars(module).items() if inspect.isfunction(v) and not n.startswith("_")]
        raise UserPolicyError(
            f"user policy {spec!r}: {path.name} has no function {func_name!r}; "
            f"functions there: {', '.join(found) or 'none'}"
        )
    if isinstance(fn, numba.core.registry.CPUDispatcher):
        fn = fn.py_func
    if not inspect.isfunction(fn):
        raise UserPolicyError(f"user policy {spec!r}: {func_name!r} is not a function")
    params = list(inspect.signature(fn).parameters)
    if len(params) != len(PARAMETERS):
        raise UserPolicyError(
            f"user policy {spec!r}: takes ({', '.join(params)}) but a policy takes exactly "
            f"({', '.join(PARAMETERS)}); see docs/policies.md, 'Your own policy'"
        )
    return fn


def compile_user_policy(spec: str, base: Path = Path(".")):
    """The compiled callback of a user policy "file.py:function" (paths relative to `base`)."""
    fn = _load_function(spec, base)
    try:
        return numba.cfunc(USER_SIGNATURE)(fn)
    except Exception as exc:
        first = str(exc).strip().splitlines()
        raise UserPolicyError(
            f"user policy {spec!r} does not compile with numba as "
            f"int64(obs: int64[:], legal: int64[:], n_legal: int64, params: float64[:], key: uint64): "
            f"{first[0] if first else type(exc).__name__}"
        ) from exc
