"""The card set, one game's log, the kernel's cache and the runs' disk: cards, replay, warm,
prune."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from simcell.cli.app import app
from simcell.cli.common import _fail, _runner, _warm_kernel


@app.command()
def cards(
    config: Path | None = typer.Argument(
        None, help="Run config whose card set to show (default: the shipped set)."
    ),
) -> None:
    """Show the resolved card set with overrides applied, each card's cost in placements and
    its HP per placement."""
    from rich.console import Console
    from rich.table import Table as RichTable

    from simcell.config.errors import ConfigError
    from simcell.config.load import load_default_game, load_run_config
    from simcell.config.summary import card_rows, card_value_marks

    try:
        game = load_run_config(config).game if config is not None else load_default_game()
    except ConfigError as exc:
        _fail(str(exc))
        return
    shipped = {c.id: c for c in load_default_game().cards}
    rows = card_rows(game)
    table = RichTable(title=f"Cell Component cards  (content hash {game.content_hash[:16]})")
    for col in ("id", "name", "type", "atp", "protein", "carb", "lipid", "golgi", "hp", "bonus",
                "gain", "placements", "HP/placement"):
        table.add_column(col, justify="left" if col in ("name", "type", "golgi", "gain") else "right")
    for card, row in zip(game.cards, rows, strict=True):
        marks = card_value_marks(card, shipped.get(card.id))

        def cell(field: str, text: str, marks=marks) -> str:
            if marks[field] is None:  # not a field of the card's type
                return "-"
            return f"[bold yellow]{text}*[/]" if marks[field] else text

        gain = ", ".join(f"{n} {r}" for r, n in zip(("mRNA", "Protein", "Carb", "Lipid", "ATP"),
                                                     row["gain"]) if n)
        pl = row["placements"]
        table.add_row(
            str(row["id"]), row["name"], cell("type", row["type"]),
            cell("atp", str(row["atp"])), cell("protein", str(row["protein"])),
            cell("carb", str(row["carb"])), cell("lipid", str(row["lipid"])),
            cell("golgi", row["golgi"] or "-"), cell("hp", str(row["hp"])),
            cell("bonus_per_match", str(row["bonus_per_match"])), cell("gain", gain or "-"),
            "-" if pl is None else str(pl),
            "-" if pl is None else f"{row['hp_per_placement']:.2f}",
        )
    console = Console(width=max(140, Console().width))
    console.print(table)
    console.print("* differs from the shipped set (every value of an added card).  - not a field "
                  "of the card's type.")
    console.print("placements: fewest flask placements to buy and complete the card from nothing at "
                  "the board's best rates.")


@app.command()
def replay(
    config: Path = typer.Argument(..., help="Run config whose game to replay."),
    game: int = typer.Option(..., "--game", "-g", min=0, help="Game index N (0-based)."),
    players: int | None = typer.Option(
        None, "--players", "-p", help="Player count (default: the config's first)."
    ),
    field: str | None = typer.Option(None, "--field", help="Policy field (default: the first)."),
) -> None:
    """Print a human-readable log of game N, checked action by action by the referee: setup,
    every turn (who placed where, what they gained, paid and completed), each Phase 2 and the
    score by source."""
    from simcell.config.errors import ConfigError
    from simcell.config.load import load_run_config

    try:
        rc = load_run_config(config)
    except ConfigError as exc:
        _fail(str(exc))
        return
    if players is None:
        players = rc.players[0]
    elif players not in rc.players:
        _fail(f"{config}: --players {players}: the run plays {', '.join(map(str, rc.players))}")
        return
    chosen = rc.fields[0] if field is None else next((f for f in rc.fields if f.name == field), None)
    if chosen is None:
        _fail(f"{config}: --field {field}: no such field; fields: {', '.join(f.name for f in rc.fields)}")
        return
    from simcell.policies.user import UserPolicyError
    from simcell.runner.replay import replay_log

    _warm_replay(chosen, players)
    try:
        text = replay_log(rc.game, players, rc.seed, game, chosen, base=config.parent)
    except UserPolicyError as exc:
        _fail(f"{config}: {exc}")
        return
    typer.echo(text, nl=False)


def _warm_replay(field, players: int) -> None:
    """Compile (or load) the traced game loop a replay of `field` plays, under the spinner of
    `simcell run` on stderr (one line where stderr is no terminal) when it is not cached: the
    first replay compiles for about half a minute."""
    from rich.console import Console

    from simcell.policies.registry import game_loop
    from simcell.runner.fields import seating
    from simcell.runner.progress import compile_spinner
    from simcell.runner.warm import expected_traced_seconds, needs_compile_traced, warm_traced

    loop = game_loop(seating(field, players).player_policy)
    compiling = needs_compile_traced(loop)
    if compiling is False:
        return
    with compile_spinner(*expected_traced_seconds(loop), compiling, console=Console(stderr=True),
                         what="the game kernel's replay loop", say_when_not_terminal=True):
        warmed = warm_traced(loop)
    if warmed.compiled:
        typer.echo(f"compiled the game kernel's replay loop in {warmed.total:.0f} s (cached for "
                   "the next replays)", err=True)


@app.command("warm")
def warm_command(
    config: Path | None = typer.Argument(
        None, help="Run config whose game loops to compile (default: every game loop)."),
) -> None:
    """Compile the game kernel into the cache ahead of any run (for images and clusters): the
    game loops a config's fields play, or all three (random, policies, search), and the
    runner's record sums. Prints what was compiled or loaded, and where the cache is."""
    from simcell.kernel.jit import cache_base
    from simcell.runner.run import RunOptions
    from simcell.runner.warm import LOOP_NAMES

    loops = set(LOOP_NAMES) if config is None else _runner(config, RunOptions()).loops
    warmed = _warm_kernel(loops, quiet=False)
    for name, seconds in warmed.seconds.items():
        how = "compiled" if name in warmed.compiled else "loaded"
        typer.echo(f"{name:10s} {how} in {seconds:.1f} s")
    typer.echo(f"cache: {cache_base()}")


