"""A sweep's variants: `--set 'cards."Insulin".atp=1,2,3,4'` (or a `[sweep]` table in the config)
names one value a designer varies and the values it takes; several make a grid. Each variant is
the base config with those values set, written as an ordinary run config (every relative path
made absolute, so it runs from anywhere) and checked like any config before anything plays."""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from simcell.config.errors import ConfigError
from simcell.config.load import load_run_config
from simcell.config.overrides import RELATIVE
from simcell.config.tables import read_toml

# where a sweep key lives in a run config: cards, events, goals, epigenetic cards and the board
# under [overrides], rule switches under [rules]
OVERRIDE_ROOTS = ("cards", "types", "events", "goals", "epigenetic", "board")


@dataclass(frozen=True)
class Setting:
    key: str  # as the designer wrote it: cards."Insulin".atp
    path: tuple[str, ...]  # in the run config: ("overrides", "cards", "Insulin", "atp")
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Variant:
    name: str  # a folder name: Insulin.atp=2 (values joined with +)
    values: tuple[Any, ...]  # one per Setting
    config: Path


def split_key(key: str) -> list[str]:
    """A dotted key with optional quoted parts: cards."Insulin Receptor".atp."""
    parts = re.findall(r'"([^"]*)"|([^.]+)', key.strip())
    out = [quoted or bare for quoted, bare in parts]
    if not out or any(not p.strip() for p in out):
        raise ValueError(f"cannot read the key {key!r}")
    return out


def config_path(key: str) -> tuple[str, ...]:
    parts = split_key(key)
    if parts[0] == "overrides":
        parts = parts[1:]
    if parts[0] in OVERRIDE_ROOTS and len(parts) >= 3:
        return ("overrides", *parts)
    if parts[0] == "rules" and len(parts) == 2:
        return tuple(parts)
    raise ValueError(f"{key!r} is not a card, card type, event, goal, board or rule value (e.g. "
                     f"cards.\"Insulin\".atp, types.detox.atp, board.goals.first_marker_hp, "
                     f"rules.turn_order)")


