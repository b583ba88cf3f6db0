"""The designer tools' commands: each a thin command over its front door in simcell.api (the
tool's loop in simcell/tools/NAME/, every run of it on one shared pool of workers)."""

from __future__ import annotations

from pathlib import Path

import typer

from simcell.cli.app import app
from simcell.cli.common import (
    _DASK,
    _FORCE,
    _NO_RUNGS,
    _PLAYERS,
    _QUIET,
    _SEED,
    _WORKERS,
    _calibration,
    _call,
    _fail,
    _games,
    _out,
    _rungs,
    _rungs_option,
    _split,
)


def _sizes(folder: Path, quiet: bool) -> None:
    """What the tool's runs take on disk (simcell prune makes room), unless quiet."""
    if not quiet:
        from simcell.runner.disk import runs_line

        typer.echo(runs_line(folder), err=True)


@app.command()
def compare(
    a: Path = typer.Argument(..., help="Run directory or config A (the baseline)."),
    b: Path = typer.Argument(..., help="Run directory or config B (the change)."),
    out: Path | None = _out("Folder for the comparison (default: compare-A-B, or beside B's run "
                            "directory); configs are run into OUT/a and OUT/b."),
    unpaired: bool = typer.Option(False, "--unpaired", help="Compare runs on different seeds "
                                  "(unpaired; the report says so)."),
    calibration: Path | None = _calibration(),
    games: int | None = _games("With configs: games per field and player count (default: A's)."),
    seed: int | None = typer.Option(None, "--seed", min=0, help="With configs: the seed both run "
                                    "on (default: A's)."),
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = typer.Option(False, "--force", help="Replace existing runs and comparison."),
    rungs: str | None = _rungs_option("With two configs, the rungs each run is played again under, "
                                      "comma-separated (default: the config's [report] rungs): "
                                      "every seat's and card type's change marked as holding "
                                      "across skill or not."),
    no_rungs: bool = _NO_RUNGS,
    quiet: bool = _QUIET,
) -> None:
    """What a change does: B against A, game g against game g, every figure side by side with
    the paired difference and its interval. A and B are run directories, or two configs (both
    then run on the same seed first; an interrupted pair continues where it stopped)."""
    from simcell import api
    from simcell.tools.compare import terminal_summary

    written = _call(api.compare, a, b, out, unpaired=unpaired, calibration=calibration,
                    rungs=_rungs(rungs, no_rungs), games=games, seed=seed, players=players,
                    workers=workers, dask=dask, force=force, quiet=quiet)
    _sizes(written, quiet)
    typer.echo(terminal_summary(written))
    typer.echo(f"comparison: {written / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def sweep(
    config: Path = typer.Argument(..., help="Run config to vary."),
    set_: list[str] | None = typer.Option(
        None, "--set", help="KEY=V1,V2,... : a card, card type, event, goal, board or rule value "
        "and the values it takes (cards.\"Insulin\".atp=1,2,3,4; types.detox.atp=+0,+1,+2, every "
        "card of the type, a signed value relative to its own; board.goals.first_marker_hp=2,3; "
        "rules.turn_order=marker,rotate); several make a grid. Also: a [sweep] table."),
    out: Path | None = _out("Folder of the sweep (default: sweep-CONFIG)."),
    calibration: Path | None = _calibration(),
    games: int | None = _games("Games per variant, field and player count (default: the config's)."),
    seed: int | None = typer.Option(None, "--seed", min=0, help="The seed every variant plays "
                                    "(default: the config's)."),
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    holdout: bool = typer.Option(True, "--holdout/--no-holdout", help="Replay the variants either "
                                 "side of a zero crossing on fresh seeds to confirm it."),
    force: bool = typer.Option(False, "--force", help="Replace the sweep's runs."),
    rungs: str | None = _rungs_option("The rungs the first and the last variant are played again "
                                      "under, comma-separated (default: the config's [report] "
                                      "rungs): the change from one to the other marked as holding "
                                      "across skill or not."),
    no_rungs: bool = _NO_RUNGS,
    quiet: bool = _QUIET,
) -> None:
    """Vary one value (or a grid) on the same games: one run directory per variant, then
    response curves with paired intervals, the slope per step and, for a card, the value at which
    its contrast against its type crosses zero. An interrupted sweep continues where it stopped."""
    from simcell import api

    written = _call(api.sweep, config, set_ or [], out, calibration=calibration, holdout=holdout,
                    rungs=_rungs(rungs, no_rungs), games=games, seed=seed, players=players,
                    workers=workers, dask=dask, force=force, quiet=quiet)
    _sizes(written, quiet)
    typer.echo(f"sweep: {written / 'report.html'} (and report.md, tables/*.csv; each variant's "
               f"run directory under {written / 'runs'}, readable by simcell report)")


