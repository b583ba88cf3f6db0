"""Cytosis as an OpenSpiel game (`pyspiel`), over the referee's rules, with explicit chance nodes.

OpenSpiel's algorithms clone states and ask a chance node for its outcomes, so this game does not
run the referee's generator (`referee.game_steps`), which can be neither copied nor stopped inside
a shuffle. It steps the same referee functions in the same order, and a step that shuffles
(the deal, the returns' shuffle, Phase 2's reshuffle) runs on a copy: where a shuffle's order is
not yet known, the step is abandoned and the game becomes a chance node that draws the shuffled
ids one at a time, uniformly among those left; the step then runs again with the order known.
tests/test_openspiel.py plays kernel games through it, the kernel's orders drawn at its chance
nodes, and gets the kernel's records.

Players' actions are the PettingZoo environment's action indices (`actions.ActionTable`); chance
outcomes are card, event, goal or epigenetic ids. A turn with one legal action is played at once.
Returns are win shares at the end. Observations are `observation.observe`'s vector; the
information state is a digest of everything the player has observed so far, in order.
"""

from __future__ import annotations

import copy
import hashlib
import random
from pathlib import Path

import numpy as np
import pyspiel

from simcell.config.model import GameDefinition
from simcell.vocabulary import MAX_CARDS, MAX_PLAYERS, MIN_PLAYERS
from simcell.referee import GameMeta, GameState, apply, describe_action, legal_actions
from simcell.referee.rounds import phase_two, record_round_hp, start_round
from simcell.referee.scoring import score_game, winners
from simcell.referee.setup import deal, give_starting_atp, give_starting_hp, resolve_kept_cards, shuffle_returns
from simcell.referee.state import SETUP_COMBO, SETUP_RETURN, new_game_state
from simcell.env.actions import ActionTable
from simcell.env.cytosis import game_of
from simcell.env.observation import ObservationLayout, observe

SHORT_NAME = "python_cytosis"

# Where the loop stands when no decision is pending (the order of referee.play.game_steps).
DEAL, RETURNS, COMBOS, ROUNDS, OVER = range(5)


class NeedChance(Exception):
    """A shuffle whose order is not yet drawn."""

    def __init__(self, purpose: int, index: int, ids: list[int]) -> None:
        super().__init__(purpose, index)
        self.key = (purpose, index)
        self.ids = ids


def game_type(players: int = 5, config: str = "") -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Cytosis (simcell)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": players, "config": config},
    )


class CytosisGame(pyspiel.Game):
    """Parameters: players (2–5) and config (a run config's path; empty: the shipped game)."""

    def __init__(self, params: dict | None = None, game: GameDefinition | None = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", 5))
        config = str(params.get("config", ""))
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Cytosis is played by {MIN_PLAYERS} to {MAX_PLAYERS} players")
        self.definition = game or game_of(Path(config) if config else None)
        self.players = players
        self.actions = ActionTable(self.definition, players)
        self.layout = ObservationLayout(self.definition, players)
        board = self.definition.board
        rounds = self.definition.rounds(players)
        turns = board.flasks(players) + self.definition.rules.grey_per_player + 1
        max_length = 2 * players + rounds * players * turns + MAX_CARDS * (6 + rounds)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.actions),
            max_chance_outcomes=MAX_CARDS,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=max_length,
        )
        super().__init__(game_type(players, config), info, {"players": players, "config": config})

    def new_initial_state(self) -> CytosisState:
        return CytosisState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> CytosisObserver:
        return CytosisObserver(self, iig_obs_type, params)


class Table:
    """The referee's state, copied without its game definition (which never changes): OpenSpiel
    clones a state by deep-copying its attributes."""

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict) -> Table:
        return Table(copy_table(self.state))


def copy_table(state: GameState) -> GameState:
    return copy.deepcopy(state, {id(state.game): state.game, id(state.cards): state.cards})


