"""What the designer tools have measured about the levers a report proposes, read from their
folders (each tool's plan file and tables/*.csv, as its own report wrote them): `simcell seats`
(each cause of seat advantage switched off alone, the confirmed starting-ATP schedules), `simcell sweep` (the
slope of a swept card's contrast or a swept type's gap per step, and its zero crossing),
`simcell calibrate` (what one ATP is worth in win share), `simcell probe` (what going for a
card wins), `simcell ladder` (where the field stands) and `simcell exploit` (how much one player
gains by deviating). The run report's summary puts these sizes beside its changes; a lever
nothing has measured keeps the command that would. Each folder is read by its plan file's name
(the vocabulary), never through the tool's own code."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from simcell.reports.data import ReportError, RunData
from simcell.reports.estimates import interval_text
from simcell.reports.intervals import OUT_OF_BAND
from simcell.vocabulary import (
    CALIBRATE_FILE,
    CARD_TYPE_LABELS,
    CARD_TYPE_PLURALS,
    EXPLOIT_FILE,
    LADDER_FILE,
    PROBE_FILE,
    RESOLVED_FILE,
    RUN_FILE,
    SEATS_FILE,
    SWEEP_FILE,
    TABLES_FOLDER,
)

TOOL_FILES = {"seats": SEATS_FILE, "sweep": SWEEP_FILE, "calibrate": CALIBRATE_FILE, "probe": PROBE_FILE,
              "ladder": LADDER_FILE}


@dataclass
class Tool:
    """One tool's folder: which tool, its plan and its tables."""

    folder: Path
    tool: str
    plan: dict
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)


@dataclass
class Measured:
    """Every tool folder found for a run, and those set aside (another game), with why."""

    tools: list[Tool] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def of(self, tool: str) -> list[Tool]:
        return [t for t in self.tools if t.tool == tool]


def _tool_of(folder: Path) -> str | None:
    return next((t for t, f in TOOL_FILES.items() if (folder / f).is_file()), None)


def _baseline_run(t: Tool) -> Path | None:
    """A run of the tool's config as it is (the game it measured), where the tool keeps one."""
    rel = {"seats": lambda p: p["causes"][0]["run"], "calibrate": lambda p: p["baseline"],
           "probe": lambda p: p["segments"][0]["baseline"], "ladder": lambda p: p["runs"][0]["run"]}.get(t.tool)
    try:
        return t.folder / rel(t.plan) if rel else None
    except (KeyError, IndexError, TypeError):
        return None


def find(run: RunData, named: list[Path] = ()) -> Measured:
    """The tool folders named, and any inside the run directory. A named folder that is not a
    tool's is an error; one that measured another game (its own run of the config differs in
    content hash) is set aside and said so."""
    out = Measured()
    inside = [d for d in sorted(Path(run.root).iterdir()) if d.is_dir() and _tool_of(d)]
    for folder in [Path(p) for p in named] + inside:
        tool = _tool_of(folder)
        if tool is None:
            raise ReportError(f"{folder} is not a simcell seats, sweep, calibrate, probe or ladder folder "
                              f"(none of {', '.join(TOOL_FILES.values())} in it)")
        if any(t.folder.resolve() == folder.resolve() for t in out.tools):
            continue
        t = Tool(folder, tool, json.loads((folder / TOOL_FILES[tool]).read_text()))
        base = _baseline_run(t)
        if base is not None and (base / RESOLVED_FILE).is_file():
            theirs = json.loads((base / RESOLVED_FILE).read_text())["game"]["content_hash"]
            if theirs != run.resolved["game"]["content_hash"]:
                out.skipped.append(f"{folder} measured another game (content hash {theirs[:10]}); not used")
                continue
        for csv in sorted((folder / TABLES_FOLDER).glob("*.csv")) if (folder / TABLES_FOLDER).is_dir() else []:
            t.tables[csv.stem] = pd.read_csv(csv)
        out.tools.append(t)
    return out


def _span(v: float, lo: float, hi: float, digits: int = 1, unit: str = " pp") -> str:
    return interval_text(v, lo, hi, digits, True, unit)


