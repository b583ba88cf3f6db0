"""Loading a run config: the TOML files in, one immutable `RunConfig` out.

The run config names players, policy fields, games, seed, rule variants, the data files to use
(default: the shipped ones in simcell/data), overrides of single values and report settings.
Everything is validated here, at the boundary; the kernel trusts what it is given.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from simcell.config.checks import check_game
from simcell.config.data import (
    BOARD_RULE_KEYS,
    RULE_DOTTED,
    override_board_rules,
    parse_board,
    parse_cards,
    parse_epigenetic,
    parse_events,
    parse_goals,
    parse_rules,
)
from simcell.config.errors import allowed, nearest
from simcell.config.fitted import read_fitted
from simcell.config.rungs import RUNGS
from simcell.config.model import RULE_KEYS, GameDefinition
from simcell.config.overrides import apply_overrides
from simcell.config.tables import Table, read_toml
from simcell.vocabulary import CALIBRATION_FILE, EXPLOIT_FILE, MAX_PLAYERS, MIN_PLAYERS
from simcell.policies.registry import BUILTIN_POLICIES, LABEL_MARK, builtin, builtin_name, is_user_policy

DATA_KINDS = ("board", "rules", "cards", "events", "goals", "epigenetic")
ROTATIONS = ("cyclic", "all")
# the tables of a run config and the keys of [run] and of a [[field]]
# ([sweep] and [tune] are read by `simcell sweep` and `simcell tune`: config/sweep.py, tune.py)
TOP_KEYS = ("run", "field", "rules", "data", "overrides", "report", "dask", "sweep", "tune")
RUN_KEYS = ("players", "games", "seed", "duplicate")
FIELD_KEYS = ("name", "policy", "seats", "pool", "rotation", "params", "fitted")
FIELD_MODES = ("policy", "seats", "pool")
MAX_SEED = 2**63 - 1


def shipped_data_path(kind: str) -> Path:
    """Path of a shipped data file (simcell/data/KIND.toml)."""
    return Path(str(resources.files("simcell.data").joinpath(f"{kind}.toml")))


@dataclass(frozen=True)
class PolicyField:
    """Who plays: one policy in every seat, a policy per seat, or a pool rotated over seats."""

    name: str
    policy: str | None = None  # homogeneous field
    seats: tuple[str, ...] | None = None  # a policy for each seat
    pool: tuple[str, ...] | None = None  # rotated through the seats
    rotation: str = "cyclic"
    params: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = ()
    # a fitted parameter file's worths: (players, policy name, worths), under `params`
    params_at: tuple[tuple[int, str, tuple[tuple[str, float], ...]], ...] = ()
    fitted: tuple[tuple[str, str], ...] = ()  # policy name -> the fitted file it plays

    def params_for(self, players: int | None = None) -> dict[str, dict[str, float]]:
        """Each policy's given parameters at a player count: a fitted file's worths at that
        count, with the field's own `params` over them."""
        out = {name: dict(values) for name, values in self.params}
        for p, name, values in self.params_at:
            if p == players:
                out[name] = dict(values) | out.get(name, {})
        return out

    @property
    def policies(self) -> tuple[str, ...]:
        if self.policy is not None:
            return (self.policy,)
        return self.seats if self.seats is not None else self.pool  # type: ignore[return-value]

    def describe(self) -> str:
        if self.policy is not None:
            return f"{self.policy} in every seat"
        if self.seats is not None:
            return "seats: " + ", ".join(self.seats)
        return f"pool rotated ({self.rotation}): " + ", ".join(self.pool or ())


@dataclass(frozen=True)
class ReportSettings:
    blocks: int
    bands: tuple[tuple[str, float], ...]
    default_bands: tuple[str, ...]  # names of bands left at their default
    # with the seat band in ATP: the calibration folder, and the band in pp at each player count
    calibration: str | None = None
    seat_band_pp: tuple[tuple[int, float], ...] = ()
    exploit: str | None = None  # a folder of simcell exploit, quoted in the summary
    rungs: tuple[str, ...] = ()  # the fields the headline verdicts are checked under (config/rungs.py)
    rung_games: int = 0  # games of a heuristic rung per player count (at most the run's)
    search_rung_games: int = 0  # games of a search rung per player count
    laureates_games: int = 0  # games of the Laureates deviation per player count (0: none)


