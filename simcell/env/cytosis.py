"""Cytosis as a PettingZoo AEC environment: the referee's own game loop (`referee.game_steps`),
dealt by the kernel's chance streams, asked for each decision in turn.

One agent per seat, `player_0` ... `player_{N-1}`. An action is an index into the
`ActionTable`; the observation is {"observation": the seat's view (`observation.observe`),
"action_mask": 1 for each legal action}. A turn with one legal action is played at once, as the
rules say (docs/rules.md §2): no agent is asked. Rewards come at the end: each seat's win share
(1 for a sole winner, 1/k for k tied winners, else 0), with its HP and rank in `infos`.

Seeds: `reset(seed=s)` plays deal 0 of master seed s, the kernel's game 0 of a run with seed s;
each `reset()` without a seed plays the next deal; `options={"deal": d}` picks deal d."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from simcell.config.load import load_default_game, load_run_config
from simcell.config.model import GameDefinition
from simcell.vocabulary import MAX_PLAYERS, MIN_PLAYERS
from simcell.referee import GameMeta, GameState, describe_action, game_steps
from simcell.referee.records import RefereeResult, build_result
from simcell.referee.scoring import rank, winners
from simcell.env.actions import ActionTable
from simcell.env.chance import KeyedShuffles
from simcell.env.observation import ObservationLayout, observe

# Bounds of every observation entry: HP, stocks and card ids stay well inside them.
OBS_LOW, OBS_HIGH = -(2**15), 2**15 - 1


def game_of(config: GameDefinition | str | Path | None) -> GameDefinition:
    """The game a config names: the shipped game (None), a run config's game (a TOML path), or a
    GameDefinition as it is."""
    if config is None:
        return load_default_game()
    if isinstance(config, GameDefinition):
        return config
    return load_run_config(Path(config)).game


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped environment)
    metadata = {"name": "cytosis_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        players: int = 5,
        config: GameDefinition | str | Path | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Cytosis is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' is offered")
        self.game = game_of(config)
        self.players = players
        self.render_mode = render_mode
        self.actions = ActionTable(self.game, players)
        self.layout = ObservationLayout(self.game, players)
        self.possible_agents = [f"player_{s}" for s in range(players)]
        n = len(self.actions)
        self._action_space = spaces.Discrete(n)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(OBS_LOW, OBS_HIGH, (self.layout.size,), np.int64),
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
        })
        self.master_seed: int | None = None
        self.deal = 0
        self.table: GameState | None = None  # the referee's state of the game in play
        self._legal: list[int] = []

    # -- spaces ----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # -- the game --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.master_seed, self.deal = int(seed), 0
        elif self.master_seed is None:
            self.master_seed, self.deal = secrets.randbits(63), 0
        else:
            self.deal += 1
        if options and "deal" in options:
            self.deal = int(options["deal"])
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        meta = GameMeta(game=self.deal, deal=self.deal)
        self._steps = game_steps(self.game, self.players, meta,
                                 KeyedShuffles(self.master_seed, self.players, self.deal))
        self.table = None
        self._play_on(next(self._steps))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        code = self.actions.code(int(action))
        if code not in self._legal:
            assert self.table is not None
            text = describe_action(self.game, code, self.table.goals_in_play)
            raise ValueError(f"{agent} may not {text} (action {int(action)}) now")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._play_on(self._send(code))
        self._accumulate_rewards()

    def _send(self, code: int) -> tuple[GameState, list[int]] | None:
        try:
            return self._steps.send(code)
        except StopIteration as end:
            self.table = end.value
            return None

    def _play_on(self, pending: tuple[GameState, list[int]] | None) -> None:
        """Play automatic turns until a seat has a choice; at the end, score the game."""
        while pending is not None:
            self.table, legal = pending
            if len(legal) > 1:
                self._legal = legal
                self.agent_selection = self.possible_agents[self.table.to_move]
                return
            pending = self._send(legal[0])
        self._legal = []
        self._finish()

    def _finish(self) -> None:
        state = self.table
        assert state is not None
        won = winners(state)
        for seat, agent in enumerate(self.possible_agents):
            share = 1.0 / len(won) if seat in won else 0.0
            self.rewards[agent] = share
            self.terminations[agent] = True
            self.infos[agent] = {"hp": state.seats[seat].hp, "win_share": share,
                                 "rank": rank(state, seat)}
        if self.agent_selection not in self.possible_agents:
            self.agent_selection = self.possible_agents[0]

    def records(self) -> RefereeResult:
        """The finished game's records, field for field the kernel's (docs/runs.md)."""
        if self.table is None or self._legal or not all(self.terminations.values()):
            raise RuntimeError("the game is not over")
        return build_result(self.table)

    # -- what a seat sees ------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.table is not None
        seat = self.possible_agents.index(agent)
        mask = np.zeros(len(self.actions), np.int8)
        if agent == self.agent_selection:
            for code in self._legal:
                mask[self.actions.index(code)] = 1
        return {"observation": observe(self.table, seat, self.layout), "action_mask": mask}

    def legal_codes(self) -> list[int]:
        """The action codes the seat to move may choose (ascending), as the referee lists them."""
        return list(self._legal)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        state = self.table
        assert state is not None
        lines = [f"round {state.round}/{state.rounds}, {state.phase}, to move: {state.to_move}"]
        for p in state.seats:
            lines.append(f"  seat {p.seat}: HP {p.hp}, stock {p.stock}, hand {len(p.hand)}")
        if self._legal:
            lines.append("  legal: " + "; ".join(
                f"{self.actions.index(c)} {describe_action(self.game, c, state.goals_in_play)}"
                for c in self._legal))
        return "\n".join(lines)

    def close(self) -> None:
        steps = getattr(self, "_steps", None)
        if steps is not None:
            steps.close()


def env(players: int = 5, config: GameDefinition | str | Path | None = None,
        render_mode: str | None = None) -> AECEnv:
    """The environment with PettingZoo's usual checks: actions inside the action space, reset
    before step, no step after the game without None."""
    out: AECEnv = raw_env(players=players, config=config, render_mode=render_mode)
    out = wrappers.AssertOutOfBoundsWrapper(out)
    return wrappers.OrderEnforcingWrapper(out)
