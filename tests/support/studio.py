"""A started studio session for the studio's tests: a 3-player planner config in a fresh folder,
one warm worker, its baseline played."""

from __future__ import annotations

from pathlib import Path

from simcell.studio.session import Session

CONFIG = """
[run]
players = 3
games = {games}
seed = {seed}

[[field]]
name = "planner"
policy = "planner"
"""


def started_session(folder: Path, *, games: int, block: int, seed: int) -> Session:
    config = folder / "c.toml"
    config.write_text(CONFIG.format(games=games, seed=seed))
    session = Session(config, folder / "out", games=games, block=block, workers=1)
    session.start()
    assert session.wait_baseline(), session.error
    return session
