"""The one error the referee raises: a trace or an action that breaks the rules."""

from __future__ import annotations


class RefereeError(Exception):
    """A trace disagrees with the rules; the message names the game, decision and seat."""