@app.command()
def prune(
    paths: list[Path] = typer.Argument(..., metavar="PATH...", help="Run directories, or folders "
                                       "holding them (runs/, a designer tool's folder)."),
    keep_summaries: bool = typer.Option(False, "--keep-summaries", help="Drop each finished run's "
                                        "per-game records (players/, games/, partial/) and keep "
                                        "its summaries: run.json, resolved.json, config.toml, "
                                        "cards.csv, blocks/, report/."),
    older_than: str | None = typer.Option(None, "--older-than", help="Only runs that ended longer "
                                          "ago than this (12h, 30d, 2w); without "
                                          "--keep-summaries they are removed whole."),
    keep_newest: int | None = typer.Option(None, "--keep-newest", min=0, help="Leave the N newest "
                                           "runs alone; without --keep-summaries the rest are "
                                           "removed whole."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List what would go and how much; "
                                 "remove nothing."),
) -> None:
    """Free the disk runs take: keep only the summaries of finished runs (--keep-summaries), or
    remove old runs whole (--older-than, --keep-newest). Only simcell run directories are
    touched, never one that may be playing; a run inside another (its rungs) goes with it.
    Dropped records are played again, bit for bit, by simcell run CONFIG --resume RUN; simcell
    report needs them."""
    from simcell.runner.disk import PruneError, apply, human, parse_age, plan, runs_line

    try:
        age = parse_age(older_than) if older_than is not None else None
        todo = plan(paths, keep_summaries=keep_summaries, older_than=age, keep_newest=keep_newest)
    except PruneError as exc:
        _fail(str(exc))
        return
    for root, why in todo.skipped:
        typer.echo(f"left alone {root}: {why}", err=True)
    if dry_run:
        for step in todo.steps:
            typer.echo(step.line(dry_run=True))
        freed = sum(step.bytes for step in todo.steps)
        typer.echo(f"would free {human(freed)} of {human(todo.bytes)} ({todo.runs} run(s) found); "
                   "nothing removed (--dry-run)")
        return
    try:
        for step in todo.steps:
            apply([step])
            typer.echo(step.line(dry_run=False))
    except OSError as exc:
        _fail(f"pruning stopped: {exc}")
        return
    freed = sum(step.bytes for step in todo.steps)
    typer.echo(f"freed {human(freed)} of {human(todo.bytes)} ({todo.runs} run(s) found)")
    for path in paths:
        if path.exists():
            typer.echo(f"  now {runs_line(path)}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
