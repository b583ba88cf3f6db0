"""Action codes as readable text, with card, goal and location names from the game definition
(for error messages and the human log). Never fails: an impossible code is shown raw."""

from __future__ import annotations

from collections.abc import Sequence

from simcell.config.model import GameDefinition
from simcell.vocabulary import (
    ACT_COMBO,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ACT_RETURN,
    FLASK_GREY,
    GOLGI_RESOURCES,
    ORGANELLES,
    RESOURCES,
    SOURCE_RADIX,
    decode_action,
)

RESOURCE_NAMES = {
    "mrna": "mRNA",
    "protein": "Protein",
    "carb": "Carbohydrate",
    "lipid": "Lipid",
    "atp": "ATP",
}
ORGANELLE_NAMES = {"rough_er": "Rough ER", "smooth_er": "Smooth ER", "golgi": "Golgi"}


def resource_name(index: int) -> str:
    return RESOURCE_NAMES[RESOURCES[index]]


def card_name(game: GameDefinition, card_id: int) -> str:
    try:
        return f"{game.card(card_id).name} (#{card_id})"
    except KeyError:
        return f"unknown card #{card_id}"


def budding_name(organelle: int, index: int) -> str:
    return f"{ORGANELLE_NAMES[ORGANELLES[organelle]]} {index}"


def describe_action(
    game: GameDefinition, code: int, goals_in_play: Sequence[int] = ()
) -> str:
    """One action code in words, e.g. "grey flask at Golgi Apparatus: move the vesicle at
    Rough ER 1, add Carbohydrate, displacing the vesicle at Golgi 2"."""
    try:
        return _describe(game, code, goals_in_play)
    except (IndexError, KeyError, ValueError):
        return f"unreadable action {code} (fields {decode_action(code)})"


def _describe(game: GameDefinition, code: int, goals_in_play: Sequence[int]) -> str:
    kind, flask, target, p1, p2, p3 = decode_action(code)
    if kind == ACT_PASS:
        return "pass"
    if kind == ACT_EXHAUST:
        return f"exhaust a flask for 1 {resource_name(p1)}"
    if kind == ACT_RETURN:
        return f"return {card_name(game, p1)}"
    if kind == ACT_COMBO:
        a, b = game.board.combos[p1]
        return f"take {RESOURCE_NAMES[a]} + {RESOURCE_NAMES[b]}"
    if kind != ACT_PLACE:
        return f"unknown action kind {kind} (fields {decode_action(code)})"
    loc = game.board.locations[target]
    who = "grey flask" if flask == FLASK_GREY else "own flask"
    head = f"{who} at {loc.name}"
    action = loc.action
    if action == "collect":
        spot = loc.spots[p1]
        return f"{head}, spot {spot.label} ({_spot_text(spot.cost, spot.gain)})"
    if action == "translate":
        return f"{head}: trade {p1} mRNA for {p1} Protein"
    if action == "card_area":
        return f"{head}: buy the card in slot {p1}"
    if action in ("enzyme_synthesis", "detoxification"):
        return f"{head}: complete {card_name(game, p1)}"
    if action in ("protein_synthesis", "steroid_synthesis"):
        what = "trade {k} mRNA for {k} Protein" if action == "protein_synthesis" else "load {k} Lipid"
        organelle = 0 if action == "protein_synthesis" else 1
        text = f"{head}: new vesicle, {what.format(k=p1)}"
        if p2:
            text += f", displacing the vesicle at {budding_name(organelle, p2 - 1)}"
        return text
    if action == "golgi":
        source = budding_name(p1 // SOURCE_RADIX, p1 % SOURCE_RADIX)
        text = f"{head}: move the vesicle at {source}, add {RESOURCE_NAMES[GOLGI_RESOURCES[p2]]}"
        if p3:
            text += f", displacing the vesicle at {budding_name(2, p3 - 1)}"
        return text
    if action == "exocytosis":
        return f"{head}: complete {card_name(game, p2)} with the vesicle at {budding_name(2, p1)}"
    if action == "laureates":
        if p1 == 0:
            return f"{head}: +1 ATP"
        goal = f"goal {p1 - 1}"
        if p1 - 1 < len(goals_in_play):
            goal += f" ({_goal_name(game, goals_in_play[p1 - 1])})"
        return f"{head}: goal marker on {goal}"
    return f"{head} (fields {decode_action(code)})"


def _goal_name(game: GameDefinition, goal_id: int) -> str:
    for goal in game.goals:
        if goal.id == goal_id:
            return goal.name
    return f"unknown goal #{goal_id}"


def _spot_text(cost: Sequence[int], gain: Sequence[int]) -> str:
    parts = []
    if any(cost):
        parts.append("pay " + amounts_text(cost))
    parts.append("gain " + amounts_text(gain))
    return ", ".join(parts)


def amounts_text(vector: Sequence[int], signed: bool = False) -> str:
    """"3 mRNA, 1 ATP" (or "+3 mRNA, -1 ATP" when signed); "nothing" for an all-zero vector."""
    parts = []
    for r, n in enumerate(vector):
        if n:
            parts.append(f"{n:+d} {resource_name(r)}" if signed else f"{n} {resource_name(r)}")
    return ", ".join(parts) if parts else "nothing"

