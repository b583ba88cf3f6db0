"""Every reference the project ships points inside the repository (front-door issue): the rules
and the method are docs/rules.md and docs/method.md, not files a designer who clones the project
does not have."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[1]

# files simcell writes (a report's report.md), named in the docs but not in the repository
WRITTEN = {"report.md"}


def _shipped() -> list[Path]:
    """Every text file the repository ships (git's index), but the golden logs."""
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / f for f in out.splitlines()
            if not f.startswith("tests/golden/") and Path(f).suffix in {".md", ".py", ".toml", ".html", ".txt", ".ipynb", ""}
            and (ROOT / f).is_file()]


def test_every_reference_points_inside_the_repository():
    """A Markdown file named anywhere the project ships (code, docs, data, report text, help)
    exists in the repository, and nothing points at a folder outside it: a designer who clones
    the project can follow every reference."""
    import re

    root = ROOT.resolve()
    basenames = {p.name for p in _shipped()}

    def inside(ref: str, where: Path) -> bool:
        for base in (root, where.parent.resolve()):
            target = (base / ref).resolve()
            if target.is_relative_to(root) and target.is_file():
                return True
        return "/" not in ref and ref in basenames  # a file named by its name alone

    bad = []
    for path in _shipped():
        if path.resolve() == Path(__file__).resolve():
            continue  # this test's own patterns
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(r"[\w./-]*\w\.md\b", text):  # a name, not a pattern ("*.md")
            if m.group(0) not in WRITTEN and not inside(m.group(0), path):
                bad.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
        for m in re.finditer(r"\.\./shared|shared folder", text):
            bad.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert not bad, f"{len(bad)} reference(s) outside the repository, e.g. " + "; ".join(sorted(set(bad))[:12])
