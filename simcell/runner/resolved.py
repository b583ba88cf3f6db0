"""The fully resolved config of a run: every value that decides its records, and its hash.

A run directory can only be resumed by the same resolved config: same game (every card, event,
goal and rule value), player counts, games, seed, fields with every policy parameter (defaults
included) and user-policy source, blocks, duplicate mode, simcell code and record schema.
File paths, workers and the backend are not part of it: they do not change a record.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from simcell import __version__
from simcell.config.load import PolicyField, RunConfig
from simcell.policies.registry import is_user_policy, param_values
from simcell.runner.plan import Segment
from simcell.vocabulary import RECORD_SCHEMA_VERSION


def user_policy_source(field: PolicyField, base: Path) -> tuple[str, str] | None:
    """(file name, source text) of the field's user policy, if it has one."""
    for name in field.policies:
        if is_user_policy(name):
            file = Path(name.split(":", 1)[0])
            path = file if file.is_absolute() else base / file
            return path.name, path.read_text(encoding="utf-8")
    return None


def _params(field: PolicyField, players: int | None = None) -> dict[str, dict[str, float]]:
    given = field.params_for(players)
    out: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(field.policies):
        if is_user_policy(name):
            out[name] = dict(sorted(given.get(name, {}).items()))
            continue
        out[name] = param_values(name, given.get(name, {}), players)
    return out


def _params_by_players(field: PolicyField, counts: list[int]) -> dict[str, dict[str, dict[str, float]]]:
    """The parameters that differ from `params` at a player count (a built-in policy's defaults
    may depend on the count), per count that has any."""
    every = _params(field)
    out = {}
    for p in counts:
        at = _params(field, p)
        diff = {name: {k: v for k, v in values.items() if every[name].get(k) != v}
                for name, values in at.items()}
        diff = {name: d for name, d in diff.items() if d}
        if diff:
            out[str(p)] = diff
    return out


def _field(field: PolicyField, base: Path, counts: list[int]) -> dict:
    out: dict = {"name": field.name}
    if field.policy is not None:
        out["policy"] = field.policy
    elif field.seats is not None:
        out["seats"] = list(field.seats)
    else:
        out["pool"] = list(field.pool or ())
        out["rotation"] = field.rotation
    out["params"] = _params(field)
    # the policies that see the hidden cards (the oracle): the report labels what they played
    sees = [name for name, values in out["params"].items() if values.get("sees_all", 0.0) > 0]
    if sees:
        out["sees_hidden"] = sees
    if field.fitted:  # the files whose worths it plays (each count's are in params_by_players)
        out["fitted"] = {name: Path(path).name for name, path in field.fitted}
    by_players = _params_by_players(field, counts)
    if by_players:
        out["params_by_players"] = by_players
    src = user_policy_source(field, base)
    if src is not None:
        out["user_policy_sha256"] = hashlib.sha256(src[1].encode()).hexdigest()
    return out


def resolved_config(rc: RunConfig, segments: list[Segment]) -> dict:
    """The resolved config as plain JSON data (see the module docstring)."""
    from simcell.kernel.jit import CODE_HASH

    base = rc.source.parent
    resolved = {
        "simcell_version": __version__,
        "code_hash": CODE_HASH,
        "record_schema_version": RECORD_SCHEMA_VERSION,
        "seed": rc.seed,
        "duplicate": rc.duplicate,
        "players": sorted({s.players for s in segments}),
        "segments": [
            {"players": s.players, "field": s.field_index, "field_name": s.field.name,
             "games": s.games, "rotations": s.rotations, "blocks": s.blocks}
            for s in segments
        ],
        "fields": [_field(f, base, sorted({s.players for s in segments})) for f in rc.fields],
        "report": {"blocks": rc.report.blocks, "bands": dict(rc.report.bands),
                   "default_bands": list(rc.report.default_bands),
                   "rungs": list(rc.report.rungs), "rung_games": rc.report.rung_games,
                   "search_rung_games": rc.report.search_rung_games,
                   "laureates_games": rc.report.laureates_games}
                  | ({"calibration": rc.report.calibration,
                      "seat_band_pp": {str(p): v for p, v in rc.report.seat_band_pp}}
                     if rc.report.seat_band_pp else {})
                  | ({"exploit": rc.report.exploit} if rc.report.exploit else {}),
        "game": {"content_hash": rc.game.content_hash, "definition": dataclasses.asdict(rc.game)},
    }
    return json.loads(json.dumps(resolved))  # as it reads back from resolved.json


def resolved_hash(resolved: dict) -> str:
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    """Where two resolved configs differ, as dotted keys (at most a few lines)."""
    out: list[str] = []
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            if old.get(k) != new.get(k):
                out += differences(old.get(k), new.get(k), f"{prefix}{k}.")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            if a != b:
                out += differences(a, b, f"{prefix}{i}.")
    else:
        short = lambda v: (json.dumps(v)[:60] + "...") if len(json.dumps(v)) > 60 else json.dumps(v)  # noqa: E731
        out.append(f"{prefix.rstrip('.')}: {short(old)} in the run directory, {short(new)} now")
    return out
