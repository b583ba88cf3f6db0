"""The rooms of simcell import only what docs/architecture.md says they may: the vocabulary at
the bottom, the numba layer (kernel, policies, play) above it and nothing else of simcell, the
referee beside it (the vocabulary and the game definition, never the numba layer), the reports
on run directories alone (never a designer tool), each designer tool in a folder of its own, the
config layer the only reader of TOML and numba code nowhere but the numba layer; a report
section is imported by the report builder alone, and no modules import each other in a circle.
Each checker is run on the package, and on planted imports to show it fails.
`python -m tests.support.import_graph` prints the graph these rules read."""

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
    # the agent environment: the referee's game loop, dealt as the kernel deals (docs/env.md)
    "env": ("simcell.vocabulary", "simcell.config", "simcell.referee", "simcell.env"),
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
    # the Python front door: plays runs, reads them, runs every designer tool
    "api": ("simcell.vocabulary", "simcell.config", "simcell.policies.user", "simcell.runner",
            "simcell.reports", "simcell.tools", "simcell.api"),
    "cli": ("simcell", "simcell.cli", "simcell.api", "simcell.vocabulary", "simcell.files",
            "simcell.config", "simcell.kernel", "simcell.policies", "simcell.play",
            "simcell.referee", "simcell.runner", "simcell.reports", "simcell.tools",
            "simcell.studio"),
    "__main__": ("simcell.cli",),
    "__init__": (),
    "data": (),  # the shipped TOML files' package
}
NUMBA_LAYER = ("kernel", "policies", "play")
# the designer tools, one folder each under tools/ (tools/*.py beside them: what they share)
TOOLS = ("compare", "sweep", "seats", "calibrate", "probe", "exploit", "fit", "ladder", "tune",
         "rungs", "laureates")
# a tool that runs another tool as one of its steps (every tool may play the rungs): tune's
# holdout is a comparison of the original and tuned sets
TOOL_USES = {"tune": ("compare",)}
# third-party modules only some rooms may import
ONLY_IN = {"numba": NUMBA_LAYER, "llvmlite": NUMBA_LAYER, "tomllib": ("config",),
           "starlette": ("studio",), "uvicorn": ("studio",),
           "pettingzoo": ("env",), "gymnasium": ("env",), "pyspiel": ("env",),
           "open_spiel": ("env",)}


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


def section_importers(files: dict[str, str]) -> list[str]:
    """Every import of a report section (reports/sections/*) by a module other than the report
    builder (reports/build.py): a section's figures are the section's; what others need of them
    lives in a shared module of reports/."""
    bad = []
    for rel, source in sorted(files.items()):
        if rel == "reports/build.py":
            continue
        for line, module in imports_of(source):
            if module.startswith("simcell.reports.sections") and module != "simcell.reports.sections" or module == "simcell.reports.sections":
                bad.append(f"{rel}:{line} imports {module}")
    return bad


def tool_folders(files: dict[str, str]) -> list[str]:
    """A designer tool is a folder of tools/ (its loop, its report, its searches), and a tool's
    modules import another tool only where it runs that tool as a step (TOOL_USES; the rungs any
    tool may play); what several tools share lives in tools/*.py or in reports/."""
    bad = []
    folders = {rel.split("/")[1] for rel in files if rel.startswith("tools/") and rel.count("/") == 2}
    if folders != set(TOOLS):
        bad.append(f"tools/ folders {sorted(folders)} are not the tools {sorted(TOOLS)}")
    for rel, source in sorted(files.items()):
        parts = rel.split("/")
        own = parts[1] if parts[0] == "tools" and len(parts) == 3 else None
        for line, module in imports_of(source):
            m = module.split(".")
            if m[:2] != ["simcell", "tools"] or len(m) < 3 or m[2] not in TOOLS:
                continue
            if own is not None and m[2] not in (own, "rungs", *TOOL_USES.get(own, ())):
                bad.append(f"{rel}:{line} (tool {own}) imports another tool, {module}")
    return bad


def test_reports_sections_are_imported_by_the_builder_alone() -> None:
    assert section_importers(package_files()) == []


def test_each_designer_tool_is_a_folder_of_its_own() -> None:
    assert tool_folders(package_files()) == []


def test_no_modules_import_each_other_in_a_circle() -> None:
    from tests.support.import_graph import cycles, graph

    edges, _ = graph()
    assert cycles(edges) == []


def test_the_circle_checker_finds_a_planted_circle() -> None:
    from tests.support.import_graph import cycles, graph

    edges, _ = graph()
    edges["simcell.reports.intervals"] = edges["simcell.reports.intervals"] | {"simcell.reports.card_table"}
    assert any("simcell.reports.intervals" in c for c in cycles(edges))


@pytest.mark.parametrize(("rel", "line", "checker"), [
    ("reports/changes.py", "from simcell.reports.sections.cards import build", section_importers),
    ("tools/sweep/report.py", "from simcell.reports.sections import seats", section_importers),
    ("tools/exploit/report.py", "from simcell.tools.probe.report import build_probe", tool_folders),
])
def test_a_planted_section_or_tool_import_is_caught(rel: str, line: str, checker) -> None:
    files = package_files()
    files[rel] = files[rel] + f"\n\ndef _planted():\n    {line}\n"
    found = checker(files)
    assert len(found) == 1 and found[0].startswith(rel), found


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
    ("reports/measured.py", "from simcell.tools.probe.report import build_probe"),
    ("reports/changes.py", "from simcell.api import load"),
    ("studio/session.py", "from simcell.cli.common import _call"),
    ("play/game.py", "from simcell import __version__"),
])
def test_a_forbidden_import_is_caught(rel: str, line: str) -> None:
    """The checker fails on each kind of forbidden import, planted in a real file (inside a
    function too, where lazy imports hide)."""
    files = package_files()
    files[rel] = files[rel] + f"\n\ndef _planted():\n    {line}\n"
    found = violations(files)
    assert len(found) == 1 and found[0].startswith(rel), found
