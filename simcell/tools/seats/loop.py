"""`simcell seats`: each cause of seat advantage switched off alone and all together, on the same
games as the config as it is; then a search for the starting-ATP schedule (ATP by seat) that
brings every seat within the band (tools/seats/search.py), screened on the config's seed at a
fraction of its games, its best schedules confirmed on fresh seeds (a holdout) at the full game count. seats.json lists the
runs; tools/seats/report.py reads them."""

from __future__ import annotations

import json
from pathlib import Path

from simcell.config.load import load_run_config
from simcell.config.variants import STARTING_ATP, base_config, write_variant
from simcell.tools.seats.causes import seat_causes
from simcell.reports.data import RunData
from simcell.vocabulary import SEATS_FILE
from simcell.tools.seats.report import build_seats
from simcell.reports.seat_table import worst_seat_pp
from simcell.tools import Plays, holdout_seed
from simcell.tools.seats.search import search_starting_atp


def run_seats(config: Path, folder: Path, plays: Plays, *, games: int | None = None,
              seed: int | None = None, search: bool = True, trials: int = 24,
              screen_games: int | None = None, confirm: int = 3) -> Path:
    rc = load_run_config(config)
    causes = seat_causes(config)
    base = base_config(config)
    shared = seed if seed is not None else rc.seed
    full = games or rc.games

    def play(name: str, assignments, where: str, n: int, at_seed: int) -> Path:
        return plays.into(write_variant(config, base, name, assignments, folder), folder / where / name,
                          n, at_seed)

    plan: dict = {"causes": []}
    for i, (name, assignments) in enumerate(causes):
        plays.say(f"cause {i + 1} of {len(causes)}: {name}")
        root = play(name.replace(" ", "-"), assignments, "causes", full, shared)
        plan["causes"].append({"name": name, "run": str(root.relative_to(folder))})
    if search:
        n_seats = max(plays.players or rc.players)
        start = list(rc.game.board.starting_atp)
        screen = screen_games or max(full // 10, 2000)

        def schedule_of(seats_atp):
            return list(seats_atp) + start[n_seats:]

        def name_of(seats_atp) -> str:
            return "atp=" + "-".join(map(str, seats_atp))

        def evaluate(seats_atp) -> float:
            root = play(name_of(seats_atp), [(STARTING_ATP, schedule_of(seats_atp))], "search", screen, shared)
            return worst_seat_pp(RunData(root))

        plays.say(f"searching {trials} starting-ATP schedules on {screen:,} games each")
        tried = search_starting_atp(evaluate, tuple(start[:n_seats]), trials, shared)
        fresh = holdout_seed(shared)
        confirmed = []
        for seats_atp, _ in tried[:confirm]:
            root = play(name_of(seats_atp), [(STARTING_ATP, schedule_of(seats_atp))], "confirm", full, fresh)
            confirmed.append({"schedule": schedule_of(seats_atp), "run": str(root.relative_to(folder))})
        plan["search"] = {"screen_games": screen, "confirm_games": full, "confirm_seed": fresh,
                          "trials": [{"schedule": schedule_of(t), "objective": v} for t, v in tried],
                          "confirmed": confirmed}
    (folder / SEATS_FILE).write_text(json.dumps(plan, indent=1))
    return build_seats(folder)
