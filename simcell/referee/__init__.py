"""The referee: a plain-Python, readable implementation of docs/rules.md that replays a game's trace,
checks every action, and recomputes all state and records (kernel-contract.md).

Public API:
    replay(game, players, trace, meta) -> RefereeResult
    format_log(game, players, result) -> str
    play_random_game(game, players, rng, meta) -> list[int]
    game_steps(game, players, meta, shuffle): the game loop as a generator of decisions
    legal_actions(state) -> list[int];  apply(state, code)
"""

from simcell.referee.actions import describe_action
from simcell.referee.errors import RefereeError
from simcell.referee.legal import legal_actions
from simcell.referee.log import format_log
from simcell.referee.play import Table, game_steps, play_game
from simcell.referee.records import RefereeResult, record_sizes
from simcell.referee.replay import replay, replay_game
from simcell.referee.resolve import apply
from simcell.referee.selfplay import play_random_game
from simcell.referee.state import GameMeta, GameState, new_game_state

__all__ = [
    "GameMeta",
    "GameState",
    "RefereeError",
    "RefereeResult",
    "Table",
    "apply",
    "describe_action",
    "format_log",
    "game_steps",
    "legal_actions",
    "new_game_state",
    "play_game",
    "play_random_game",
    "record_sizes",
    "replay",
    "replay_game",
]
