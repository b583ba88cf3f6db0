"""Cytosis as a standard game environment (docs/env.md): a PettingZoo AEC environment over the
referee's rules. Needs the `env` extra: pip install -e ".[env]".

    from simcell.env import env
    game = env(players=3)                       # the shipped game; config= a run config or a GameDefinition
"""

from __future__ import annotations

from simcell.env.cytosis import env, raw_env

ENV_ID = "simcell/Cytosis-v0"

__all__ = ["ENV_ID", "env", "raw_env", "register"]


def register() -> bool:
    """Register the environment as ENV_ID in PettingZoo's registry (pettingzoo.make("aec",
    ENV_ID, players=N)); False where the installed PettingZoo has no registry."""
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return False
    pettingzoo.register("aec", ENV_ID, entry_point="simcell.env.cytosis:env")
    return True


register()
