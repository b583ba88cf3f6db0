"""The progress bar of a run: games done of the total, games per second, time left."""

from __future__ import annotations

import time
from contextlib import contextmanager


@contextmanager
def progress_bar(quiet: bool):
    """A callable(done, total) that draws the bar (a no-op when quiet)."""
    if quiet:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("games"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=False) as bar:
        task = None
        start: list[float] = []

        def update(done: int, total: int) -> None:
            nonlocal task
            now = time.perf_counter()
            if task is None:
                task = bar.add_task("games", total=total, completed=done, rate="")
                start[:] = [now, done]
                return
            rate = (done - start[1]) / (now - start[0]) if now > start[0] else 0.0
            bar.update(task, completed=done, rate=f"{rate:,.0f} games/s")

        yield update