def seat_levers(m: Measured, players: int) -> list[str]:
    """Each seat cause switched off alone, its change of the first seat's win share at this
    player count (largest first), and the best confirmed starting-ATP schedule's worst seat."""
    out = []
    for t in m.of("seats"):
        c = t.tables.get("seat_causes", pd.DataFrame())
        part = c[(c["players"] == players) & (c["seat"] == 0) & (c["variant"] != "as configured")] if len(c) else c
        for r in part.reindex(part["diff_pp"].abs().sort_values(ascending=False).index).itertuples() if len(part) else []:
            # where the seats then stand: a cause switched off can overshoot to another seat
            after = c[(c["players"] == players) & (c["variant"] == r.variant) & (c["field"] == r.field)]
            far = after.loc[(after["win_share_pp"] - 100 / players).abs().idxmax()]
            out.append(f"{r.variant}: the first seat {_span(r.diff_pp, r.diff_low, r.diff_high)}, then seat "
                       f"{int(far['seat'])} the furthest from the fair share ({far['win_share_pp'] - 100 / players:+.1f} pp)")
        schedules = t.tables.get("schedule_confirmed", pd.DataFrame())
        schedules = schedules[schedules["players"] == players] if len(schedules) else schedules
        if len(schedules):
            best = schedules.loc[schedules["distance_pp"].abs().idxmin()]
            out.append(f"the starting-ATP schedule {best['schedule']}: worst seat ({best['worst seat']}) "
                       f"{_span(best['distance_pp'], best['low'], best['high'])} from the fair share, {best['verdict']}")
        if out:
            out[-1] += f" (`simcell seats`, {t.folder.name})"
    return out


def atp_worth(m: Measured, players: int, field_name: str) -> tuple[float, str] | None:
    """Win share (pp) one starting ATP is worth at this count and field, and the folder."""
    for t in m.of("calibrate"):
        c = t.tables.get("calibration", pd.DataFrame())
        row = c[(c["players"] == players) & (c["field"] == field_name)] if len(c) else c
        if len(row) and np.isfinite(row["win_pp_per_atp"].iloc[0]) and row["win_pp_per_atp"].iloc[0] != 0:
            return float(row["win_pp_per_atp"].iloc[0]), t.folder.name
    return None


def _swept(t: Tool) -> tuple[str, str, str] | None:
    """("card" or "type", name, field) of a one-setting sweep."""
    if len(t.plan.get("settings", [])) != 1:
        return None
    key = t.plan["settings"][0]["key"]
    parts = [q or b for q, b in re.findall(r'"([^"]*)"|([^.]+)', key)]
    parts = parts[1:] if parts and parts[0] == "overrides" else parts
    if len(parts) == 3 and parts[0] in ("cards", "types"):
        return ("card" if parts[0] == "cards" else "type", parts[1], parts[2])
    return None


def swept_slope(m: Measured, kind: str, names: set[str], players: int) -> str | None:
    """A sweep of this card (kind "card") or card type (kind "type", by any of `names`): its
    contrast's or gap's slope per step at this count, and where it crosses zero."""
    for t in m.of("sweep"):
        what = _swept(t)
        if what is None or what[0] != kind or what[1].lower() not in {n.lower() for n in names}:
            continue
        s = t.tables.get("sweep_summary", pd.DataFrame())
        s = s[s["players"] == players] if len(s) else s
        figure = "against its type (pp)" if kind == "card" else "against the average card (pp)"
        slope = s[s["figure"].astype(str).str.endswith(figure)] if len(s) else s
        if not len(slope):
            continue
        r = slope.iloc[0]
        q = stats.t.ppf(0.975, max(int(r["df"]), 1))
        text = (f"{_span(r['slope_per_step'], r['slope_per_step'] - q * r['slope_se'], r['slope_per_step'] + q * r['slope_se'], 2)} "
                f"per {what[2]} step")
        cross = s[s["figure"].astype(str).str.contains("crosses 0")]
        hold = s[s["figure"].astype(str).str.contains("holdout")]
        if len(cross) and np.isfinite(cross["crossing"].iloc[0]):
            c = cross.iloc[0]
            qc = stats.t.ppf(0.975, max(int(c["df"]), 1))
            text += (f", crossing zero at {what[2]} {c['crossing']:.2f} ({c['crossing'] - qc * c['crossing_se']:.2f} "
                     f"to {c['crossing'] + qc * c['crossing_se']:.2f})")
            if len(hold):
                text += (", confirmed on fresh seeds" if np.isfinite(hold["crossing"].iloc[0])
                         else ", not confirmed on fresh seeds")
        return text + f" (`simcell sweep`, {t.folder.name})"
    return None


