"""The package's import graph, as the architecture test reads it: lines per folder, imports
between folders, imports that run against the layering and import cycles, for the whole package
and inside `reports/`. `python -m tests.support.import_graph [PACKAGE_DIR]` prints them, so the
house can be measured before and after a move (of this checkout, or of another one's package)."""

from __future__ import annotations

import ast
import sys
from collections import Counter, defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "simcell"

# the floors of the package, lowest first: a room may import its own floor's modules and those
# below; an import of a room on a higher floor runs against the layering
FLOORS: dict[str, int] = {
    "vocabulary": 0, "files": 0, "data": 0, "__init__": 0,
    "kernel": 1, "policies": 2, "play": 3,
    "config": 4, "referee": 4,
    "runner": 5, "reports": 5,
    "tools": 6, "env": 6,
    "studio": 7, "api": 8, "cli": 9, "__main__": 10,
}
# inside reports/: the shared statistics at the bottom, the report's sections above them, the
# report builder (and the run summary it prints) on top; anything else is a tool's report
REPORT_FLOORS: dict[str, int] = {"sections": 1, "build": 2}
REPORT_TOOL_FLOOR = 3


def module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def simcell_imports(path: Path, package: Path, known: set[str]) -> list[str]:
    """The simcell modules `path` imports (inside functions too), each as the longest module
    name of the package it names: `from simcell.reports import cards` is simcell.reports.cards."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
            names = [n for n in names[:-1] if n in known] or [node.module]
        for name in names:
            if not name.startswith("simcell"):
                continue
            while name not in known and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in known:
                out.append(name)
    return out


def graph(package: Path = PACKAGE) -> tuple[dict[str, set[str]], dict[str, int]]:
    """module -> the simcell modules it imports; module -> its lines."""
    files = {module_name(p, package): p for p in package.rglob("*.py")}
    known = set(files)
    edges = {m: set(simcell_imports(p, package, known)) - {m} for m, p in files.items()}
    lines = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in files.items()}
    return edges, lines


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def folder(module: str, depth: int) -> str:
    """The module's folder `depth` levels below simcell (a top-level module is its own)."""
    parts = module.split(".")[1:]
    return "/".join(parts[:depth]) if len(parts) > depth else "/".join(parts) or "__init__"


def report_floor(module: str) -> int:
    parts = module.split(".")
    if len(parts) < 3:
        return 0
    if parts[2] in REPORT_FLOORS:
        return REPORT_FLOORS[parts[2]]
    return REPORT_TOOL_FLOOR if parts[2] in TOOL_REPORTS else 0


# the tools' reports, wherever they live: a module of reports/ that one designer tool builds
TOOL_REPORTS = {"compare", "compare_skill", "sweep", "seat_causes", "calibration", "probe",
                "exploit", "fit", "tune", "skill", "targets"}


def against_layering(edges: dict[str, set[str]]) -> list[str]:
    bad = []
    for a, targets in edges.items():
        for b in targets:
            ra, rb = room(a), room(b)
            if ra != rb:
                if FLOORS.get(rb, 0) > FLOORS.get(ra, 0):
                    bad.append(f"{a} -> {b}")
            elif ra == "reports":
                fa, fb = report_floor(a), report_floor(b)
                sections = "sections" in a.split(".") and "sections" in b.split(".")
                if fb > fa or (fa == fb == REPORT_TOOL_FLOOR) or (sections and a != b):
                    bad.append(f"{a} -> {b}")
    return sorted(bad)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def summary(edges: dict[str, set[str]], lines: dict[str, int], depth: int,
            within: str | None = None) -> list[str]:
    """Lines per folder and imports between folders (each module-to-module import counted once)."""
    mods = [m for m in edges if within is None or m.startswith(within)]
    per_folder: Counter = Counter()
    for m in mods:
        per_folder[folder(m, depth)] += lines[m]
    between: Counter = Counter()
    for a in mods:
        for b in edges[a]:
            if b in edges and (within is None or b.startswith(within)):
                fa, fb = folder(a, depth), folder(b, depth)
                if fa != fb:
                    between[(fa, fb)] += 1
    total = sum(per_folder.values())
    out = [f"{total:,} lines in {len(mods)} modules"]
    out += [f"  {name:28s} {n:6,d} lines  {100 * n / total:4.1f}%"
            for name, n in sorted(per_folder.items(), key=lambda kv: -kv[1])]
    out.append(f"imports between folders: {sum(between.values())} "
               f"({len(between)} folder pairs)")
    fan = defaultdict(list)
    for (fa, fb), n in sorted(between.items()):
        fan[fa].append(f"{fb} {n}")
    out += [f"  {fa} -> {', '.join(targets)}" for fa, targets in sorted(fan.items())]
    return out


def report(package: Path = PACKAGE) -> str:
    edges, lines = graph(package)
    out = ["## the whole package"] + summary(edges, lines, depth=1)
    bad = against_layering(edges)
    whole_bad = [b for b in bad if room(b.split(" -> ")[0]) != "reports"
                 or room(b.split(" -> ")[1]) != "reports"]
    out.append(f"imports against the layering (between rooms): {len(whole_bad)}")
    out += [f"  {b}" for b in whole_bad]
    cyc = cycles(edges)
    out.append(f"import cycles: {len(cyc)}")
    out += [f"  {' <-> '.join(c)}" for c in cyc]
    reports = {m: {b for b in t if b.startswith("simcell.reports")}
               for m, t in edges.items() if m.startswith("simcell.reports")}
    inside = sum(len(t) for t in reports.values())
    out += ["", "## reports/"] + summary(edges, lines, depth=2, within="simcell.reports")
    out.append(f"imports inside reports/: {inside} between {len(reports)} modules")
    rep_bad = [b for b in bad if room(b.split(" -> ")[0]) == room(b.split(" -> ")[1]) == "reports"]
    out.append(f"imports against the layering inside reports/: {len(rep_bad)}")
    out += [f"  {b}" for b in rep_bad]
    outside = sorted({f"{a} -> {b}" for a, t in edges.items() if a.startswith("simcell.reports")
                      for b in t if not b.startswith("simcell.reports")})
    out.append(f"imports from reports/ of other rooms: {len(outside)}")
    out += [f"  {b}" for b in outside]
    return "\n".join(out)


if __name__ == "__main__":
    print(report(Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE))
