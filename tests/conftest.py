"""Shared test fixtures: paths of the repository's configs and shipped data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
DATA = ROOT / "simcell" / "data"


@pytest.fixture
def configs_dir() -> Path:
    return CONFIGS


@pytest.fixture
def data_dir() -> Path:
    return DATA


def pytest_terminal_summary(terminalreporter) -> None:
    """Print the rule paths the parity games exercised."""
    try:
        from tests.test_parity import FLOORS, PARITY_COUNTS
    except Exception:  # the module was not collected
        return
    if PARITY_COUNTS.get("games"):
        terminalreporter.section("parity: rule paths exercised")
        for key in sorted(PARITY_COUNTS):
            floor = FLOORS.get(key)
            terminalreporter.write_line(
                f"{key:22s} {PARITY_COUNTS[key]:>8d}" + (f"   (floor {floor})" if floor else "")
            )