def ladder_sentences(m: Measured, fields: list[tuple[int, str, str]]) -> list[str]:
    """For each (player count, field, policy) played by one policy: its place on the bot ladder
    of the folder given (`simcell ladder`), never guessed; a policy not on it is said so."""
    out = []
    for t in m.of("ladder"):
        r = t.tables.get("ladder_ratings", pd.DataFrame())
        date = t.plan.get("date", "an undated run")
        parts = []
        for p, field_name, policy in fields:
            row = r[(r["players"] == p) & (r["policy"] == policy)] if len(r) else r
            n = int((r["players"] == p).sum()) if len(r) else 0
            if not len(row):
                parts.append(f"{policy} ({field_name}) is not on it at {p} players")
                continue
            x = row.iloc[0]
            who = policy if policy == field_name else f"{policy} (the field {field_name})"
            if x["strength_low"] == x["strength_high"] == x["strength"] == 0:
                strength = "the ladder's reference, strength 0 by definition"
            else:
                strength = (f"strength {_span(x['strength'], x['strength_low'], x['strength_high'], 2, unit='')} "
                            "against the planner")
            parts.append(f"at {p} players {who} is the {_ordinal(int(x['rank']))} strongest of {n} ({strength})")
        if parts:
            out.append(f"On the ladder of {date} (`simcell ladder`, {t.folder.name}): " + "; ".join(parts) + ".")
    return out


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def probe_gain(m: Measured, card: str, players: int) -> str | None:
    """What a player going for the card wins at this count (the field's valuation of it)."""
    for t in m.of("probe"):
        p = t.tables.get("probe", pd.DataFrame())
        row = p[(p["players"] == players) & (p["card"] == card)] if len(p) else p
        if len(row):
            r = row.iloc[0]
            return (f"a player going for it wins {_span(r['win_diff'], r['win_low'], r['win_high'], 2)} "
                    f"(`simcell probe`, {t.folder.name})")
    return None


def exploit_sentences(folder: Path, run_meta: dict | None = None) -> list[str]:
    """One sentence per player count, from exploit.json (none before its holdout is written);
    with the run's run.json (`run_meta`), a warning when the exploit's runs played another game
    or other bot code than the run's."""
    path = Path(folder) / EXPLOIT_FILE
    if not path.exists():  # a run report names a folder since moved: say so, never guess
        return [f"The exploitability named in the run's config is no longer at {path}."]
    plan = json.loads(path.read_text())
    rows = plan.get("exploitability", [])
    if not rows:
        return []
    parts = [f"{r['players']} players {r['gain_pp']:+.1f} pp ({r['low']:+.1f} to {r['high']:+.1f}, "
             f"{r['deviation']})" for r in rows]
    text = (f"Exploitability of the {plan['policy']} field (the most win share one player gains by "
            f"deviating, over {len(plan['family'])} deviations, the best played again on "
            f"{rows[0]['games']:,} fresh games): " + "; ".join(parts) + ".")
    return [text + _other_game(Path(folder), plan, run_meta)]


def _other_game(folder: Path, plan: dict, run_meta: dict | None) -> str:
    """A clause saying that the exploit measured another game or other bots than the run's, or
    nothing (the same, or not known: the exploit's baseline run is not in its folder)."""
    segments = plan.get("segments", [])
    base = folder / segments[0]["baseline"] / RUN_FILE if segments else None
    if run_meta is None or base is None or not base.exists():
        return ""
    theirs = json.loads(base.read_text())
    other = [what for key, what in (("content_hash", "another card set or rules"),
                                    ("code_hash", "other bot or rules code"))
             if theirs.get(key) != run_meta.get(key)]
    if not other:
        return ""
    return (f" It was measured on {' and '.join(other)} than this run's, so it describes that "
            "game, not this one.")