@app.command()
def seats(
    config: Path = typer.Argument(..., help="Run config whose seats to explain."),
    out: Path | None = _out("Folder (default: seats-CONFIG)."),
    games: int | None = _games("Games per variant, field and player count (default: the config's)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    search: bool = typer.Option(True, "--search/--no-search", help="Search for a starting-ATP "
                                "schedule (ATP by seat) that makes seats fair."),
    trials: int = typer.Option(24, "--trials", min=2, help="Schedules the search screens."),
    screen_games: int | None = typer.Option(None, "--screen-games", min=100, help="Games per "
                                            "player count for each screened schedule (default: a "
                                            "tenth of --games, at least 2,000)."),
    confirm: int = typer.Option(3, "--confirm", min=1, help="Best schedules replayed on fresh "
                                "seeds."),
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """Why seats differ: paired runs with each cause of seat advantage switched off (flat
    starting ATP, no grey flasks, the marker holder may not retake Laureates, rotating turn
    order, all together), then a search for the starting-ATP schedule that brings every seat
    within the band, its best schedules confirmed on fresh seeds."""
    from simcell import api

    written = _call(api.seats, config, out, search=search, trials=trials,
                    screen_games=screen_games, confirm=confirm, games=games, seed=seed,
                    players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    _sizes(written, quiet)
    typer.echo(f"seats: {written / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def calibrate(
    config: Path = typer.Argument(..., help="Run config to calibrate."),
    out: Path | None = _out("Folder (default: calibrate-CONFIG)."),
    games: int | None = _games("Games per run, field and player count (default: the config's)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """The measured ATP equivalent per player count: what +1 starting ATP for one player is worth
    in win share and HP (each seat in turn, paired with the config as it is, averaged). Give the
    folder to compare or sweep with --calibration to read effects in ATP."""
    from simcell import api

    written = _call(api.calibrate, config, out, games=games, seed=seed, players=players,
                    workers=workers, dask=dask, force=force, quiet=quiet)
    _sizes(written, quiet)
    typer.echo(f"calibration: {written / 'report.html'} (and calibration.json)")


@app.command()
def probe(
    config: Path = typer.Argument(..., help="Run config whose first field's policy probes."),
    cards: str | None = typer.Option(None, "--cards", help="Cards to probe, comma-separated "
                                     "(default: every card a player completes)."),
    favour: float = typer.Option(3.0, "--favour", min=1.0, help="How many times its worth the "
                                 "probed card is to the probing player."),
    out: Path | None = _out("Folder (default: probe-CONFIG)."),
    calibration: Path | None = _calibration("state the gains in ATP too"),
    games: int | None = _games("Games per run (default: the config's, at most 100,000; one run "
                               "per card and player count, and a baseline)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """What each card is worth to a player who goes for it: the config's policy made to
    prioritise the card in one seat (every seat in turn) against the unmodified field, paired with
    the unmodified policy there on the same games; cards ranked by the win share gained (owning)
    beside the strongest opponent's loss (denying), with the probe's completion rate."""
    from simcell import api

    written = _call(api.probe, config, out, cards=_split(cards), favour=favour,
                    calibration=calibration, games=games, seed=seed, players=players,
                    workers=workers, dask=dask, force=force, quiet=quiet)
    _sizes(written, quiet)
    typer.echo(f"probe: {written / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def exploit(
    config: Path = typer.Argument(..., help="Run config whose first field's policy is deviated from."),
    out: Path | None = _out("Folder (default: exploit-CONFIG)."),
    games: int | None = _games("Games per run (default: the config's, at most 20,000; one run per "
                               "deviation and player count, and a baseline)."),
    holdout_games: int | None = typer.Option(None, "--holdout-games", min=1, help="Games of the "
                                             "best deviation's fresh replay (default: twice --games)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """The field's exploitability: the most win share one player gains by deviating from the
    field's policy (each card type's weight, the goal and First Player Marker worths, each
    resource's worth, up and down) while the others keep it, every seat in turn, paired with the
    field on the same games; the best deviation replayed on fresh games. Name the folder as
    `exploit` in a run config's report table to quote it in the report's summary."""
    from simcell import api
    from simcell.reports.measured import exploit_sentences

    written = _call(api.exploit, config, out, holdout_games=holdout_games, games=games, seed=seed,
                    players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    _sizes(written, quiet)
    typer.echo(f"exploit: {written / 'report.html'} (and exploit.json, tables/*.csv)")
    for line in exploit_sentences(written):
        typer.echo(line)


@app.command()
def fit(
    config: Path = typer.Argument(..., help="Run config whose first field's policy is fitted."),
    out: Path | None = _out("Folder (default: fit-CONFIG)."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, help="Most rounds per player count (default 8)."),
    trials: int | None = typer.Option(None, "--trials", min=0, help="Searched deviations a round (default 48)."),
    deals: int | None = typer.Option(None, "--deals", min=2, help="Deals of the screen (default 2,000; P games each)."),
    holdout_deals: int | None = typer.Option(None, "--holdout-deals", min=2,
                                             help="Fresh deals of each confirmed deviation (default 8,000)."),
    band: float | None = typer.Option(None, "--band", min=0.0, help="Fitted when no deviation gains "
                                      "more (pp, default 1)."),
    budget_minutes: float | None = typer.Option(None, "--budget-minutes", min=0.1, help="No new round "
                                                "at a player count after this long."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    quiet: bool = _QUIET,
) -> None:
    """Fit the field's worths by self-play: each round one player deviates from the field
    (simcell exploit's family and a CMA-ES search over every worth) in every seat, on the same
    deals; the best, played again on fresh deals, is the field's exploitability; beyond the band
    the field moves towards it. Writes fitted.toml, which a field plays with
    fitted = { POLICY = "fitted.toml" }, and a config playing it."""
    from simcell import api
    from simcell.tools.fit import fit_sentences
    from simcell.vocabulary import FITTED_FILE

    written = _call(api.fit, config, out, rounds=rounds, trials=trials, deals=deals,
                    holdout_deals=holdout_deals, band=band, budget_minutes=budget_minutes,
                    seed=seed, players=players, workers=workers, quiet=quiet)
    _sizes(written, quiet)
    typer.echo(f"fit: {written / FITTED_FILE} (and report.html, fit.json)")
    for line in fit_sentences(written):
        typer.echo(line)


@app.command()
def ladder(
    config: Path = typer.Argument(..., help="Run config whose game the bots play (its fields are not used)."),
    policies: str | None = typer.Option(None, "--policies", help="Policies to rate, comma-separated: "
                                        "built-in names, labelled variants (rollout#b32) or user "
                                        "policies file.py:function (default: random, greedy, planner, "
                                        "the archetypes, the rollout at 2 and 4 playouts (rollout#p2, "
                                        "rollout) and the oracle, which sees the hidden cards)."),
    param: list[str] | None = typer.Option(None, "--param", help="LABEL.KEY=VALUE, a labelled "
                                           "policy's parameter (rollout#b32.playouts=32); repeatable."),
    games: int | None = _games("Games per field (default 2,000).", minimum=100),
    out: Path | None = _out("Folder (default: ladder-CONFIG)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """The bot ladder, how strong each bot is: at each player count, every pairing (one policy
    among copies of another, every seat in turn) and mixed pools of distinct policies on the same
    deals; each policy's Plackett–Luce strength from the finishing orders with bootstrap
    intervals, the head to head table, and which neighbours on the ladder separate."""
    from simcell import api
    from simcell.tools.ladder import ladder_sentences

    params: dict[str, dict[str, float]] = {}
    for text in param or []:
        key, sep, value = text.partition("=")
        label, dot, name = key.strip().rpartition(".")
        try:
            if not (sep and dot and label and name):
                raise ValueError
            params.setdefault(label, {})[name] = float(value)
        except ValueError:
            _fail(f"--param {text!r}: expected LABEL.KEY=NUMBER, e.g. rollout#b32.playouts=32")
    written = _call(api.ladder, config, out, policies=_split(policies), params=params, games=games,
                    seed=seed, players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    _sizes(written, quiet)
    typer.echo(f"ladder: {written / 'report.html'} (and ladder.json, tables/*.csv)")
    for line in ladder_sentences(written):
        typer.echo(line)


@app.command()
def tune(
    config: Path = typer.Argument(..., help="Run config whose card values to tune ([tune] table "
                                  "optional)."),
    cards: str | None = typer.Option(None, "--cards", help="Cards that may change, comma-separated: "
                                     "names, card types or all (default: [tune] cards, else all)."),
    fields: str | None = typer.Option(None, "--fields", help="Card fields that may change, "
                                      "preferred first (default: [tune] fields, else atp,hp)."),
    range_: int | None = typer.Option(None, "--range", min=1, help="Largest change of a value, in "
                                      "whole steps (default: [tune] range, else 2)."),
    screen_games: int | None = typer.Option(None, "--screen-games", min=1000, help="Games of the "
                                            "first round, doubled each round (default 50,000)."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, help="Rounds of measuring and "
                                      "stepping (default 4)."),
    games: int | None = _games("Games of the holdout comparison (default: the config's).", minimum=1000),
    board: str | None = typer.Option(None, "--board", help="Board values searched for the seats, "
                                     "comma-separated keys (board.setup.starting_atp, "
                                     "board.goals.first_marker_hp ...; default: [tune] board, else none)."),
    rules: str | None = typer.Option(None, "--rules", help="Rule switches searched with the board "
                                     "values, comma-separated (turn_order, grey_per_player ...; default: "
                                     "[tune] rules, else none)."),
    board_trials: int | None = typer.Option(None, "--board-trials", min=1, help="Board and rule "
                                            "assignments tried (default 16)."),
    budget_minutes: float | None = typer.Option(None, "--budget-minutes", min=0.1, help="No further "
                                                "search stage after this long (the holdout still runs)."),
    budget_games: int | None = typer.Option(None, "--budget-games", min=1000, help="No further search "
                                            "stage after this many games."),
    types: bool | None = typer.Option(None, "--types/--no-types", help="Also step whole card types "
                                      "toward the type band, every card of a type by one whole "
                                      "step (default: [tune] types, else no)."),
    rungs: str | None = _rungs_option("Rungs every run plays beside the config's field, "
                                      "comma-separated heuristic rungs (planner, fitted, an "
                                      "archetype): each card steered by its worst field (default: "
                                      "[tune] rungs)."),
    no_rungs: bool = typer.Option(False, "--no-rungs", help="Play no rung beside the config's "
                                  "field, whatever [tune] rungs names."),
    out: Path | None = _out("Folder (default: tune-CONFIG)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """Propose card values that bring every card's contrast against its type within the band,
    fewest changed values first: each card out of band stepped by its measured response, round
    by round on more games (with --types, each card type's gap against the average card too, a
    whole type stepped together); then any board values and rule switches named searched for fair seats
    within the optional [tune.targets]; then the original and tuned sets compared on fresh seeds,
    every target's verdict. Writes tuned-cards.toml, tuned.toml (the config playing it), the
    changes and the comparison."""
    from simcell import api

    chosen = _rungs(rungs, no_rungs)
    written = _call(api.tune, config, out, cards=_split(cards), fields=_split(fields),
                    range_=range_, screen_games=screen_games, rounds=rounds, games=games,
                    board=_split(board), rules=_split(rules), board_trials=board_trials,
                    budget_minutes=budget_minutes, budget_games=budget_games, types=types,
                    rungs=[] if chosen is False else None if chosen is True else chosen,
                    seed=seed, players=players, workers=workers, dask=dask, force=force,
                    quiet=quiet)
    _sizes(written, quiet)
    typer.echo(f"tune: {written / 'report.html'} (tuned-cards.toml, tuned.toml; the holdout "
               f"comparison in {written / 'compare'})")
