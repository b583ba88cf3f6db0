"""The registry of built-in policies: name -> parameters a config may set, with defaults.

Plain Python (no numba) so the config layer can validate a policy field without compiling.
A user policy is named "path/to/file.py:function" instead of a registry name.
"""

from __future__ import annotations

# name -> {parameter: default}. `random` plays uniformly over the legal actions.
BUILTIN_POLICIES: dict[str, dict[str, float]] = {
    "random": {},
}


def is_user_policy(name: str) -> bool:
    """A user policy is written "file.py:function"."""
    return ":" in name and name.split(":", 1)[0].endswith(".py")


def policy_id(name: str) -> int:
    """The kernel's integer id of a built-in policy (its position in the registry)."""
    return list(BUILTIN_POLICIES).index(name)
