"""The progress displays of a run: a spinner while the kernel compiles, then the bar of games
done of the total, games per second, time left."""

from __future__ import annotations

import time
from contextlib import contextmanager


class GameRate:
    """Games per second from the first finished work unit on: worker start-up (and, on a first
    run, the kernel's compile) is not play, and counting it would show a fraction of the
    speed until the end. Blank until a second unit is in."""

    def __init__(self) -> None:
        self.first: tuple[float, int] | None = None  # (time, games done) at the first unit

    def __call__(self, now: float, done: int) -> str:
        if self.first is None:
            self.first = (now, done)
            return ""
        t0, d0 = self.first
        if now <= t0 or done <= d0:
            return ""
        return f"{(done - d0) / (now - t0):,.0f} games/s"


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
        rate = GameRate()

        def update(done: int, total: int) -> None:
            nonlocal task
            if task is None:  # the first call comes before any unit is in
                task = bar.add_task("games", total=total, completed=done, rate="")
                return
            bar.update(task, completed=done, rate=rate(time.perf_counter(), done))

        yield update


@contextmanager
def compile_spinner(expected: float, measured: bool, compiling: bool | None, console=None,
                    what: str = "the game kernel", say_when_not_terminal: bool = False):
    """A spinner with the elapsed time while the kernel compiles (`compiling` True) or while it
    compiles or loads (None: numba's cache could not be read), with the expected duration:
    this machine's last compile (`measured`) or the development VM's. Drawn on `console` (a
    rich Console; default: the terminal's), and cleared when the block ends. `what` names what
    compiles; where the console is no terminal (no spinner is drawn), `say_when_not_terminal`
    prints the spinner's words once instead."""
    from rich import get_console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    where = "on this machine" if measured else "on a 2-core VM"
    doing = (f"compiling {what} for this simcell code, once per machine"
             if compiling else f"loading (or compiling) {what}")
    text = f"{doing} (about {expected:.0f} s {where})"
    shown = console or get_console()
    if say_when_not_terminal and not shown.is_terminal:
        shown.print(text, highlight=False, soft_wrap=True)
    with Progress(SpinnerColumn(), TextColumn(text), TextColumn("elapsed"), TimeElapsedColumn(),
                  transient=True, console=console) as spinner:
        spinner.add_task("compile", total=None)
        yield
