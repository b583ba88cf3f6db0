"""The designer tools' commands: each a thin command over its loop in simcell/tools/, played
through `_plays` on one shared pool of workers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from simcell.cli import app
from simcell.cli.common import _fail, _plays, _SEED, _PLAYERS, _WORKERS, _DASK, _FORCE, _QUIET, _tool


@app.command()
def compare(
    a: Path = typer.Argument(..., help="Run directory or config A (the baseline)."),
    b: Path = typer.Argument(..., help="Run directory or config B (the change)."),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Folder for the comparison (default: compare-A-B, or beside "
        "B's run directory); configs are run into OUT/a and OUT/b."),
    unpaired: bool = typer.Option(False, "--unpaired", help="Compare runs on different seeds "
                                  "(unpaired; the report says so)."),
    calibration: Path | None = typer.Option(None, "--calibration", help="A simcell calibrate "
                                            "folder: state differences in ATP too."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="With configs: games per "
                                     "field and player count (default: A's)."),
    seed: int | None = typer.Option(None, "--seed", min=0, help="With configs: the seed both run "
                                    "on (default: A's)."),
    players: list[int] | None = typer.Option(None, "--players", "-p", help="With configs: player "
                                             "count(s) instead of A's."),
    workers: int | None = _WORKERS,
    dask: str | None = typer.Option(None, "--dask", help="With configs: run on this Dask "
                                    "scheduler (tcp://HOST:8786)."),
    force: bool = typer.Option(False, "--force", help="Replace existing runs and comparison."),
    rungs: bool = typer.Option(True, "--rungs/--no-rungs", help="With two configs, play each run again "
                               "under the config's [report] rungs: every seat's and card type's change "
                               "marked as holding across skill or not."),
    quiet: bool = _QUIET,
) -> None:
    """What a change does: B against A, game g against game g, every figure side by side with
    the paired difference and its interval. A and B are run directories, or two configs (both
    then run on the same seed first; an interrupted pair continues where it stopped)."""
    from simcell.tools.compare import default_folder, run_compare

    folder = out or default_folder(a, b)
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_compare, a, b, folder, plays, games=games, seed=seed, unpaired=unpaired,
                    calibration=calibration, rungs=rungs)
    from simcell.reports.compare import terminal_summary

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
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder of the sweep (default: "
                                    "sweep-CONFIG)."),
    calibration: Path | None = typer.Option(None, "--calibration", help="A simcell calibrate "
                                            "folder: state differences in ATP too."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per variant, field "
                                     "and player count (default: the config's)."),
    seed: int | None = typer.Option(None, "--seed", min=0, help="The seed every variant plays "
                                    "(default: the config's)."),
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    holdout: bool = typer.Option(True, "--holdout/--no-holdout", help="Replay the variants either "
                                 "side of a zero crossing on fresh seeds to confirm it."),
    force: bool = typer.Option(False, "--force", help="Replace the sweep's runs."),
    rungs: bool = typer.Option(True, "--rungs/--no-rungs", help="Play the first and the last variant "
                               "again under the config's [report] rungs: the change from one to the "
                               "other marked as holding across skill or not."),
    quiet: bool = _QUIET,
) -> None:
    """Vary one value (or a grid) on the same games: one run directory per variant, then
    response curves with paired intervals, the slope per step and, for a card, the value at which
    its contrast against its type crosses zero. An interrupted sweep continues where it stopped."""
    from simcell.tools.sweep import run_sweep

    folder = out or Path(f"sweep-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_sweep, config, set_ or [], folder, plays, games=games, seed=seed,
                    calibration=calibration, holdout=holdout, rungs=rungs)
    typer.echo(f"sweep: {written / 'report.html'} (and report.md, tables/*.csv; each variant's "
               f"run directory under {folder / 'runs'}, readable by simcell report)")


@app.command()
def seats(
    config: Path = typer.Argument(..., help="Run config whose seats to explain."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: seats-CONFIG)."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per variant, field "
                                     "and player count (default: the config's)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    search: bool = typer.Option(True, "--search/--no-search", help="Search for a starting-ATP "
                                "ladder that makes seats fair."),
    trials: int = typer.Option(24, "--trials", min=2, help="Ladders the search screens."),
    screen_games: int | None = typer.Option(None, "--screen-games", min=100, help="Games per "
                                            "player count for each screened ladder (default: a "
                                            "tenth of --games, at least 2,000)."),
    confirm: int = typer.Option(3, "--confirm", min=1, help="Best ladders replayed on fresh seeds."),
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """Why seats differ: paired runs with each cause of seat advantage switched off (flat
    starting ATP, no grey flasks, the marker holder may not retake Laureates, rotating turn
    order, all together), then a search for the starting-ATP ladder that brings every seat
    within the band, its best ladders confirmed on fresh seeds."""
    from simcell.tools.seats import run_seats

    folder = out or Path(f"seats-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_seats, config, folder, plays, games=games, seed=seed, search=search,
                    trials=trials, screen_games=screen_games, confirm=confirm)
    typer.echo(f"seats: {written / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def calibrate(
    config: Path = typer.Argument(..., help="Run config to calibrate."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: calibrate-CONFIG)."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per run, field and "
                                     "player count (default: the config's)."),
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
    from simcell.tools.calibrate import run_calibrate

    folder = out or Path(f"calibrate-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_calibrate, config, folder, plays, games=games, seed=seed)
    typer.echo(f"calibration: {written / 'report.html'} (and calibration.json)")


@app.command()
def probe(
    config: Path = typer.Argument(..., help="Run config whose first field's policy probes."),
    cards: str | None = typer.Option(None, "--cards", help="Cards to probe, comma-separated "
                                     "(default: every card a player completes)."),
    favour: float = typer.Option(3.0, "--favour", min=1.0, help="How many times its worth the "
                                 "probed card is to the probing player."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: probe-CONFIG)."),
    calibration: Path | None = typer.Option(None, "--calibration", help="A simcell calibrate "
                                            "folder: state the gains in ATP too."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per run (default: "
                                     "the config's, at most 100,000; one run per card and player "
                                     "count, and a baseline)."),
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
    from simcell.tools.probe import run_probe

    folder = out or Path(f"probe-{config.stem}")
    names = [c.strip() for c in cards.split(",") if c.strip()] if cards else None
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_probe, config, folder, plays, cards=names, games=games, seed=seed,
                    favour=favour, calibration=calibration)
    typer.echo(f"probe: {written / 'report.html'} (and report.md, tables/*.csv)")


@app.command()
def exploit(
    config: Path = typer.Argument(..., help="Run config whose first field's policy is deviated from."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: exploit-CONFIG)."),
    games: int | None = typer.Option(None, "--games", "-n", min=1, help="Games per run (default: "
                                     "the config's, at most 20,000; one run per deviation and "
                                     "player count, and a baseline)."),
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
    from simcell.tools.exploit import run_exploit

    folder = out or Path(f"exploit-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_exploit, config, folder, plays, games=games, seed=seed,
                    holdout_games=holdout_games)
    typer.echo(f"exploit: {written / 'report.html'} (and exploit.json, tables/*.csv)")
    from simcell.reports.exploit import exploit_sentences

    for line in exploit_sentences(written):
        typer.echo(line)


@app.command()
def fit(
    config: Path = typer.Argument(..., help="Run config whose first field's policy is fitted."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: fit-CONFIG)."),
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
    from simcell.reports.fit import FITTED_FILE, fit_sentences
    from simcell.runner.match import MatchPool
    from simcell.tools.fit import run_fit

    folder = out or Path(f"fit-{config.stem}")
    plays = _plays(players=players, workers=workers, dask=None, force=False, quiet=quiet)
    with MatchPool(workers) as pool:
        plays = dataclasses.replace(plays, margins=pool.margins)
        written = _tool(run_fit, config, folder, plays, seed=seed, budget_minutes=budget_minutes,
                        rounds=rounds, trials=trials, deals=deals, holdout_deals=holdout_deals, band=band)
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
    games: int | None = typer.Option(None, "--games", "-n", min=100, help="Games per field "
                                     "(default 2,000)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: ladder-CONFIG)."),
    seed: int | None = _SEED,
    players: list[int] | None = _PLAYERS,
    workers: int | None = _WORKERS,
    dask: str | None = _DASK,
    force: bool = _FORCE,
    quiet: bool = _QUIET,
) -> None:
    """How strong each bot is: at each player count, every pairing (one policy among copies of
    another, every seat in turn) and mixed pools of distinct policies on the same deals; each
    policy's Plackett–Luce strength from the finishing orders with bootstrap intervals, the head
    to head table, and which adjacent rungs separate."""
    from simcell.tools.skill import run_ladder

    folder = out or Path(f"ladder-{config.stem}")
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
            return
    chosen = [x.strip() for x in policies.split(",") if x.strip()] if policies else None
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_ladder, config, folder, plays, policies=chosen, params=params, games=games, seed=seed)
    typer.echo(f"ladder: {written / 'report.html'} (and ladder.json, tables/*.csv)")
    from simcell.reports.skill import ladder_sentences

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
    games: int | None = typer.Option(None, "--games", "-n", min=1000, help="Games of the holdout "
                                     "comparison (default: the config's)."),
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
    rungs: str | None = typer.Option(None, "--rungs", help="Further fields every run plays beside the "
                                     "config's, comma-separated heuristic rungs (planner, fitted, an "
                                     "archetype): each card steered by its worst field (default: [tune] rungs)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder (default: tune-CONFIG)."),
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
    from simcell.config.tune import tune_space
    from simcell.tools.tune import run_tune

    folder = out or Path(f"tune-{config.stem}")

    def split(text):
        return [x.strip() for x in text.split(",") if x.strip()] if text else None

    space = _tool(tune_space, config, split(cards), split(fields), range_, screen_games, rounds, games,
                  split(board), board_trials, budget_games, budget_minutes, split(rules), types,
                  split(rungs))
    plays = _plays(players=players, workers=workers, dask=dask, force=force, quiet=quiet)
    written = _tool(run_tune, config, folder, plays, space, seed=seed)
    typer.echo(f"tune: {written / 'report.html'} (tuned-cards.toml, tuned.toml; the holdout "
               f"comparison in {written / 'compare'})")
