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
