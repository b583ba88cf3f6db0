"""The one error type of the config layer: a bad input, named by file and key."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from simcell.vocabulary import CARD_TYPE_LABELS


class ConfigError(Exception):
    """Bad input at the Python boundary. Printed as one line; the CLI exits with status 2."""

    def __init__(self, file: Path | str | None, key: str | None, message: str) -> None:
        self.file = str(file) if file is not None else None
        self.key = key
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.key) if p]
        return ": ".join(parts + [self.message])


def closest(name: str, options: Iterable[str]) -> str | None:
    """The option closest to `name`, or None when nothing is close."""
    match = difflib.get_close_matches(name, list(options), n=1, cutoff=0.5)
    return match[0] if match else None


def nearest(name: str, options: Iterable[str]) -> str:
    """' (did you mean X?)' for the closest option, or '' when nothing is close."""
    match = closest(name, options)
    return f" (did you mean {match!r}?)" if match else ""


def allowed(options: Iterable[object]) -> str:
    """A readable list of allowed values."""
    return ", ".join(repr(o) if isinstance(o, str) else str(o) for o in options)


def card_type_named(text: str) -> str | None:
    """The card type (vocabulary.CARD_TYPES) `text` names, by its name or the name the game
    prints, in any case, singular or plural ("detox", "Detoxification", "enzymes"), or None."""
    def norm(s: str) -> str:
        s = " ".join(s.replace("_", " ").lower().split())
        return s[:-1] if s.endswith("s") and not s.endswith("ss") else s

    wanted = norm(text)
    for name, label in CARD_TYPE_LABELS.items():
        if wanted in (norm(name), norm(label)):
            return name
    return None


def card_type_names() -> str:
    """The card types a designer may name, each with the name the game prints."""
    return ", ".join(f"{n} ({label})" for n, label in CARD_TYPE_LABELS.items())
