"""The family of deviations `simcell exploit` screens and `simcell fit` starts each round from:
each completed card type's weight x2/3, x1.5 and x3 (x3 favours the type, as `simcell probe`
favours one card), a goal marker's worth and the First Player Marker's x0.5 and x2, each
resource's base worth x2/3 and x1.5, and the softmax temperature set to 0 (always the best
action) or 0.05 (whichever the field does not play: a field that draws gives an argmax player a
free edge). Greedy has no type weights: its family is the rest."""

from __future__ import annotations

from simcell.policies.registry import builtin
from simcell.vocabulary import COMPLETED_TYPES, RESOURCES

TYPE_FACTORS = (2 / 3, 1.5, 3.0)


MARKER_FACTORS = (0.5, 2.0)


RESOURCE_FACTORS = (2 / 3, 1.5)


TEMPERATURES = (0.0, 0.05)  # set, not multiplied: a temperature of 0 has no multiple


def deviations(policy: str) -> list[tuple[str, str, float]]:
    """(label, parameter, factor) of every deviation of the family a policy has."""
    names = builtin(policy).defaults
    out = [(f"w_{t} x{f:.3g}", f"w_{t}", f) for t in COMPLETED_TYPES for f in TYPE_FACTORS
           if f"w_{t}" in names]
    out += [(f"{k} x{f:.3g}", k, f) for k in ("goal", "first_player") for f in MARKER_FACTORS]
    out += [(f"value_{r} x{f:.3g}", f"value_{r}", f) for r in RESOURCES for f in RESOURCE_FACTORS]
    out += [(f"temperature ={t:g}", "temperature", t) for t in TEMPERATURES
            if t != names["temperature"]]
    return out


def deviated(key: str, default: float, factor: float) -> float:
    """The deviating seat's value of `key`: the temperature as set, any worth multiplied."""
    return factor if key == "temperature" else default * factor
