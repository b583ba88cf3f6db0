"""Typed, key-checked reading of parsed TOML tables.

A `Table` wraps one TOML table with the file it came from and its dotted key path. Every value
is taken through `take` with the type and range it must have; `finish` rejects any key that was
not taken (a typo), suggesting the nearest allowed key. A table that declares its keys (`expect`)
reports a required key that is missing beside a key it does not know that looks like it as that
misspelling ("unknown field 'protien' ... did you mean 'protein'?"), not as the key missing. All
errors are `ConfigError`s that name the file and the full key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from simcell.config.errors import ConfigError, allowed, closest, nearest

MISSING: Any = object()

_TYPE_NAMES = {
    int: "an integer",
    bool: "true or false",
    str: "a string",
    float: "a number",
    dict: "a table",
    list: "an array",
}


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a missing file or malformed TOML is a ConfigError (with line number)."""
    if not path.exists():
        raise ConfigError(path, None, "file not found")
    if not path.is_file():
        raise ConfigError(path, None, "not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, None, f"cannot read file: {exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, None, f"malformed TOML: {exc}") from None


def type_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if k is int and isinstance(value, int) and not isinstance(value, bool):
            return True
        if k is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        if k not in (int, float) and isinstance(value, k):
            return True
    return False


class Table:
    """One TOML table being read: values are taken with their type; leftovers are typos.

    `origins` maps a key of this table to the (file, key path) it really came from, for values
    set by an override in a run config, so that errors point at the override. `label` names the
    row in messages ("card 'Insulin'"); sub-tables inherit it.
    """

    def __init__(
        self,
        data: Any,
        file: Path | str,
        path: str = "",
        origins: dict[str, tuple[Path | str, str]] | None = None,
        whole_origin: tuple[Path | str, str] | None = None,
        label: str | None = None,
    ) -> None:
        self.file = file
        self.path = path
        self.origins = origins or {}
        self.whole_origin = whole_origin
        self.label = label
        if not isinstance(data, dict):
            raise ConfigError(file, path or None, f"must be a table, got {_describe(data)}")
        self.data = data
        self._taken: set[str] = set()
        self._expected: set[str] = set()

    def expect(self, keys: Iterable[str]) -> Table:
        """Declare every key this table may hold. Only then can a key it holds that is none of
        them be told, before `finish`, from a key read later, so that a required key missing
        beside such a look-alike is reported as the misspelling it is."""
        self._expected = set(keys)
        return self

    # -- naming --------------------------------------------------------------------------
    def keypath(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str | None, message: str) -> ConfigError:
        if key is not None:
            # the longest dotted prefix of the key that an override set
            parts = key.split(".")
            for cut in range(len(parts), 0, -1):
                prefix = ".".join(parts[:cut])
                if prefix in self.origins:
                    file, keypath = self.origins[prefix]
                    rest = ".".join(parts[cut:])
                    return ConfigError(file, f"{keypath}.{rest}" if rest else keypath, message)
        if self.whole_origin is not None:
            file, keypath = self.whole_origin
            return ConfigError(file, f"{keypath}.{key}" if key else keypath, message)
        return ConfigError(self.file, self.keypath(key) if key else (self.path or None), message)

    # -- reading -------------------------------------------------------------------------
    def has(self, key: str) -> bool:
        return key in self.data

    def take(
        self,
        key: str,
        kind: type | tuple[type, ...],
        default: Any = MISSING,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
        choices: Iterable[Any] | None = None,
    ) -> Any:
        """The value at `key`, checked for type, range and membership."""
        self._taken.add(key)
        if key not in self.data:
            if default is MISSING:
                raise self.missing(key, f"missing; expected {type_name(kind)}")
            return default
        value = self.data[key]
        check_value(self, key, value, kind, minimum, maximum, choices)
        return value

    def take_list(
        self,
        key: str,
        kind: type | tuple[type, ...],
        default: Any = MISSING,
        *,
        minimum: float | None = None,
        choices: Iterable[Any] | None = None,
        min_length: int = 0,
    ) -> list[Any]:
        """An array whose items all have `kind` (and range, membership)."""
        value = self.take(key, list, default)
        if value is default and default is not MISSING and key not in self.data:
            return value
        if len(value) < min_length:
            raise self.error(key, f"needs at least {min_length} item(s), got {len(value)}")
        for i, item in enumerate(value):
            check_value(self, key, item, kind, minimum, None, choices, index=i)
        return value

    def table(self, key: str, default: Any = MISSING) -> Table:
        """A sub-table (inheriting origins below this key)."""
        self._taken.add(key)
        if key not in self.data:
            if default is MISSING:
                raise self.missing(key, "missing; expected a table")
            data = default
        else:
            data = self.data[key]
        if not isinstance(data, dict):
            raise self.error(key, f"must be a table, got {_describe(data)}")
        return Table(data, self.file, self.keypath(key), *self._sub_origins(key), label=self.label)

    def _sub_origins(
        self, prefix: str
    ) -> tuple[dict[str, tuple[Path | str, str]], tuple[Path | str, str] | None]:
        """Origins of the keys below `prefix`, and the origin of the whole sub-table if any."""
        if prefix in self.origins:
            return {}, self.origins[prefix]
        if self.whole_origin is not None:
            file, path = self.whole_origin
            return {}, (file, f"{path}.{prefix}")
        sub = {
            k[len(prefix) + 1 :]: v for k, v in self.origins.items() if k.startswith(prefix + ".")
        }
        return sub, None

    def tables(self, key: str, default: Any = MISSING) -> list[Table]:
        """An array of tables ([[key]] in TOML)."""
        value = self.take(key, list, default)
        out = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise self.error(key, f"item {i} must be a table, got {_describe(item)}")
            if key in self.origins:  # the whole array was set by an override
                file, path = self.origins[key]
                item_origins: tuple = ({}, (file, f"{path}[{i}]"))
            else:
                item_origins = self._sub_origins(f"{key}[{i}]")
            out.append(Table(item, self.file, f"{self.keypath(key)}[{i}]", *item_origins,
                             label=self.label))
        return out

    def keys(self) -> list[str]:
        return list(self.data)

    def finish(self, allowed_keys: Iterable[str] | None = None) -> None:
        """Reject every key that was not taken: unknown keys are typos."""
        if self._expected and not self._taken <= self._expected:
            # a declaration that lags the reading would name a real key a misspelling
            extra = sorted(self._taken - self._expected)
            raise RuntimeError(f"{self.path or 'the top table'} read {extra} without declaring "
                               "them (Table.expect)")
        known = set(allowed_keys) if allowed_keys is not None else self._taken
        for key in self.data:
            if key not in known:
                raise self.unknown(key, known)

    def unknown(self, key: str, options: Iterable[str], meant: str | None = None) -> ConfigError:
        """The error for `key`, which this table does not know: "unknown field 'KEY' in LABEL
        (did you mean 'MEANT'?); allowed: ...", the nearest option suggested unless `meant`."""
        options = sorted(options)
        hint = f" (did you mean {meant!r}?)" if meant else nearest(key, options)
        where = f" in {self.label}" if self.label else ""
        return self.error(key, f"unknown field {key!r}{where}{hint}; "
                               f"allowed: {allowed(options) or 'none'}")

    def missing(self, key: str, message: str) -> ConfigError:
        """The error for a required `key` that is not there: the misspelling of it this table
        holds, if it declared its keys and holds one (`misspelt`), else `message` at `key`."""
        return self.misspelt(key) or self.error(key, message)

    def misspelt(self, key: str) -> ConfigError | None:
        """The unknown-field error of a key this table holds that it does not expect and that
        looks like `key` (a misspelling of it), or None. Only a table that declared its keys
        can tell: elsewhere a key not yet taken may be one read later."""
        if not self._expected:
            return None
        known = self._expected | self._taken | {key}
        stray = closest(key, [k for k in self.data if k not in known])
        return None if stray is None else self.unknown(stray, known, meant=key)


def check_value(
    table: Table,
    key: str,
    value: Any,
    kind: type | tuple[type, ...],
    minimum: float | None = None,
    maximum: float | None = None,
    choices: Iterable[Any] | None = None,
    index: int | None = None,
) -> None:
    where = "" if index is None else f"item {index} "
    if not _is(value, kind):
        raise table.error(key, f"{where}must be {type_name(kind)}, got {_describe(value)}")
    if minimum is not None and value < minimum:
        raise table.error(key, f"{where}must be at least {minimum:g}, got {value}")
    if maximum is not None and value > maximum:
        raise table.error(key, f"{where}must be at most {maximum:g}, got {value}")
    if choices is not None:
        options = list(choices)
        if value not in options:
            raise table.error(
                key,
                f"{where}unknown value {value!r}{nearest(str(value), map(str, options))}; "
                f"allowed: {allowed(options)}",
            )


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return f"string {value!r}"
    return f"{type(value).__name__} {value!r}"