@dataclass(frozen=True)
class RunConfig:
    """A fully resolved run: the game definition plus what to run and how to report it."""

    source: Path
    players: tuple[int, ...]
    games: int
    seed: int
    fields: tuple[PolicyField, ...]
    game: GameDefinition
    data_files: tuple[tuple[str, str], ...]  # (kind, path) actually read
    overrides: tuple[str, ...]  # one line per overridden value
    report: ReportSettings
    duplicate: bool = False  # play each deal under every rotation of a field (runner)
    dask: str | None = None  # scheduler address of a Dask cluster to run on ([dask] scheduler)


# -- game definition -------------------------------------------------------------------------
def load_game(
    paths: dict[str, Path] | None = None,
    rules_table: Table | None = None,
    overrides_table: Table | None = None,
    players: tuple[int, ...] = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
) -> tuple[GameDefinition, tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Read, merge and validate the data files into a GameDefinition.

    `paths` replaces shipped data files by kind; `rules_table` is a run config's [rules];
    `overrides_table` its [overrides]. Returns the game, the files read and the overrides applied.
    """
    paths = dict(paths or {})
    files = {kind: paths.get(kind, shipped_data_path(kind)) for kind in DATA_KINDS}
    raw = {kind: read_toml(files[kind]) for kind in DATA_KINDS}
    applied: list[str] = []
    origins: dict[str, dict] = {kind: {} for kind in DATA_KINDS}
    if overrides_table is not None:
        raw, origins, applied = apply_overrides(raw, overrides_table)

    def table(kind: str) -> Table:
        return Table(raw[kind], files[kind], "", origins.get(kind))

    rules_raw = dict(raw["rules"])
    rule_origins = dict(origins.get("rules", {}))
    board = parse_board(table("board"))
    if rules_table is not None:
        for key in rules_table.keys():
            if key in RULE_KEYS:
                rules_raw[key] = rules_table.data[key]
                rule_origins[key] = (rules_table.file, rules_table.keypath(key))
            elif key in RULE_DOTTED:
                _take_dotted_rules(rules_table, key, rules_raw, rule_origins)
            elif key not in BOARD_RULE_KEYS:
                raise rules_table.unknown(key, RULE_KEYS + BOARD_RULE_KEYS + tuple(RULE_DOTTED))
        board = override_board_rules(board, rules_table)
        for key in BOARD_RULE_KEYS:
            if rules_table.has(key):
                applied.append(f"rule {key}: {getattr(board, key)}")
    rules = parse_rules(Table(rules_raw, files["rules"], "", rule_origins))
    cards = parse_cards(table("cards"))
    events = parse_events(table("events"), board)
    goals = parse_goals(table("goals"), board)
    epigenetic = parse_epigenetic(table("epigenetic"), board)
    game = GameDefinition(board, cards, events, goals, epigenetic, rules)
    check_game(game, players, files, origins, rule_origins)
    read = tuple((kind, str(files[kind])) for kind in DATA_KINDS)
    return game, read, tuple(applied)


def _take_dotted_rules(rules_table: Table, key: str, rules_raw: dict, origins: dict) -> None:
    """[rules] supply.limited / laureates.holder_may_take (docs/rules.md's names) as the flat keys
    supply_limited / laureates_holder_may_take; one switch may not be set both ways."""
    sub = rules_table.table(key)
    for name in sub.keys():
        flat = f"{key}_{name}"
        if name not in RULE_DOTTED[key]:
            options = tuple(f"{key}.{n}" for n in RULE_DOTTED[key])
            dotted = f"{key}.{name}"
            raise sub.error(name, f"unknown field {dotted!r}{nearest(dotted, options)}; "
                                  f"allowed here: {allowed(options)}")
        if rules_table.has(flat):
            raise sub.error(name, f"set twice: as {key}.{name} and as {flat}; keep one")
        rules_raw[flat] = sub.data[name]
        origins[flat] = (sub.file, sub.keypath(name))


@functools.cache
def load_default_game() -> GameDefinition:
    """The shipped game with its default rules (read once per process)."""
    return load_game()[0]


# -- run config -------------------------------------------------------------------------------
def load_run_config(path: Path | str, players: tuple[int, ...] | None = None) -> RunConfig:
    """Load and fully resolve a run config file. Raises ConfigError on any bad input.
    `players` replaces the config's player counts (checked like them)."""
    path = Path(path)
    data = read_toml(path)
    if players is not None:
        data = dict(data)
        data["run"] = dict(data.get("run", {}), players=list(players))
    top = Table(data, path).expect(TOP_KEYS)
    base = path.parent

    run = top.table("run").expect(RUN_KEYS)
    players_raw = run.take("players", (int, list))
    if isinstance(players_raw, int):
        players_list = [players_raw]
    else:
        players_list = run.take_list("players", int, min_length=1)
    for p in players_list:
        if not MIN_PLAYERS <= p <= MAX_PLAYERS:
            raise run.error(
                "players", f"{p} players is outside {MIN_PLAYERS}-{MAX_PLAYERS}; "
                f"allowed: {allowed(range(MIN_PLAYERS, MAX_PLAYERS + 1))}"
            )
    if len(set(players_list)) != len(players_list):
        raise run.error("players", f"a player count is listed twice: {players_list}")
    players = tuple(sorted(players_list))
    games = run.take("games", int, minimum=1)
    seed = run.take("seed", int, minimum=0, maximum=MAX_SEED)
    duplicate = run.take("duplicate", bool, False)
    run.finish()

    data = top.table("data", {})
    paths: dict[str, Path] = {}
    for kind in DATA_KINDS:
        if data.has(kind):
            p = Path(data.take(kind, str))
            p = p if p.is_absolute() else base / p
            if not p.is_file():
                raise data.error(kind, f"file not found: {p}")
            paths[kind] = p
    data.finish(DATA_KINDS)

    rules_table = top.table("rules", {})
    overrides_table = top.table("overrides", {})
    game, files, applied = load_game(paths, rules_table, overrides_table, players)

    fields = tuple(_parse_field(ft, players, base, game) for ft in top.tables("field", []))
    if not fields:
        raise top.error("field", "missing; a run needs at least one [[field]] of policies")
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        raise top.error("field", f"two fields share a name: {names}")

    report = _parse_report(top.table("report", {}), base, players)
    dask_t = top.table("dask", {})
    scheduler = dask_t.take("scheduler", str, "") or None
    dask_t.finish()
    top.finish(TOP_KEYS)  # a plain run ignores [sweep] and [tune]
    return RunConfig(
        source=path,
        players=players,
        games=games,
        seed=seed,
        fields=fields,
        game=game,
        data_files=files,
        overrides=applied,
        report=report,
        duplicate=duplicate,
        dask=scheduler,
    )


def _check_policy(t: Table, key: str, name: str, base: Path) -> None:
    if is_user_policy(name):
        file = Path(name.split(":", 1)[0])
        file = file if file.is_absolute() else base / file
        if not file.is_file():
            raise t.error(key, f"user policy file not found: {file}")
        return
    base_name = builtin_name(name)
    if base_name not in BUILTIN_POLICIES:
        options = sorted(BUILTIN_POLICIES)
        raise t.error(
            key,
            f"unknown policy {base_name!r}{nearest(base_name, options)}; allowed: {allowed(options)} "
            f"(optionally labelled, 'planner{LABEL_MARK}probe') or 'file.py:function'",
        )


def _parse_field(t: Table, players: tuple[int, ...], base: Path, game: GameDefinition) -> PolicyField:
    t.expect(FIELD_KEYS)
    modes = [k for k in FIELD_MODES if t.has(k)]
    if not modes:  # none given: a misspelling of one is the error to report
        for mode in FIELD_MODES:
            if (misspelt := t.misspelt(mode)) is not None:
                raise misspelt
    if len(modes) != 1:
        raise t.error(
            None, "a field needs exactly one of 'policy' (every seat), 'seats' (one per seat) "
            f"or 'pool' (rotated); found {len(modes)}"
        )
    mode = modes[0]
    kwargs: dict[str, Any] = {}
    if mode == "policy":
        name = t.take("policy", str)
        _check_policy(t, "policy", name, base)
        kwargs["policy"] = name
    else:
        names = t.take_list(mode, str, min_length=1)
        for n in names:
            _check_policy(t, mode, n, base)
        if mode == "seats":
            for p in players:
                if len(names) != p:
                    raise t.error(
                        "seats", f"lists {len(names)} policies but the run plays {p} players; "
                        "use 'pool' to rotate policies over several player counts"
                    )
        kwargs[mode] = tuple(names)
        if mode == "pool":
            kwargs["rotation"] = t.take("rotation", str, "cyclic", choices=ROTATIONS)
    used = {kwargs["policy"]} if mode == "policy" else set(kwargs[mode])
    params_table = t.table("params", {})
    params = []
    for pname in params_table.keys():
        if pname not in used:
            raise params_table.error(
                pname, f"parameters for a policy this field does not use; used: {allowed(sorted(used))}"
            )
        values = params_table.table(pname)
        if is_user_policy(pname):
            items = {k: values.take(k, float) for k in values.keys()}
        else:
            defaults = builtin(pname).defaults
            items = {k: values.take(k, float) for k in values.keys() if k in defaults and k != FAVOUR_CARD}
            if FAVOUR_CARD in defaults and values.has(FAVOUR_CARD):
                items[FAVOUR_CARD] = _favoured_card(values, game)
            values.finish(defaults)
        params.append((pname, tuple(sorted(items.items()))))
    params_table.finish(params_table.keys())
    params_at, fitted = _fitted(t.table("fitted", {}), used, players, base)
    name = t.take("name", str, kwargs.get("policy") or mode)
    t.finish(FIELD_KEYS)
    return PolicyField(name=name, params=tuple(params), params_at=params_at, fitted=fitted, **kwargs)


def _fitted(t: Table, used: set[str], players: tuple[int, ...], base: Path):
    """A field's `fitted = { POLICY = "FILE" }`: each named policy plays the file's worths at
    the run's player count (simcell fit writes the file)."""
    params_at, files = [], []
    for pname in t.keys():
        if pname not in used:
            raise t.error(pname, f"a fitted file for a policy this field does not use; used: "
                          f"{allowed(sorted(used))}")
        file = Path(t.take(pname, str))
        path = file if file.is_absolute() else base / file
        if not path.is_file():
            raise t.error(pname, f"fitted file not found: {path}")
        fit = read_fitted(path)
        if fit.policy != builtin_name(pname):
            raise t.error(pname, f"{file} holds worths of {fit.policy!r}, not of {builtin_name(pname)!r}")
        missing = [p for p in players if p not in fit.params]
        if missing:
            raise t.error(pname, f"{file} is fitted at {', '.join(map(str, sorted(fit.params)))} "
                          f"players; this run also plays {', '.join(map(str, missing))}")
        params_at += [(p, pname, tuple(sorted(fit.params[p].items()))) for p in players]
        files.append((pname, str(path)))
    return tuple(params_at), tuple(files)


FAVOUR_CARD = "favour_card"


def _favoured_card(values: Table, game: GameDefinition) -> float:
    """The `favour_card` parameter: a card's name in the config, its id + 1 in the kernel row."""
    name = values.take(FAVOUR_CARD, str)
    ids = {c.name: c.id for c in game.cards}
    if name not in ids:
        raise values.error(FAVOUR_CARD, f"no card named {name!r} in the game{nearest(name, sorted(ids))}")
    return float(ids[name] + 1)


SEAT_ATP = "seat_win_share_atp"


def _seat_band_pp(t: Table, atp: float, base: Path, players: tuple[int, ...]) -> tuple[str, tuple]:
    """The seat band set in ATP, in pp at each player count: atp x the calibration's win share
    per ATP (the mean over its fields at that player count)."""
    if not t.has("calibration"):
        raise t.error("bands", f"{SEAT_ATP} = {atp:g} sets the seat band in ATP: give the measured "
                      "ATP equivalent with calibration = \"DIR\" (a folder of simcell calibrate)")
    folder = Path(t.take("calibration", str))
    folder = folder if folder.is_absolute() else base / folder
    path = folder / CALIBRATION_FILE
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    except (OSError, ValueError, KeyError) as exc:
        raise t.error("calibration", f"cannot read {path}: {exc}; make it with simcell calibrate") from None
    out = []
    for p in players:
        per_atp = [float(r["win_pp_per_atp"]) for r in rows if r["players"] == p]
        if not per_atp:
            raise t.error("calibration", f"{path} has no figure for {p} players: calibrate with "
                          f"--players {p}")
        out.append((p, round(atp * sum(per_atp) / len(per_atp), 4)))
    return str(folder.resolve()), tuple(out)


def _parse_report(t: Table, base: Path, players: tuple[int, ...]) -> ReportSettings:
    defaults_path = shipped_data_path("report")
    defaults = Table(read_toml(defaults_path), defaults_path)
    default_blocks = defaults.take("blocks", int, minimum=1)
    default_bands_t = defaults.table("bands")
    default_bands = {k: default_bands_t.take(k, float, minimum=0) for k in default_bands_t.keys()}
    blocks = t.take("blocks", int, default_blocks, minimum=50)
    bands_t = t.table("bands", {})
    bands = dict(default_bands)
    for k in bands_t.keys():
        if k in default_bands:
            bands[k] = float(bands_t.take(k, float, minimum=0))
    bands_t.finish(default_bands)
    calibration, by_players = None, ()
    if bands.get(SEAT_ATP, 0.0) > 0:
        calibration, by_players = _seat_band_pp(t, bands[SEAT_ATP], base, players)
    elif t.has("calibration"):
        t.take("calibration", str)  # read (a run may name its calibration) but not needed
    exploit = _exploit_folder(t, base) if t.has("exploit") else None
    rungs = t.take_list("rungs", str, defaults.take_list("rungs", str), choices=RUNGS)
    if len(set(rungs)) != len(rungs):
        raise t.error("rungs", f"a rung is named twice: {', '.join(rungs)}")
    rung_games = t.take("rung_games", int, defaults.take("rung_games", int), minimum=1)
    search_games = t.take("search_rung_games", int, defaults.take("search_rung_games", int), minimum=1)
    laureates = t.take("laureates_games", int, defaults.take("laureates_games", int), minimum=0)
    t.finish(("blocks", "bands", "calibration", "exploit", "rungs", "rung_games", "search_rung_games",
              "laureates_games"))
    defaults.finish()
    left_default = tuple(k for k in default_bands if not bands_t.has(k))
    return ReportSettings(blocks=blocks, bands=tuple(bands.items()), default_bands=left_default,
                          calibration=calibration, seat_band_pp=by_players, exploit=exploit,
                          rungs=tuple(rungs), rung_games=rung_games, search_rung_games=search_games,
                          laureates_games=laureates)


def _exploit_folder(t: Table, base: Path) -> str:
    """[report] exploit: a folder simcell exploit wrote, with its exploitability measured."""
    folder = Path(t.take("exploit", str))
    folder = folder if folder.is_absolute() else base / folder
    path = folder / EXPLOIT_FILE
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["exploitability"]
    except (OSError, ValueError, KeyError) as exc:
        raise t.error("exploit", f"cannot read the exploitability in {path}: {exc}; measure it "
                      "with simcell exploit") from None
    if not rows:
        raise t.error("exploit", f"{path} has no exploitability yet: let simcell exploit finish")
    return str(folder.resolve())
