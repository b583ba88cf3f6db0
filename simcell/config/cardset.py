"""A card set written out in simcell's own formats: the config's resolved cards with some values
changed, as a card file, and a run config that plays it (simcell tune's tuned set, simcell
studio's export)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomli_w

from simcell.config.errors import ConfigError
from simcell.config.load import load_run_config
from simcell.config.variants import Setting, base_config
from simcell.config.variants import _set
from simcell.vocabulary import CARD_FIELDS, RESOURCES

def write_card_set(config: Path, changes: dict[tuple[str, str], int], folder: Path, *, stem: str,
                   by: str, settings: list[tuple[Setting, Any]] = (), run: dict | None = None,
                   fields: list[dict] | None = None) -> tuple[Path, Path]:
    """folder/STEM-cards.toml, the config's resolved card set with `changes` ((card, field) ->
    value) applied, and folder/STEM.toml, the config playing it (its card overrides folded into
    the file), with any other `settings` (rule or board values) set and `run` replacing keys of
    its [run] table (and `fields` its [[field]] tables). Both are loaded once: a bad value fails here."""
    rc = load_run_config(config)
    rows = []
    for c in sorted(rc.game.cards, key=lambda c: c.id):
        row: dict = {"id": c.id, "name": c.name, "type": c.type}
        for key in CARD_FIELDS[c.type]:
            value = getattr(c, key)
            row[key] = {r: n for r, n in zip(RESOURCES, value) if n} if key == "gain" else value
        for (name, field), value in changes.items():
            if name == c.name:
                row[field] = value
        rows.append(row)
    folder.mkdir(parents=True, exist_ok=True)
    cards_path = folder / f"{stem}-cards.toml"
    was = {(c.name, f): getattr(c, f) for c in rc.game.cards for f in CARD_FIELDS[c.type]}
    listed = "\n".join(f"#   {n}.{f}: {was[(n, f)]} -> {v}" for (n, f), v in sorted(changes.items())) or "#   (none)"
    cards_path.write_text(f"# Cards written by {by} from {config}: the config's card set with\n"
                          f"# these values changed:\n{listed}\n\n" + tomli_w.dumps({"card": rows}),
                          encoding="utf-8")
    body = base_config(config)
    body.pop("tune", None)
    # the config's card and card-type overrides are in the written cards already: kept, they
    # would apply twice (a relative "+1" twice over)
    overrides = {k: v for k, v in body.get("overrides", {}).items() if k not in ("cards", "types")}
    body.pop("overrides", None)
    if overrides:
        body["overrides"] = overrides
    for setting, value in settings:
        _set(body, setting.path, value)
    if run:
        body["run"] = dict(body.get("run", {}), **run)
    if fields:
        body["field"] = fields
    body["data"] = dict(body.get("data", {}), cards=cards_path.name)  # beside the config
    config_path = folder / f"{stem}.toml"
    config_path.write_text(f"# {config} with the card set of {by}\n" + tomli_w.dumps(body),
                           encoding="utf-8")
    try:
        load_run_config(config_path)
    except ConfigError as exc:
        raise ConfigError(config, stem, f"the card set of {by} is not valid: {exc}") from None
    return cards_path, config_path
