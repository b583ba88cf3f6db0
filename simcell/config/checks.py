"""Checks that need the whole game definition: cards that could never be completed, enough
cards to deal, enough epigenetic cards, Detoxification cards to remove at 2 players."""

from __future__ import annotations

from pathlib import Path

from simcell.config.errors import ConfigError
from simcell.config.model import GameDefinition
from simcell.config.arrays import max_legal_actions
from simcell.vocabulary import MAX_VALUED, RESOURCES, ROUGH_ER_TYPES


def yield_bonus_ceiling(game: GameDefinition, action: str) -> int:
    """The largest epigenetic yield_bonus any single card gives at the location of `action`
    (0 when the variant is off): what can be loaded beyond max_batch."""
    if not game.rules.epigenetic:
        return 0
    location = game.board.location_with(action).id
    best = 0
    for card in game.epigenetic:
        n = sum(e.n for e in card.effects if e.kind == "yield_bonus" and e.location == location)
        best = max(best, n)
    return best


def check_game(
    game: GameDefinition,
    players: tuple[int, ...],
    files: dict[str, Path],
    origins: dict[str, dict],
    rule_origins: dict[str, tuple] | None = None,
) -> None:
    """Raise ConfigError for a game that cannot be played as configured (`rule_origins`: where
    each rule was set, file and key, when not in the rules file)."""
    rules = game.rules
    board = game.board
    card_origins = origins.get("cards", {})

    def card_error(card, fieldname: str, message: str) -> ConfigError:
        origin = card_origins.get(f"@{card.name}.{fieldname}")
        if origin is not None:
            return ConfigError(origin[0], origin[1], message)
        return ConfigError(files["cards"], f"card {card.name!r} (id {card.id}).{fieldname}", message)

    rough_cap = rules.max_batch + yield_bonus_ceiling(game, "protein_synthesis")
    smooth_cap = rules.max_batch + yield_bonus_ceiling(game, "steroid_synthesis")
    supply = dict(zip(RESOURCES, board.supply))
    for card in game.cards:
        if card.type in ROUGH_ER_TYPES and card.protein > rough_cap:
            raise card_error(
                card, "protein",
                f"needs {card.protein} Protein on one vesicle but at most max_batch "
                f"{rules.max_batch} + yield bonus {rough_cap - rules.max_batch} = {rough_cap} "
                "can be loaded: the card could never be completed",
            )
        if card.type == "steroid_hormone" and card.lipid > smooth_cap:
            raise card_error(
                card, "lipid",
                f"needs {card.lipid} Lipid on one vesicle but at most max_batch "
                f"{rules.max_batch} + yield bonus {smooth_cap - rules.max_batch} = {smooth_cap} "
                "can be loaded: the card could never be completed",
            )
        if rules.supply_limited:
            for res in ("atp", "protein", "carb", "lipid"):
                need = getattr(card, res)
                if need > supply[res]:
                    raise card_error(
                        card, res,
                        f"needs {need} {res} but the limited supply has only {supply[res]}: "
                        "the card could never be completed",
                    )

    max_p = max(players)
    removed = board.two_player_detox_removed if (rules.two_player_remove_detox and 2 in players) else 0
    n_detox = sum(1 for c in game.cards if c.type == "detox")
    if removed > n_detox:
        raise ConfigError(
            files["cards"], "card",
            f"two_player_remove_detox removes {removed} Detoxification cards but the card set "
            f"has {n_detox}",
        )
    for p in players:
        cut = removed if p == 2 else 0
        need = len(board.slot_prices) + board.cards_dealt * p
        if len(game.cards) - cut < need:
            raise ConfigError(
                files["cards"], "card",
                f"{len(game.cards) - cut} cards in the deck at {p} players, but setup needs "
                f"{need} ({len(board.slot_prices)} Card Area slots + {board.cards_dealt} per player)",
            )
    for p in players:
        bound = max_legal_actions(game, p)
        if bound > MAX_VALUED:
            where = (rule_origins or {}).get("max_batch", (files["rules"], "max_batch"))
            raise ConfigError(
                where[0], where[1],
                f"max_batch {rules.max_batch} with this board allows up to {bound:,} legal "
                f"actions in one {p}-player decision; the kernel holds at most {MAX_VALUED:,}: "
                "lower max_batch (it need only exceed the most a player can hold)",
            )
    if rules.epigenetic and len(game.epigenetic) < max_p:
        raise ConfigError(
            files["epigenetic"], "epigenetic",
            f"{len(game.epigenetic)} epigenetic cards, but the variant deals one to each of "
            f"{max_p} players",
        )
