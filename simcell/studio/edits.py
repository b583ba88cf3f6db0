"""A studio edit: values keyed as `simcell sweep --set` keys them (cards."Insulin".atp,
types.detox.atp, rules.turn_order), checked by the config layer exactly as a run config is (the edited config is
written under the studio's folder and loaded), and the edited set exported in simcell's own
formats: a card file and a config that `simcell run` plays on the studio's games and seed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simcell.config.cardset import write_card_set
from simcell.config.errors import ConfigError
from simcell.config.load import RunConfig, load_run_config
from simcell.config.variants import Setting, config_path, parse_value, split_key, write_variant


class EditError(Exception):
    """A value the studio cannot play: `key` names its cell, the message is one line."""

    def __init__(self, key: str, message: str):
        self.key, self.message = key, message
        super().__init__(f"{key}: {message}")


@dataclass(frozen=True)
class Edit:
    """The values a designer has changed, each as the text typed in its cell."""

    values: tuple[tuple[str, str], ...]  # (key, text), sorted by key

    @classmethod
    def of(cls, values: dict[str, str]) -> Edit:
        return cls(tuple(sorted((str(k), str(v)) for k, v in values.items())))

    def assignments(self) -> list[tuple[Setting, Any]]:
        """Each value read as TOML (3, true, "rotate"; a bare word as a string); EditError names
        the first cell that cannot be read. A card's cell holds the value itself (-1 is a value,
        refused); a type's cell holds a step for every card of the type when signed (+1, -1),
        otherwise the value every card of the type takes."""
        out = []
        for key, text in self.values:
            try:
                path = config_path(key)
                out.append((Setting(key, path, ()), parse_value(text, relative=path[1] == "types")))
            except ValueError as exc:
                raise EditError(key, str(exc)) from None
        return out

    def card_changes(self) -> tuple[dict[tuple[str, str], Any], list[tuple[Setting, Any]]]:
        """(card, field) -> value for the card values; the other settings (types, rules, board:
        an exported config keeps a type's edit as the type's override)."""
        cards, other = {}, []
        for setting, value in self.assignments():
            parts = split_key(setting.key)
            if parts[0] == "cards" and len(parts) == 3:
                cards[(parts[1], parts[2])] = value
            else:
                other.append((setting, value))
        return cards, other

    def edited_types(self) -> list[str]:
        """The card types (as written: a name or display name) whose cells are edited."""
        return sorted({split_key(k)[1] for k, _ in self.values if split_key(k)[0] == "types"})


def _message(exc: ConfigError) -> str:
    """The config layer's own words on the value (not the variant file it was written to)."""
    cause = exc.__cause__ if isinstance(exc.__cause__, ConfigError) else exc
    return cause.message


def check(config: Path, base: dict, edit: Edit, folder: Path, name: str,
          changed: str | None = None) -> RunConfig:
    """The config with the edit, written as folder/configs/NAME.toml and loaded. The cell just
    changed (`changed`) is checked alone first, so that its message stands beside it; EditError
    names the cell at fault."""
    assignments = edit.assignments()
    alone = [(s, v) for s, v in assignments if s.key == changed]
    for group in ([alone] if alone else []) + [assignments]:
        try:
            path = write_variant(config, base, name, group, folder)
        except ConfigError as exc:
            key = changed if group is alone else (exc.key or "").split(" and ")[0]
            raise EditError(key or "edit", _message(exc)) from None
    return load_run_config(path)


def export(config: Path, edit: Edit, folder: Path, *, players: int, games: int, seed: int,
           field: dict | None) -> tuple[Path, Path]:
    """folder/studio-cards.toml and folder/studio.toml: the edited set, and the config that plays
    it on the studio's player count, games, seed and field (`simcell run` then gives the studio's
    figures for these games)."""
    cards, other = edit.card_changes()
    run = {"players": [players], "games": games, "seed": seed}
    try:
        return write_card_set(config, cards, folder, stem="studio", by="simcell studio", settings=other,
                              run=run, fields=[field] if field else None)
    except ConfigError as exc:
        raise EditError("export", str(exc)) from None
