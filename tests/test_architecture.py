"""The rooms of simcell import only what docs/architecture.md says they may: the vocabulary at
the bottom, the numba layer (kernel, policies, play) above it and nothing else of simcell, the
referee beside it (the vocabulary and the game definition, never the numba layer), the reports
on run directories alone, the config layer the only reader of TOML and numba code nowhere but
the numba layer. The checker is run on the package, and on planted imports to show it fails."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "simcell"

# room -> the simcell modules it may import (each with its submodules; "simcell" is the package's
# own __init__, its version); a room is a package or a top-level module of simcell
ALLOWED: dict[str, tuple[str, ...]] = {
    "vocabulary": (),
    "files": (),
    "kernel": ("simcell.vocabulary", "simcell.kernel", "simcell.policies"),
    "policies": ("simcell.vocabulary", "simcell.kernel", "simcell.policies"),
    "play": ("simcell.vocabulary", "simcell.kernel", "simcell.policies", "simcell.play"),
    "referee": ("simcell.vocabulary", "simcell.referee", "simcell.config.model"),
    "config": ("simcell.vocabulary", "simcell.config", "simcell.kernel.state",
               "simcell.policies.registry"),
    "reports": ("simcell.vocabulary", "simcell.reports", "simcell.files"),
    "runner": ("simcell", "simcell.vocabulary", "simcell.files", "simcell.config",
               "simcell.kernel", "simcell.policies", "simcell.play", "simcell.referee",
               "simcell.runner"),
    # the designer tools: their loops over variant runs, played through what the cli gives them
    "tools": ("simcell.vocabulary", "simcell.config", "simcell.policies.registry",
              "simcell.reports", "simcell.tools"),
    # the studio: a session over the runner's games, the reports' paired tables, its web page
    "studio": ("simcell.vocabulary", "simcell.files", "simcell.config", "simcell.policies.registry",
               "simcell.runner", "simcell.reports", "simcell.tools", "simcell.studio"),
    "cli": ("simcell", "simcell.cli", "simcell.vocabulary", "simcell.files", "simcell.config", "simcell.kernel",
            "simcell.policies", "simcell.play", "simcell.referee", "simcell.runner",
            "simcell.reports", "simcell.tools", "simcell.studio"),
    "__main__": ("simcell.cli",),
    "__init__": (),
    "data": (),  # the shipped TOML files' package
}
NUMBA_LAYER = ("kernel", "policies", "play")
# third-party modules only some rooms may import
ONLY_IN = {"numba": NUMBA_LAYER, "llvmlite": NUMBA_LAYER, "tomllib": ("config",),
           "starlette": ("studio",), "uvicorn": ("studio",)}


def room_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def imports_of(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import in the source, inside functions too; `from simcell import
    files` counts as simcell.files, `from simcell import __version__` as simcell."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "simcell":
                for alias in node.names:
                    sub = PACKAGE / alias.name
                    is_module = sub.is_dir() or sub.with_suffix(".py").is_file()
                    out.append((node.lineno, f"simcell.{alias.name}" if is_module else "simcell"))
            else:
                out.append((node.lineno, node.module))
    return out


def violations(files: dict[str, str]) -> list[str]:
    """Every import of `files` (path relative to simcell/ -> source) that its room may not make."""
    bad = []
    for rel, source in sorted(files.items()):
        room = room_of(PACKAGE / rel)
        allowed = ALLOWED[room]
        for line, module in imports_of(source):
            top = module.split(".")[0]
            if top == "simcell":
                if not any(module == a or (a != "simcell" and module.startswith(a + "."))
                           for a in allowed):
                    bad.append(f"{rel}:{line} ({room}) imports {module}")
            elif top in ONLY_IN and room not in ONLY_IN[top]:
                bad.append(f"{rel}:{line} ({room}) imports {module}")
    return bad


def package_files() -> dict[str, str]:
    return {path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8")
            for path in PACKAGE.rglob("*.py")}


def test_every_room_imports_only_what_it_may() -> None:
    files = package_files()
    assert len(files) > 60
    assert {room_of(PACKAGE / rel) for rel in files} <= set(ALLOWED)
    assert violations(files) == []


@pytest.mark.parametrize(("rel", "line"), [
    ("referee/play.py", "from simcell.kernel.state import State"),
    ("referee/log.py", "import simcell.policies.registry"),
    ("kernel/legal.py", "from simcell.runner.games import play_chunk"),
    ("policies/view.py", "from simcell.play.turns import turn_loop"),
    ("reports/data.py", "from simcell.runner.store import RunDir"),
    ("reports/render.py", "from simcell.kernel.sums import add_rows_by_key"),
    ("reports/build.py", "import numba"),
    ("runner/records.py", "import numba"),
    ("runner/store.py", "import tomllib"),
    ("vocabulary.py", "from simcell.config.model import Rules"),
    ("config/load.py", "from simcell.runner.plan import chunks"),
    ("runner/store.py", "from simcell.reports.intervals import wilson"),
    ("play/game.py", "from simcell import __version__"),
])
def test_a_forbidden_import_is_caught(rel: str, line: str) -> None:
    """The checker fails on each kind of forbidden import, planted in a real file (inside a
    function too, where lazy imports hide)."""
    files = package_files()
    files[rel] = files[rel] + f"\n\ndef _planted():\n    {line}\n"
    found = violations(files)
    assert len(found) == 1 and found[0].startswith(rel), found