def changes(tables: dict[str, pd.DataFrame], config: str, measured: Measured | None = None,
            commands: bool = True) -> list[str]:
    """The (at most four) changes most likely to help, largest first: the seats' levers, each card
    type out of band, the cards furthest out within their type; each with its direction, and its
    size where a tool folder has measured it (`measured`), else the command that would
    (`commands`; without them, the change in words alone: the front sheet's)."""
    m = measured or Measured()
    out: list[tuple[float, str]] = []
    seats = tables.get("seat_advantage", pd.DataFrame())
    two = any(t.get("field", pd.Series(dtype=object)).nunique() > 1 for t in tables.values() if isinstance(t, pd.DataFrame))

    def at(row) -> str:
        return f"{int(row['players'])} players" + (f", {row['field']}" if two and "field" in row else "")

    if len(seats) and (seats["verdict"] == OUT_OF_BAND).any():
        worst = seats.loc[seats["above_fair_pp"].abs().idxmax()]
        p = int(worst["players"])
        worth = atp_worth(m, p, worst["field"])
        size = (f", about {worst['above_fair_pp'] / worth[0]:+.1f} starting ATP (`simcell calibrate`, {worth[1]})"
                if worth else "")
        levers = seat_levers(m, p)
        how = ("measured: " + "; ".join(levers) + "." if levers else
               "`rules.laureates_once_each = true`, `rules.laureates_holder_may_take = false`, "
               "`rules.turn_order = \"rotate\"`, a "
               "flatter `rules.starting_atp` or fewer `overrides.board.goals.first_marker_hp`; "
               f"`simcell seats {config}` measures each and searches a starting-ATP schedule."
               if commands else
               "let every player reach the Laureates (once each until all have been), let the First "
               "Player Marker move (bar its holder from retaking Laureates, or rotate the turn "
               "order), flatten the starting ATP, or make the first goal marker worth less.")
        out.append((abs(worst["above_fair_pp"]) + 100,  # the seats first: every game is played from one
                    f"**The seats** (seat {int(worst['seat'])} {worst['above_fair_pp']:+.1f} pp from the "
                    f"fair share at {at(worst)}{size}): {how}"))
    types = tables.get("card_types", pd.DataFrame())
    for t, part in types[types["verdict"] == OUT_OF_BAND].groupby("type", sort=False) if len(types) else []:
        r = part.loc[part["gap_pp"].abs().idxmax()]
        up = r["gap_pp"] > 0
        slope = swept_slope(m, "type", {t, CARD_TYPE_LABELS.get(t, t), CARD_TYPE_PLURALS.get(t, t)}, int(r["players"]))
        out.append((abs(r["gap_pp"]), f"**{CARD_TYPE_PLURALS.get(t, t)}** ({r['gap_pp']:+.1f} pp against the "
                    f"average card at {at(r)}): make them "
                    f"{'dearer or worth less' if up else 'cheaper or worth more'}"
                    + (f": measured: their gap moves {slope}." if slope else
                       f": `simcell sweep {config} --set 'types.{t}.atp={'+0,+1,+2' if up else '-1,+0'}'`."
                       if commands else ".")))
    cards = tables.get("card_strength", pd.DataFrame())
    if len(cards):
        flagged = cards[cards["flagged"]]
        for _, r in flagged.reindex(flagged["contrast_pp"].abs().sort_values(ascending=False).index).head(3).iterrows():
            up = r["contrast_pp"] > 0
            name = r["name"]
            slope = swept_slope(m, "card", {name}, int(r["players"]))
            gain = probe_gain(m, name, int(r["players"]))
            out.append((abs(r["contrast_pp"]) / 2, f"**{name}** ({r['contrast_pp']:+.1f} pp against its "
                        f"type at {at(r)}): "
                        f"{'dearer or fewer HP' if up else 'cheaper or more HP'}"
                        + (f": measured: its contrast moves {slope}" if slope else
                           f": `simcell sweep {config} --set 'cards.\"{name}\".atp={'+0,+1,+2' if up else '-1,+0'}'`"
                           if commands else "")
                        + (f"; {gain}" if gain else "") + "."))
    out.sort(key=lambda x: -x[0])
    return [text for _, text in out[:4]]