class CytosisState(pyspiel.State):
    def __init__(self, game: CytosisGame) -> None:
        super().__init__(game)
        self.board = Table(new_game_state(game.definition, game.players, GameMeta()))
        self.stage = DEAL
        self.orders: dict[tuple[int, int], list[int]] = {}  # shuffles drawn: (purpose, index) -> order
        self.drawing: tuple[tuple[int, int], list[int]] | None = None  # the shuffle being drawn
        self.drawn: list[int] = []
        self.legal: list[int] = []
        self.seen = [""] * game.players  # each player's observations so far, as a digest chain
        self._play_on()

    @property
    def table(self) -> GameState:
        return self.board.state

    @table.setter
    def table(self, state: GameState) -> None:
        self.board.state = state

    @property
    def definition(self) -> GameDefinition:
        return self.table.game

    @property
    def actions(self) -> ActionTable:
        return self.get_game().actions

    @property
    def layout(self) -> ObservationLayout:
        return self.get_game().layout

    # -- OpenSpiel's questions -------------------------------------------------------------
    def current_player(self) -> int:
        if self.stage == OVER:
            return pyspiel.PlayerId.TERMINAL
        if self.drawing is not None:
            return pyspiel.PlayerId.CHANCE
        return int(self.table.to_move)

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.actions.index(code) for code in self.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.drawing is not None
        left = [i for i in self.drawing[1] if i not in self.drawn]
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        if self.drawing is not None:
            self.drawn.append(int(action))
            key, ids = self.drawing
            left = [i for i in ids if i not in self.drawn]
            if len(left) > 1:
                return
            self.orders[key] = self.drawn + left
            self.drawing, self.drawn = None, []
        else:
            apply(self.table, self.actions.code(int(action)), check=False)
        self._play_on()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance: id {action}"
        return describe_action(self.definition, self.actions.code(action), self.table.goals_in_play)

    def is_terminal(self) -> bool:
        return self.stage == OVER

    def returns(self) -> list[float]:
        if self.stage != OVER:
            return [0.0] * self.table.players
        won = winners(self.table)
        return [1.0 / len(won) if s in won else 0.0 for s in range(self.table.players)]

    def information_state_string(self, player: int | None = None) -> str:
        return self.seen[self.current_player() if player is None else player]

    def resample_from_infostate(self, player_id: int, probability_sampler=None) -> CytosisState:
        """A state `player_id` cannot tell from this one, its hidden parts drawn again: the
        rivals' hidden cards (their hands less the cards they bought) and the deck dealt anew from
        all of them, the event deck and the set-aside events, and at 2 players which
        Detoxification cards were removed. Used by OpenSpiel's information-set MCTS."""
        if probability_sampler is None:
            rng = random.Random()
        else:
            rng = random.Random(int(probability_sampler() * 2**53))
        out = self.clone()
        t = out.table
        rivals = [p for p in t.seats if p.seat != player_id]
        hidden = {p.seat: sorted(p.hand - set(p.bought)) for p in rivals}
        pool = list(t.deck) + [c for cards in hidden.values() for c in cards]
        if t.detox_removed:
            detox = [c for c in pool if t.cards[c].type == "detox"] + list(t.detox_removed)
            rng.shuffle(detox)
            removed = detox[: len(t.detox_removed)]
            pool = [c for c in pool if t.cards[c].type != "detox"] + detox[len(removed):]
            t.detox_removed = removed
        rng.shuffle(pool)
        for p in rivals:
            n = len(hidden[p.seat])
            p.hand = (p.hand - set(hidden[p.seat])) | set(pool[:n])
            if p.returned is None:
                p.dealt = sorted(p.hand)
            pool = pool[n:]
        t.deck = pool
        events = list(t.event_deck) + list(t.events_set_aside)
        rng.shuffle(events)
        t.event_deck, t.events_set_aside = events[: len(t.event_deck)], events[len(t.event_deck):]
        return out

    def __str__(self) -> str:
        t = self.table
        hp = " ".join(f"{p.hp}" for p in t.seats)
        return f"round {t.round}/{t.rounds} {t.phase} to move {t.to_move}; HP {hp}"

    # -- the game loop ---------------------------------------------------------------------
    def _shuffle(self, purpose: int, index: int, ids: list[int]) -> list[int]:
        if len(ids) <= 1:
            return list(ids)
        order = self.orders.get((purpose, index))
        if order is None:
            raise NeedChance(purpose, index, list(ids))
        return list(order)

    def _chance_step(self, step, fresh: bool = False) -> bool:
        """Run a step that shuffles; False (and a chance node) if an order is not yet drawn. The
        step runs on a copy (`fresh`: on the empty table it starts from) so that an abandoned
        step leaves nothing behind."""
        t = self.table
        trial = new_game_state(t.game, t.players, t.meta) if fresh else copy_table(t)
        try:
            step(trial, self._shuffle)
        except NeedChance as need:
            self.drawing = (need.key, need.ids)
            return False
        self.table = trial
        return True

    def _play_on(self) -> None:
        """Play on to the next choice, chance node or the end; a player observes each choice and
        the end."""
        chance = not self._advance()
        self.table.log.clear()  # the human game log: OpenSpiel copies states often, nothing reads it
        if not chance:
            self._observe_all()

    def _advance(self) -> bool:
        """Play automatic turns and chance-free steps until a choice or the end (True), or a
        chance node (False), in referee.play.game_steps' order."""
        while True:
            t = self.table
            if t.to_move is not None:
                self.legal = legal_actions(t)
                if len(self.legal) > 1:
                    return True
                apply(t, self.legal[0], automatic=True, check=False)
                continue
            self.legal = []
            if self.stage == DEAL:
                if not self._chance_step(deal, fresh=True):
                    return False
                t = self.table
                t.phase, t.to_move, self.stage = SETUP_RETURN, 0, RETURNS
            elif self.stage == RETURNS:
                if not self._chance_step(shuffle_returns):
                    return False
                t = self.table
                give_starting_atp(t)
                give_starting_hp(t)
                t.phase, t.to_move, self.stage = SETUP_COMBO, 0, COMBOS
            elif self.stage == COMBOS:
                resolve_kept_cards(t)
                start_round(t, 1)
                self.stage = ROUNDS
            elif self.stage == ROUNDS:
                if t.round < t.rounds:
                    if not self._chance_step(phase_two):
                        return False
                    t = self.table
                    record_round_hp(t)
                    start_round(t, t.round + 1)
                else:
                    record_round_hp(t)
                    score_game(t)
                    self.stage = OVER
                    return True

    def _observe_all(self) -> None:
        """Add what every player now sees to its information state."""
        for seat, digest in enumerate(self.seen):
            seen = observe(self.table, seat, self.layout).tobytes()
            self.seen[seat] = hashlib.sha256(digest.encode() + seen).hexdigest()

    def records_state(self) -> GameState:
        """The referee's state (the scored game once terminal; `referee.records.build_result`)."""
        return self.table


class CytosisObserver:
    """OpenSpiel's observer: the seat's observation vector (`observation.observe`)."""

    def __init__(self, game: CytosisGame, iig_obs_type, params) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.layout = game.layout
        self.tensor = np.zeros(game.layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CytosisState, player: int) -> None:
        self.tensor[:] = observe(state.table, player, self.layout)

    def string_from(self, state: CytosisState, player: int) -> str:
        return " ".join(str(x) for x in observe(state.table, player, self.layout))


def register() -> None:
    """Register the game with pyspiel as `python_cytosis` (pyspiel.load_game("python_cytosis",
    {"players": 3}))."""
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(game_type(), CytosisGame)


register()
