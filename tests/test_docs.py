"""The project's own docs (front-door issue): the command reference is generated from the CLI
and kept in sync; every reference the project ships points inside the repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
GENERATE = [sys.executable, "-m", "typer", "simcell.cli", "utils", "docs", "--name", "simcell",
            "--title", "simcell command reference"]


def test_the_command_reference_is_the_clis_own(tmp_path):
    """docs/commands.md is typer's `utils docs` of the CLI as it is: a help text changed without
    regenerating it fails here."""
    out = tmp_path / "commands.md"
    subprocess.run(GENERATE + ["--output", str(out)], check=True, capture_output=True, cwd=ROOT)
    shipped = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == shipped, (
        "docs/commands.md is out of date: regenerate it with "
        "python -m typer simcell.cli utils docs --name simcell --title 'simcell command reference' "
        "--output docs/commands.md")
