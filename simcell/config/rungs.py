"""The rungs a run's headline verdicts are checked under (`[report] rungs`): each a homogeneous
field of one built-in policy, or `fitted`, the planner playing the shipped fitted worths
(simcell/data/fitted.toml, written by `simcell fit` on the shipped game). A verdict that holds
on every rung describes the game; one that changes from rung to rung describes the bots."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from simcell.policies.registry import BUILTIN_POLICIES, KERNEL_ROLLOUT, builtin

FITTED = "fitted"
RUNGS = tuple(BUILTIN_POLICIES) + (FITTED,)  # random: the floor, where no skill is played


def shipped_fitted() -> Path:
    return Path(str(resources.files("simcell.data").joinpath("fitted.toml")))


def is_search(rung: str) -> bool:
    return rung != FITTED and BUILTIN_POLICIES[rung].kernel_id == KERNEL_ROLLOUT


def rung_field(rung: str) -> dict:
    """The rung as a run config's [[field]] table."""
    if rung == FITTED:
        return {"name": FITTED, "policy": "planner", "fitted": {"planner": str(shipped_fitted())}}
    return {"name": rung, "policy": rung}


def missing_counts(rung: str, players) -> list[int]:
    """The player counts this rung cannot play (the fitted rung: counts the shipped file lacks)."""
    if rung != FITTED:
        return []
    from simcell.config.fitted import read_fitted

    path = shipped_fitted()
    have = read_fitted(path).params if path.is_file() else {}
    return [p for p in players if p not in have]


def same_as_field(rung: str, field) -> bool:
    """Whether the run's field already plays this rung (then it is not played twice)."""
    if field.policy is None or field.params:
        return False
    if rung == FITTED:
        return field.policy == "planner" and {n: Path(p).resolve() for n, p in field.fitted} == {
            "planner": shipped_fitted().resolve()}
    return not field.fitted and rung == field.policy


def named_rungs(names: list[str], option: str = "--rungs") -> tuple[str, ...]:
    """The rungs a command names instead of the config's [report] rungs, checked as that key is
    (each a known rung, none twice); a ConfigError names the first bad one."""
    from simcell.config.errors import ConfigError, allowed, nearest

    for n in names:
        if n not in RUNGS:
            raise ConfigError(None, option, f"{n!r} is not a rung{nearest(n, RUNGS)}; allowed: {allowed(RUNGS)}")
    if len(set(names)) != len(names):
        raise ConfigError(None, option, f"a rung is named twice: {', '.join(names)}")
    return tuple(names)


def _worths(policy: str, given: dict[str, float], players: int) -> dict[str, float] | None:
    try:
        return builtin(policy).defaults_at(players) | given
    except KeyError:  # a user policy: its worths are its own
        return None


def identical_counts(rung: str, field, players) -> list[int]:
    """The player counts at which this rung plays exactly the run's field: the same built-in
    policy with the same worths at that count (the fitted rung at a count where `simcell fit`
    moved no worth is the planner there). Such a count is not replayed: the run is the rung."""
    if field.policy is None or is_search(rung) or same_as_field(rung, field):
        return []
    spec = rung_field(rung)
    out = []
    for p in players:
        mine = _worths(field.policy, field.params_for(p).get(field.policy, {}), p)
        given = {}
        if spec.get("fitted"):
            from simcell.config.fitted import read_fitted

            fitted = read_fitted(Path(spec["fitted"][spec["policy"]]))
            given = fitted.params.get(p, {})
        theirs = _worths(spec["policy"], given, p)
        if (mine is not None and theirs is not None and spec["policy"] == field.policy
                and mine.keys() == theirs.keys()
                and all(abs(mine[k] - theirs[k]) <= 1e-9 for k in mine)):
            out.append(p)
    return out