def parse_value(text: str, relative: bool = True) -> Any:
    """A TOML value (1, 2.5, true, [2, 3, 4, 5, 6], "rotate"), a bare word as a string, or (with
    `relative`, as --set reads it) a whole number written with its sign (+1, -1) as the relative
    value "+1" (overrides.py)."""
    if relative and RELATIVE.fullmatch(text.strip()):
        return text.strip()
    try:
        return tomllib.loads(f"v = {text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        if re.fullmatch(r"[A-Za-z_][\w-]*", text.strip()):
            return text.strip()
        raise ValueError(f"cannot read the value {text!r}") from None


def _split_values(text: str) -> list[str]:
    """Comma-separated values; commas inside [...] or {...} belong to one value."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[{"
        depth -= ch in "]}"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def parse_set(text: str, source: str = "--set") -> Setting:
    """KEY=V1,V2,... from the command line."""
    key, sep, values = text.partition("=")
    if not sep:
        raise ConfigError(None, source, f"{text!r}: expected KEY=VALUE,VALUE,...")
    try:
        vals = tuple(parse_value(v) for v in _split_values(values))
        return Setting(key.strip(), config_path(key), vals)
    except ValueError as exc:
        raise ConfigError(None, source, str(exc)) from None


def settings_from_config(data: dict, path: Path) -> list[Setting]:
    """The [sweep] table: KEY = [V1, V2, ...] per swept value."""
    out = []
    for key, values in data.get("sweep", {}).items():
        if not isinstance(values, list) or not values:
            raise ConfigError(path, f"sweep.{key}", "expected a non-empty array of values")
        try:
            out.append(Setting(key, config_path(key), tuple(values)))
        except ValueError as exc:
            raise ConfigError(path, f"sweep.{key}", str(exc)) from None
    return out


def _absolute(data: dict, base: Path) -> dict:
    """Relative [data] files, user policies ('file.py:function'), fitted files and the folders
    [report] names made absolute from `base`."""
    out = dict(data)
    if "data" in out:
        out["data"] = {k: str((base / v).resolve()) if not Path(v).is_absolute() else v
                       for k, v in out["data"].items()}

    def fix(v):
        if isinstance(v, str) and ":" in v and not Path(v.split(":")[0]).is_absolute():
            return str((base / v.split(":")[0]).resolve()) + ":" + v.split(":", 1)[1]
        return v

    if isinstance(out.get("report"), dict):  # the folders a report names: calibration, exploit
        out["report"] = {k: str((base / v).resolve()) if k in ("calibration", "exploit") and isinstance(v, str)
                         and not Path(v).is_absolute() else v for k, v in out["report"].items()}
    fields = []
    for f in out.get("field", []):
        f = dict(f)
        for k in ("policy", "seats", "pool"):
            if k in f:
                f[k] = [fix(v) for v in f[k]] if isinstance(f[k], list) else fix(f[k])
        if isinstance(f.get("fitted"), dict):
            f["fitted"] = {k: str((base / v).resolve()) if isinstance(v, str) and not Path(v).is_absolute()
                           else v for k, v in f["fitted"].items()}
        fields.append(f)
    if fields:
        out["field"] = fields
    return out


def _set(data: dict, path: tuple[str, ...], value: Any) -> None:
    node = data
    for p in path[:-1]:
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            raise ConfigError(None, ".".join(path), "is not a table in the config")
    node[path[-1]] = value


def _value_text(value: Any) -> str:
    """A swept value as a designer writes it: 3, rotate, [2, 3, 4, 5, 6] (on one line)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return tomli_w.dumps({"v": value})[4:].strip()


def _label(setting: Setting, value: Any) -> str:
    last = [p for p in setting.path if p not in ("overrides", "cards", "types", "board", "rules",
                                                  "events", "goals", "epigenetic")]
    name = ".".join(last) + "=" + _value_text(value)
    # the label names the variant's folder and its rows: spaces kept as the designer wrote them
    # ("Glucagon II.hp=3"), only what a file name cannot hold on common systems replaced
    return re.sub(r'[\x00-\x1f/\\:*?"<>|]+', "_", name)


def base_config(config: Path) -> dict:
    """The config as data, relative paths made absolute and any [sweep] table dropped."""
    data = read_toml(config)
    return {k: v for k, v in _absolute(data, config.parent.resolve()).items() if k != "sweep"}


def write_variant(config: Path, base: dict, name: str, assignments: list[tuple[Setting, Any]],
                  folder: Path) -> Path:
    """The base config with each (setting, value) set, written as folder/configs/NAME.toml and
    loaded once (a bad value fails here, naming the variant)."""
    body = tomllib.loads(tomli_w.dumps(base))  # a deep copy
    for s, v in assignments:
        _set(body, s.path, v)
    (folder / "configs").mkdir(parents=True, exist_ok=True)
    path = folder / "configs" / f"{name}.toml"
    path.write_text(f"# variant of {config}: " + (", ".join(f"{s.key} = {v!r}" for s, v in assignments)
                                                  or "as it is") + "\n" + tomli_w.dumps(body),
                    encoding="utf-8")
    try:
        load_run_config(path)
    except ConfigError as exc:
        # chained: a caller that names the value itself (simcell studio) reads the cause's message
        raise ConfigError(config, " and ".join(s.key for s, _ in assignments) or None,
                          f"the variant {name} is not a valid config: {exc}") from exc
    return path


def variants(config: Path, sets: list[str], folder: Path) -> tuple[list[Setting], list[Variant]]:
    """Every variant of the grid (the first value of each setting first), written as configs under
    folder/configs and loaded once each: a bad key or value fails here, before any game."""
    settings = [parse_set(s) for s in sets] + settings_from_config(read_toml(config), config)
    if not settings:
        raise ConfigError(config, "sweep", "nothing to sweep: give --set KEY=V1,V2,... or a [sweep] table")
    base = base_config(config)
    out = []
    for combo in itertools.product(*(s.values for s in settings)):
        name = "+".join(_label(s, v) for s, v in zip(settings, combo))
        out.append(Variant(name, combo, write_variant(config, base, name, list(zip(settings, combo)), folder)))
    return settings, out


# starting ATP by seat (board.setup.starting_atp, set through [rules]): the value `simcell seats`
# searches and `simcell calibrate` raises by one for one seat
STARTING_ATP = Setting("rules.starting_atp", ("rules", "starting_atp"), ())
