"""Replaying a kernel trace: every shuffle is checked against what the referee's state says is
being shuffled, every decision's legal list against the referee's own, then the game's records
are recomputed from scratch (vocabulary.py TRACE format, kernel-contract.md)."""

from __future__ import annotations

from collections.abc import Sequence

from simcell.config.model import GameDefinition
from simcell.vocabulary import (
    CHANCE_PURPOSES,
    TRACE_DECISION,
    TRACE_END,
    TRACE_SHUFFLE,
)
from simcell.referee.actions import describe_action
from simcell.referee.errors import RefereeError
from simcell.referee.play import play_game
from simcell.referee.records import RefereeResult, build_result
from simcell.referee.state import GameMeta, GameState

TAG_NAMES = {TRACE_SHUFFLE: "shuffle", TRACE_DECISION: "decision", TRACE_END: "end"}


def replay(
    game: GameDefinition, players: int, trace: Sequence[int], meta: GameMeta
) -> RefereeResult:
    """Check a whole trace against the rules and recompute the game's records.

    Raises RefereeError at the first disagreement.
    """
    return build_result(replay_game(game, players, trace, meta))


def replay_game(
    game: GameDefinition, players: int, trace: Sequence[int], meta: GameMeta
) -> GameState:
    """As `replay`, returning the referee's final state instead of the records."""
    reader = TraceReader(game, [int(x) for x in trace], meta)
    state = play_game(game, players, meta, reader)
    reader.expect_end(state)
    return state


class TraceReader:
    """A `play.Table` that reads chance outcomes and decisions from a trace, checking each."""

    def __init__(self, game: GameDefinition, trace: list[int], meta: GameMeta) -> None:
        self.game = game
        self.trace = trace
        self.meta = meta
        self.pos = 0
        self.decisions = 0  # decisions read so far (setup and automatic ones included)
        self.state: GameState | None = None

    # -- reading --------------------------------------------------------------------------
    def _fail(self, where: str, message: str) -> RefereeError:
        return RefereeError(f"game {self.meta.game}, {where}: {message}")

    def _take(self, where: str) -> int:
        if self.pos >= len(self.trace):
            raise self._fail(where, f"the trace ends early (at position {self.pos})")
        value = self.trace[self.pos]
        self.pos += 1
        return value

    def _take_tag(self, want: int, where: str) -> None:
        at = self.pos
        tag = self._take(where)
        if tag != want:
            raise self._fail(
                where,
                f"expected a {TAG_NAMES[want]} entry at trace position {at}, found "
                f"{TAG_NAMES.get(tag, f'tag {tag}')}",
            )

    # -- Table ----------------------------------------------------------------------------
    def shuffle(self, purpose: int, index: int, ids: list[int]) -> list[int]:
        where = f"shuffle {CHANCE_PURPOSES[purpose]} {index} (position {self.pos})"
        self._take_tag(TRACE_SHUFFLE, where)
        got_purpose, got_index, n = self._take(where), self._take(where), self._take(where)
        if got_purpose != purpose or got_index != index:
            name = CHANCE_PURPOSES[got_purpose] if 0 <= got_purpose < len(CHANCE_PURPOSES) else "?"
            raise self._fail(
                where,
                f"the trace shuffles {name} (purpose {got_purpose}) index {got_index}; the referee "
                f"expects {CHANCE_PURPOSES[purpose]} (purpose {purpose}) index {index}",
            )
        order = [self._take(where) for _ in range(n)]
        if len(set(order)) != len(order) or set(order) != set(ids):
            missing = sorted(set(ids) - set(order))
            extra = sorted(set(order) - set(ids))
            repeated = sorted({i for i in order if order.count(i) > 1})
            raise self._fail(
                where,
                f"the shuffled ids differ from what is being shuffled ({len(ids)} ids): "
                f"missing {missing}, extra {extra}, repeated {repeated}",
            )
        return order

    def decide(self, state: GameState, legal: list[int]) -> int:
        self.state = state
        self.decisions += 1
        seat = state.to_move
        where = f"decision {self.decisions} (round {state.round}, {state.phase}, seat {seat})"
        self._take_tag(TRACE_DECISION, where)
        got_seat, automatic, n = self._take(where), self._take(where), self._take(where)
        listed = [self._take(where) for _ in range(n)]
        chosen = self._take(where)
        if got_seat != seat:
            raise self._fail(where, f"the trace has seat {got_seat} to move; the referee has {seat}")
        if listed != legal:
            raise self._fail(where, self._legal_difference(state, legal, listed))
        if automatic != (1 if len(legal) == 1 else 0):
            raise self._fail(
                where,
                f"automatic flag {automatic} but {len(legal)} legal action(s); it must be 1 "
                "exactly when one action is legal",
            )
        if chosen not in legal:
            raise self._fail(
                where,
                f"the chosen action {chosen} ({self._text(state, chosen)}) is not legal",
            )
        return chosen

    def expect_end(self, state: GameState) -> None:
        where = f"end of game (round {state.round})"
        self._take_tag(TRACE_END, where)
        if self.pos != len(self.trace):
            raise self._fail(where, f"{len(self.trace) - self.pos} values follow TRACE_END")

    # -- messages -------------------------------------------------------------------------
    def _text(self, state: GameState, code: int) -> str:
        return describe_action(self.game, code, state.goals_in_play)

    def _legal_difference(self, state: GameState, legal: list[int], listed: list[int]) -> str:
        missing = sorted(set(legal) - set(listed))
        extra = sorted(set(listed) - set(legal))
        parts = ["the legal actions differ"]
        if missing:
            parts.append(
                "missing from the trace (legal for the referee): "
                + "; ".join(f"{c} = {self._text(state, c)}" for c in missing)
            )
        if extra:
            parts.append(
                "extra in the trace (not legal for the referee): "
                + "; ".join(f"{c} = {self._text(state, c)}" for c in extra)
            )
        if not missing and not extra:
            parts.append("same actions but not in ascending order or repeated")
        return "; ".join(parts)
