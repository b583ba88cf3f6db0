"""Bad input gets one clear line on stderr naming the file, the key and what is allowed, and
exit status 2, never a traceback.

Each case builds a bad run config (and, where needed, an edited copy of a shipped data file) in
tmp_path, runs `simcell validate` and checks the status, that stderr is exactly one line, that
it starts with "error: FILE: KEY: " and that it holds the case's own message fragments.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.config.load import shipped_data_path

runner = CliRunner()

HEADER = """\
[run]
players = {players}
games = 10
seed = 1

[[field]]
policy = "random"
"""

Edit = Callable[[str], str]


class Whole(str):
    """A whole run config text, used as it is instead of being appended to HEADER."""


def custom(
    *,
    players: str = "3",
    games: str = "10",
    seed: str = "1",
    run_extra: str = "",
    field: str | None = 'policy = "random"',
    top: str = "",
) -> str:
    """A whole run config (for the cases that break the [run] table or the [[field]])."""
    text = f"{top}\n\n" if top else ""
    text += f"[run]\nplayers = {players}\ngames = {games}\nseed = {seed}\n{run_extra}\n"
    if field is not None:
        text += f"\n[[field]]\n{field}\n"
    return Whole(text)


# -- building bad input ----------------------------------------------------------------------
def sub(old: str, new: str) -> Edit:
    """Replace the first occurrence of `old` (which must be there) by `new`."""

    def edit(text: str) -> str:
        assert old in text, f"test setup: {old!r} not found in the shipped file"
        return text.replace(old, new, 1)

    return edit


def append(extra: str) -> Edit:
    return lambda text: text + "\n" + extra


def keep_first(array_key: str, n: int) -> Edit:
    """Keep the header and the first `n` [[array_key]] entries of a data file."""

    def edit(text: str) -> str:
        parts = text.split(f"[[{array_key}]]")
        assert len(parts) > n, "test setup: not enough entries to cut"
        return f"[[{array_key}]]".join(parts[: n + 1])

    return edit


def extra_cards(count: int, first_id: int) -> Edit:
    rows = "".join(
        f'\n[[card]]\nid = {first_id + i}\nname = "Extra Card {i}"\n'
        'type = "detox"\natp = 1\nhp = 1\n'
        for i in range(count)
    )
    return append(rows)


# Exact snippets of the shipped files that the cases edit.
INSULIN = 'name = "Insulin"\ntype = "protein_hormone"\natp = 1\nprotein = 3\n'  # card[11]
CALCITRIOL = 'name = "Calcitriol"\ntype = "steroid_hormone"\natp = 3\nlipid = 6\n'  # card[31]
AMYLASE = 'name = "Amylase"\ntype = "enzyme"\n'  # card[0]
# card[32]
GLYCOGEN = 'name = "Glycogen Granule"\ntype = "additional_resource"\ngain = { carb = 2 }'
# goal[1]
DETOX_GOAL = 'name = "Detoxification"\ncriterion = "most_completed"\ntype = "detox"\nhp = 8'


@dataclass
class Case:
    id: str
    config: str  # appended to HEADER, or a Whole run config
    file: str  # "run", "missing", or the data kind whose file is named
    key: str | None  # the key path the line must name right after the file
    fragments: tuple[str, ...]  # words of the message the line must hold
    data: dict[str, Edit] = field(default_factory=dict)  # edited copies of shipped data
    players: str = "3"
    marks: tuple = ()


def build(tmp_path: Path, case: Case) -> tuple[Path, str]:
    """Write the case's files; return the run config path and the file the error must name."""
    if isinstance(case.config, Whole):
        text = str(case.config)
    else:
        text = HEADER.format(players=case.players) + case.config
    if case.data:
        text += "\n[data]\n" + "".join(f'{kind} = "{kind}.toml"\n' for kind in case.data)
    for kind, edit in case.data.items():
        dest = tmp_path / f"{kind}.toml"
        shutil.copyfile(shipped_data_path(kind), dest)
        dest.write_text(edit(dest.read_text(encoding="utf-8")), encoding="utf-8")
    config = tmp_path / "run.toml"
    config.write_text(text, encoding="utf-8")
    if case.file == "run":
        named = str(config)
    elif case.file == "missing":
        named = str(tmp_path / "missing.toml")
    elif case.file in case.data:
        named = str(tmp_path / f"{case.file}.toml")
    else:
        named = str(shipped_data_path(case.file))
    return config, named


def validate(config: Path):
    return runner.invoke(app, ["validate", str(config)])


def assert_error(result, file: str, key: str | None, *fragments: str) -> str:
    """Exit 2, nothing on stdout, exactly one line on stderr naming file and key."""
    stderr = result.stderr
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    assert result.stdout == ""
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    line = stderr.rstrip("\n")
    prefix = f"error: {file}: " + (f"{key}: " if key else "")
    assert line.startswith(prefix), f"\n{line}\ndoes not start with\n{prefix}"
    message = line[len(prefix):]
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


# -- the cases -------------------------------------------------------------------------------
CASES = [
    # unknown keys (typos), with the nearest allowed key
    Case("typo-run-key", custom(run_extra='sed = 2'), "run", "run.sed",
         ("unknown field 'sed'", "did you mean 'seed'?", "allowed: 'duplicate', 'games', 'players', 'seed'")),
    Case("typo-top-table", "\n[rule]\nepigenetic = true\n", "run", "rule",
         ("unknown field 'rule'", "did you mean 'rules'?", "'overrides'")),
    Case("typo-report-key", "\n[report]\nblock = 100\n", "run", "report.block",
         ("unknown field 'block'", "did you mean 'blocks'?", "allowed: 'bands', 'blocks'")),
    Case("typo-report-band", "\n[report.bands]\nseat_win_share = 3.0\n", "run",
         "report.bands.seat_win_share",
         ("unknown field 'seat_win_share'", "did you mean 'seat_win_share_pp'?", "'hp_above_table'")),
    Case("typo-field-key", '\nrotaton = "all"\n', "run", "field[0].rotaton",
         ("unknown field 'rotaton'", "did you mean 'rotation'?", "'pool'")),
    Case("typo-rules-data-file", "", "rules", "max_batchh",
         ("unknown field 'max_batchh'", "did you mean 'max_batch'?", "'tie_rule'"),
         data={"rules": append("max_batchh = 3\n")}),
    Case("typo-board-data-file", "", "board", "components.grey_flask",
         ("unknown field 'grey_flask'", "did you mean 'grey_flasks'?"),
         data={"board": sub("grey_flasks = 2", "grey_flasks = 2\ngrey_flask = 2")}),
    Case("unknown-rule-with-suggestion", "\n[rules]\nmax_bach = 10\n", "run", "rules.max_bach",
         ("unknown field 'max_bach'", "did you mean 'max_batch'?", "'starting_atp'", "'budding_locations'")),
    Case("unknown-data-kind", '\n[data]\ncard = "cards.toml"\n', "run", "data.card",
         ("unknown field 'card'", "did you mean 'cards'?", "'epigenetic'")),
    Case("unknown-overrides-kind", '\n[overrides.card."Insulin"]\natp = 2\n', "run",
         "overrides.card", ("unknown field 'card'", "did you mean 'cards'?", "'board'")),
    # a misspelled key that a table requires is the unknown key, not the required one missing
    # (issue 70): the line names the misspelling, the row it is in and the key it stands for
    Case("misspelled-card-field", "", "cards", "card[11].protien",
         ("unknown field 'protien' in card 'Insulin'", "did you mean 'protein'?",
          "allowed: 'atp', 'golgi', 'hp', 'id', 'name', 'protein', 'type'"),
         data={"cards": sub(INSULIN, INSULIN.replace("protein = 3", "protien = 3"))}),
    Case("misspelled-card-type-key", "", "cards", "card[0].tpye",
         ("unknown field 'tpye' in card 'Amylase'", "did you mean 'type'?"),
         data={"cards": sub(AMYLASE, AMYLASE.replace("type =", "tpye ="))}),
    Case("misspelled-card-name-key", "", "cards", "card[0].nmae",
         ("unknown field 'nmae'", "did you mean 'name'?"),
         data={"cards": sub(AMYLASE, AMYLASE.replace("name =", "nmae ="))}),
    Case("misspelled-card-array", "", "cards", "cards",
         ("unknown field 'cards'", "did you mean 'card'?"),
         data={"cards": lambda text: text.replace("[[card]]", "[[cards]]")}),
    Case("misspelled-event-effect-key", "", "events", "event[0].effects[0].locaton",
         ("unknown field 'locaton' in event 'Respiration Boost'", "did you mean 'location'?"),
         data={"events": sub('location = "mitochondria"', 'locaton = "mitochondria"')}),
    Case("misspelled-event-effects-key", "", "events", "event[0].effect",
         ("unknown field 'effect' in event 'Respiration Boost'", "did you mean 'effects'?"),
         data={"events": sub("effects = [ { kind = \"location_bonus\", location = \"mitochondria\"",
                             "effect = [ { kind = \"location_bonus\", location = \"mitochondria\"")}),
    Case("misspelled-epigenetic-effect-kind-key", "", "epigenetic", "epigenetic[0].effects[0].knid",
         ("unknown field 'knid' in epigenetic 'Histone Acetylation'", "did you mean 'kind'?"),
         data={"epigenetic": sub('kind = "yield_bonus", location = "nucleus"',
                                 'knid = "yield_bonus", location = "nucleus"')}),
    Case("misspelled-goal-key", "", "goals", "goal[1].criteron",
         ("unknown field 'criteron' in goal 'Detoxification'", "did you mean 'criterion'?"),
         data={"goals": sub(DETOX_GOAL, DETOX_GOAL.replace("criterion =", "criteron ="))}),
    Case("misspelled-board-component", "", "board", "components.grey_flask",
         ("unknown field 'grey_flask'", "did you mean 'grey_flasks'?"),
         data={"board": sub("grey_flasks = 2", "grey_flask = 2")}),
    Case("misspelled-board-section", "", "board", "component",
         ("unknown field 'component'", "did you mean 'components'?"),
         data={"board": sub("[components]", "[component]")}),
    Case("misspelled-board-location-key", "", "board", "location[12].acton",
         ("unknown field 'acton' in location 'laureates'", "did you mean 'action'?"),
         data={"board": sub('action = "laureates"', 'acton = "laureates"')}),
    Case("misspelled-board-spot-key", "", "board", "location[2].spots[0].gian",
         ("unknown field 'gian' in location 'mitochondria'", "did you mean 'gain'?"),
         data={"board": sub("spots = [ { gain = { atp = 3 } }", "spots = [ { gian = { atp = 3 } }")}),
    Case("misspelled-rule-in-rules-file", "", "rules", "max_bach",
         ("unknown field 'max_bach'", "did you mean 'max_batch'?"),
         data={"rules": sub("max_batch = 12", "max_bach = 12")}),
    Case("misspelled-run-key", Whole(custom().replace("games =", "gmaes =")), "run", "run.gmaes",
         ("unknown field 'gmaes'", "did you mean 'games'?")),
    Case("misspelled-run-table", Whole(custom().replace("[run]", "[runn]")), "run", "runn",
         ("unknown field 'runn'", "did you mean 'run'?")),
    Case("misspelled-field-policy-key", custom(field='polcy = "random"'), "run", "field[0].polcy",
         ("unknown field 'polcy'", "did you mean 'policy'?")),
    Case("misspelled-rule-in-run-config", "\n[rules]\nmax_bach = 10\n", "run", "rules.max_bach",
         ("unknown field 'max_bach'", "did you mean 'max_batch'?")),
    Case("misspelled-report-key", "\n[report]\nblock = 100\n", "run", "report.block",
         ("unknown field 'block'", "did you mean 'blocks'?")),
    Case("misspelled-override-card-field", '\n[overrides.cards."Insulin"]\nprotien = 4\n', "run",
         "overrides.cards.Insulin.protien",
         ("unknown field 'protien' of card 'Insulin'", "did you mean 'protein'?")),
    Case("misspelled-override-type-field", '\n[overrides.types.enzyme]\ncrab = 1\n', "run",
         "overrides.types.enzyme.crab",
         ("unknown field 'crab' of Enzyme cards", "did you mean 'carb'?")),
    Case("misspelled-override-goal-field", '\n[overrides.goals."Detoxification"]\nhpp = 4\n', "run",
         "overrides.goals.Detoxification.hpp",
         ("unknown field 'hpp' of goal 'Detoxification'", "did you mean 'hp'?")),
    Case("misspelled-override-board-key", "\n[overrides.board.components]\ngrey_flask = 1\n",
         "run", "overrides.board.components.grey_flask",
         ("unknown field 'grey_flask' in board section 'components'", "did you mean 'grey_flasks'?")),
    Case("misspelled-override-spot-field",
         "\n[overrides.board.mitochondria.c]\ngian = { atp = 1 }\n", "run",
         "overrides.board.mitochondria.c.gian",
         ("unknown field 'gian' of spot mitochondria.c", "did you mean 'gain'?")),
    # wrong types
    Case("wrong-type-string-for-int", custom(games='"ten"'), "run", "run.games",
         ("must be an integer", "got string 'ten'")),
    Case("bool-for-int", custom(games="true"), "run", "run.games",
         ("must be an integer", "got boolean true")),
    Case("float-for-int-rule", "\n[rules]\nmax_batch = 12.5\n", "run", "rules.max_batch",
         ("must be an integer", "got float 12.5")),
    Case("int-for-bool-rule", "\n[rules]\nepigenetic = 1\n", "run", "rules.epigenetic",
         ("must be true or false", "got int 1")),
    Case("int-for-bool-dotted-rule", "\n[rules]\nsupply.limited = 1\n", "run",
         "rules.supply.limited", ("must be true or false", "got int 1")),
    Case("unknown-dotted-rule", "\n[rules]\nsupply.limitted = true\n", "run",
         "rules.supply.limitted", ("unknown field 'supply.limitted'", "did you mean 'supply.limited'?")),
    Case("dotted-and-flat-rule", "\n[rules]\nsupply_limited = true\nsupply.limited = true\n",
         "run", "rules.supply.limited", ("set twice", "supply_limited")),
    Case("bool-for-int-in-card-file", "", "cards", "card[0].hp",
         ("must be an integer", "got boolean true"),
         data={"cards": sub("carb = 0\nhp = 2", "carb = 0\nhp = true")}),
    Case("wrong-type-players", custom(players='"three"'), "run", "run.players",
         ("must be an integer or an array", "got string 'three'")),
    Case("wrong-type-data-path", "\n[data]\ncards = 3\n", "run", "data.cards",
         ("must be a string", "got int 3")),
    Case("wrong-type-field-not-table", custom(top='field = ["random"]', field=None), "run", "field",
         ("item 0 must be a table", "got string 'random'")),
    # negative or out-of-range values
    Case("negative-card-cost", "", "cards", "card[11].atp", ("must be at least 0", "got -1"),
         data={"cards": sub(INSULIN, INSULIN.replace("atp = 1", "atp = -1"))}),
    Case("negative-spot-cost", "", "board", "location[1].spots[0].cost.atp",
         ("must be at least 0", "got -1"),
         data={"board": sub("{ cost = { atp = 1 }", "{ cost = { atp = -1 }")}),
    Case("negative-slot-price-rule", "\n[rules]\nslot_prices = [0, 1, -2, 3]\n", "run",
         "rules.slot_prices", ("item 2 must be at least 0", "got -2")),
    Case("negative-seed", custom(seed='-5'), "run", "run.seed", ("must be at least 0", "got -5")),
    Case("zero-games", custom(games='0'), "run", "run.games", ("must be at least 1", "got 0")),
    Case("zero-max-batch", "\n[rules]\nmax_batch = 0\n", "run", "rules.max_batch",
         ("must be at least 1", "got 0")),
    # the kernel's stack vector of action values holds MAX_VALUED (65,536) entries: the default
    # board allows 57,882 at the largest max_batch, six budding locations per ER twice as many
    Case("too-many-legal-actions",
         "\n[rules]\nmax_batch = 4095\nbudding_locations = { rough_er = 6, smooth_er = 6 }\n",
         "run", "rules.max_batch",
         ("max_batch 4095 with this board allows up to", "legal actions in one",
          "the kernel holds at most 65,536", "lower max_batch")),
    Case("report-blocks-too-small", "\n[report]\nblocks = 10\n", "run", "report.blocks",
         ("must be at least 50", "got 10")),
    Case("card-id-above-63", "", "cards", "card[0].id", ("must be at most 63", "got 64"),
         data={"cards": sub("id = 0\n", "id = 64\n")}),
    # players outside 2-5
    Case("players-one", "", "run", "run.players",
         ("1 players is outside 2-5", "allowed: 2, 3, 4, 5"), players="1"),
    Case("players-six", "", "run", "run.players",
         ("6 players is outside 2-5", "allowed: 2, 3, 4, 5"), players="6"),
    Case("players-list-with-six", "", "run", "run.players",
         ("6 players is outside 2-5", "allowed: 2, 3, 4, 5"), players="[2, 6]"),
    Case("players-empty-list", "", "run", "run.players",
         ("needs at least 1 item(s)", "got 0"), players="[]"),
    Case("players-listed-twice", "", "run", "run.players",
         ("a player count is listed twice", "[3, 3]"), players="[3, 3]"),
    # overrides naming what does not exist
    Case("override-unknown-card", '\n[overrides.cards."Insulinn"]\natp = 2\n', "run",
         "overrides.cards.Insulinn", ("no card named 'Insulinn'", "did you mean 'Insulin'?")),
    Case("override-unknown-goal", '\n[overrides.goals."Detox"]\nhp = 2\n', "run",
         "overrides.goals.Detox", ("no goal named 'Detox'", "did you mean 'Detoxification'?")),
    Case("override-field-card-type-lacks", '\n[overrides.cards."Insulin"]\nlipid = 3\n', "run",
         "overrides.cards.Insulin.lipid",
         ("card 'Insulin' has no field 'lipid' to override",
          "allowed: 'atp', 'protein', 'golgi', 'hp'")),
    Case("override-board-unknown-location", "\n[overrides.board.mitochondrion]\nname = 'M'\n",
         "run", "overrides.board.mitochondrion",
         ("no board section or location 'mitochondrion'", "did you mean 'mitochondria'?",
          "'components'")),
    Case("override-board-section-unknown-key", "\n[overrides.board.components]\ngrey_flask = 1\n",
         "run", "overrides.board.components.grey_flask",
         ("unknown field 'grey_flask' in board section 'components'", "did you mean 'grey_flasks'?")),
    Case("override-board-unknown-spot", "\n[overrides.board.mitochondria.d]\ngain = { atp = 1 }\n",
         "run", "overrides.board.mitochondria.d",
         ("location 'mitochondria' has nothing named 'd' to override",
          "allowed: 'name', 'a', 'b', 'c'")),
    Case("override-board-spot-label-substring",
         "\n[overrides.board.mitochondria.ab]\ngain = { atp = 9 }\n",
         "run", "overrides.board.mitochondria.ab",
         ("location 'mitochondria' has nothing named 'ab' to override", "'a', 'b', 'c'")),
    Case("override-board-unknown-spot-field",
         "\n[overrides.board.mitochondria.c]\ngian = { atp = 1 }\n", "run",
         "overrides.board.mitochondria.c.gian",
         ("unknown field 'gian' of spot mitochondria.c", "did you mean 'gain'?", "allowed: 'cost', 'gain'")),
    Case("override-unknown-type", '\n[overrides.types.detoxes]\natp = "+1"\n', "run",
         "overrides.types.detoxes", ("no card type 'detoxes'", "detox (Detoxification)",
                                     "enzyme (Enzyme)")),
    Case("override-field-type-lacks", '\n[overrides.types.detox]\nprotein = 1\n', "run",
         "overrides.types.detox.protein", ("Detoxification cards have no field 'protein'",
                                           "allowed: 'atp', 'hp'")),
    Case("override-relative-not-a-number", '\n[overrides.cards."Insulin"]\ngolgi = "+1"\n', "run",
         "overrides.cards.Insulin.golgi", ("a relative value ('+1') needs a whole number",)),
    # overrides with bad values are reported against the run config and the override key
    Case("override-type-below-zero", '\n[overrides.types.Detoxification]\natp = "-1"\n', "run",
         "overrides.types.Detoxification.atp", ("must be at least 0", "got -1")),
    Case("override-negative-card-cost", '\n[overrides.cards."Insulin"]\natp = -1\n', "run",
         "overrides.cards.Insulin.atp", ("must be at least 0", "got -1")),
    Case("override-negative-goal-hp", '\n[overrides.goals."Detoxification"]\nhp = -2\n', "run",
         "overrides.goals.Detoxification.hp", ("must be at least 0", "got -2")),
    Case("override-negative-gain", '\n[overrides.cards."Glycogen Granule"]\ngain = { carb = -2 }\n',
         "run", "overrides.cards.Glycogen Granule.gain.carb", ("must be at least 0", "got -2")),
    Case("override-negative-spot-gain", "\n[overrides.board.mitochondria.c]\ngain = { atp = -5 }\n",
         "run", "overrides.board.mitochondria.c.gain.atp", ("must be at least 0", "got -5")),
    Case("override-negative-location-spots", "\n[overrides.board.free_ribosome]\nspots = -1\n",
         "run", "overrides.board.free_ribosome.spots", ("must be at least 1", "got -1")),
    Case("override-negative-board-value", "\n[overrides.board.components]\ngrey_flasks = -1\n",
         "run", "overrides.board.components.grey_flasks", ("must be at least 0", "got -1")),
    Case("override-bool-for-int", '\n[overrides.cards."Insulin"]\nhp = true\n', "run",
         "overrides.cards.Insulin.hp", ("must be an integer", "got boolean true")),
    Case("override-unknown-golgi", '\n[overrides.cards."Insulin"]\ngolgi = "carbs"\n', "run",
         "overrides.cards.Insulin.golgi",
         ("unknown value 'carbs'", "did you mean 'carb'?", "allowed: 'carb', 'lipid'")),
    # card file structure
    Case("unknown-card-type", "", "cards", "card[0].type",
         ("unknown value 'enzym'", "did you mean 'enzyme'?", "'additional_resource'"),
         data={"cards": sub(AMYLASE, AMYLASE.replace('"enzyme"', '"enzym"'))}),
    Case("duplicate-card-id", "", "cards", "card[1].id",
         ("duplicate card id 0", "'Amylase' has it"),
         data={"cards": sub("id = 1\n", "id = 0\n")}),
    Case("duplicate-card-name", "", "cards", "card[1].name",
         ("duplicate card name 'Amylase'", "card 0"),
         data={"cards": sub('name = "Lactase"', 'name = "Amylase"')}),
    Case("more-than-64-cards", "", "cards", "card", ("65 cards", "at most 64 are allowed"),
         data={"cards": extra_cards(22, 43)}),
    Case("card-field-its-type-lacks", "", "cards", "card[0].lipid",
         ("unknown field 'lipid' in card 'Amylase'", "allowed: 'atp', 'carb', 'hp', 'id', 'name', 'protein', 'type'"),
         data={"cards": sub(AMYLASE, AMYLASE + "lipid = 1\n")}),
    Case("card-missing-field", "", "cards", "card[0].hp", ("missing", "expected an integer"),
         data={"cards": sub("carb = 0\nhp = 2\n", "carb = 0\n")}),
    Case("unknown-golgi-resource", "", "cards", "card[10].golgi",
         ("unknown value 'protein'", "allowed: 'carb', 'lipid'"),
         data={"cards": sub('golgi = "carb"', 'golgi = "protein"')}),
    # cards that could never be completed
    Case("protein-above-max-batch", "", "cards", "card 'Insulin' (id 11).protein",
         ("needs 13 Protein", "max_batch 12 + yield bonus 0 = 12", "could never be completed"),
         data={"cards": sub(INSULIN, INSULIN.replace("protein = 3", "protein = 13"))}),
    Case("lipid-above-max-batch", "", "cards", "card 'Calcitriol' (id 31).lipid",
         ("needs 13 Lipid", "max_batch 12 + yield bonus 0 = 12", "could never be completed"),
         data={"cards": sub(CALCITRIOL, CALCITRIOL.replace("lipid = 6", "lipid = 13"))}),
    Case("protein-above-max-batch-plus-yield-bonus",
         '\n[rules]\nepigenetic = true\n\n[overrides.cards."Insulin"]\nprotein = 14\n',
         "run", "overrides.cards.Insulin.protein",
         ("needs 14 Protein", "max_batch 12 + yield bonus 1 = 13", "could never be completed")),
    Case("max-batch-rule-below-a-card", "\n[rules]\nmax_batch = 5\n", "cards",
         "card 'Erythropoietin' (id 15).protein",
         ("needs 6 Protein", "max_batch 5 + yield bonus 0 = 5", "could never be completed")),
    Case("card-above-limited-supply",
         '\n[rules]\nsupply_limited = true\n\n[overrides.cards."Insulin"]\natp = 31\n',
         "run", "overrides.cards.Insulin.atp",
         ("needs 31 atp", "limited supply has only 30", "could never be completed")),
    # negative goal HP and Additional Resource gains
    Case("negative-goal-hp", "", "goals", "goal[1].hp", ("must be at least 0", "got -8"),
         data={"goals": sub(DETOX_GOAL, DETOX_GOAL.replace("hp = 8", "hp = -8"))}),
    Case("negative-additional-resource-gain", "", "cards", "card[32].gain.carb",
         ("must be at least 0", "got -2"),
         data={"cards": sub(GLYCOGEN, GLYCOGEN.replace("carb = 2", "carb = -2"))}),
    Case("additional-resource-gains-nothing", "", "cards", "card[32].gain",
         ("an Additional Resource card must gain something",),
         data={"cards": sub(GLYCOGEN, GLYCOGEN.replace("carb = 2", "carb = 0"))}),
    # zero budding locations or flasks
    Case("zero-budding-in-board-file", "", "board", "budding_locations.rough_er",
         ("zero budding locations", "at least 1", "got 0"),
         data={"board": sub("rough_er = 3", "rough_er = 0")}),
    Case("zero-budding-rule", "\n[rules]\nbudding_locations = { golgi = 0 }\n", "run",
         "rules.budding_locations.golgi", ("zero budding locations", "at least 1", "got 0")),
    Case("zero-budding-override", "\n[overrides.board.budding_locations]\nsmooth_er = 0\n", "run",
         "overrides.board.budding_locations.smooth_er",
         ("zero budding locations", "at least 1", "got 0")),
    Case("unknown-budding-organelle-rule", "\n[rules]\nbudding_locations = { gogli = 4 }\n",
         "run", "rules.budding_locations.gogli",
         ("unknown field 'gogli'", "did you mean 'golgi'?", "'rough_er'")),
    Case("zero-flasks", "", "board", "components.flasks_per_player.5",
         ("zero flasks", "at least 1 flask"),
         data={"board": sub('"5" = 2 }', '"5" = 0 }')}),
    Case("zero-flasks-override",
         '\n[overrides.board.components]\n'
         'flasks_per_player = { "2" = 4, "3" = 4, "4" = 3, "5" = 0 }\n',
         "run", "overrides.board.components.flasks_per_player.5",
         ("zero flasks", "at least 1 flask")),
    Case("flasks-missing-player-count", "", "board", "components.flasks_per_player.5",
         ("missing", "expected an integer"),
         data={"board": sub(', "5" = 2 }', " }")}),
    # the effect vocabulary
    Case("unknown-event-effect-kind", "", "events", "event[0].effects[0].kind",
         ("unknown value 'location_bonnus'", "did you mean 'location_bonus'?", "'hp_if'"),
         data={"events": sub('kind = "location_bonus"', 'kind = "location_bonnus"')}),
    Case("unknown-epigenetic-effect-kind", "", "epigenetic", "epigenetic[0].effects[0].kind",
         ("unknown value 'yield_bonis'", "did you mean 'yield_bonus'?", "'start_bonus'"),
         data={"epigenetic": sub('kind = "yield_bonus"', 'kind = "yield_bonis"')}),
    Case("event-kind-from-epigenetic-vocabulary", "", "events", "event[0].effects[0].kind",
         ("unknown value 'yield_bonus'", "allowed: 'location_bonus'"),
         data={"events": sub('kind = "location_bonus"', 'kind = "yield_bonus"')}),
    Case("unknown-event-location", "", "events", "event[0].effects[0].location",
         ("unknown value 'mitochondrion'", "did you mean 'mitochondria'?", "'nucleus'"),
         data={"events": sub('location = "mitochondria"', 'location = "mitochondrion"')}),
    Case("yield-bonus-at-laureates", "", "epigenetic", "epigenetic[0].effects[0].location",
         ("yield_bonus cannot apply at 'laureates'", "allowed:", "'rough_er'", "'nucleus'"),
         data={"epigenetic": sub('location = "nucleus"', 'location = "laureates"')}),
    Case("unknown-hp-if-condition", "", "events", "event[9].effects[0].condition",
         ("unknown value 'stock_under'", "allowed: 'stock_at_least'"),
         data={"events": sub('condition = "stock_at_most"', 'condition = "stock_under"')}),
    Case("unknown-effect-key", "", "events", "event[7].effects[0].resource",
         ("unknown field 'resource'", "allowed: 'kind', 'n'"),
         data={"events": sub('{ kind = "card_discount", n = 1 }',
                             '{ kind = "card_discount", n = 1, resource = "atp" }')}),
    Case("override-event-unknown-effect-kind",
         '\n[overrides.events."Autophagy"]\neffects = [ { kind = "discard", limit = 4 } ]\n',
         "run", "overrides.events.Autophagy.effects[0].kind",
         ("unknown value 'discard'", "did you mean 'discard_down'?")),
    Case("override-epigenetic-yield-bonus-at-laureates",
         '\n[overrides.epigenetic."ER Expansion"]\n'
         'effects = [ { kind = "yield_bonus", location = "laureates", n = 1 } ]\n',
         "run", "overrides.epigenetic.ER Expansion.effects[0].location",
         ("yield_bonus cannot apply at 'laureates'", "'rough_er'")),
    # events, goals, epigenetic cards
    Case("duplicate-event-name", "", "events", "event[1].name",
         ("duplicate event name 'Respiration Boost'",),
         data={"events": sub('name = "Transcription Burst"', 'name = "Respiration Boost"')}),
    Case("duplicate-goal-id", "", "goals", "goal[1].id", ("duplicate goal id 0",),
         data={"goals": sub("id = 1\n", "id = 0\n")}),
    Case("event-without-effects", "", "events", "event[7].effects",
         ("needs at least one effect",),
         data={"events": sub('effects = [ { kind = "card_discount", n = 1 } ]', "effects = []")}),
    Case("goals-fewer-than-revealed", "", "goals", "goal",
         ("4 goal cards", "up to 5 are revealed at setup"),
         data={"goals": keep_first("goal", 4)}),
    Case("events-fewer-than-set-aside", "", "events", "event",
         ("1 events", "up to 2 are set aside at setup"),
         data={"events": keep_first("event", 1)}),
    Case("unknown-goal-criterion", "", "goals", "goal[4].criterion",
         ("unknown value 'per_distinct'", "did you mean 'per_distinct_types'?"),
         data={"goals": sub('"per_distinct_types"', '"per_distinct"')}),
    # board structure
    Case("duplicate-location-id", "", "board", "location",
         ("duplicate location id 'golgi'",),
         data={"board": sub('id = "exocytosis"', 'id = "golgi"')}),
    Case("unknown-location-action", "", "board", "location[12].action",
         ("unknown value 'laureate'", "did you mean 'laureates'?"),
         data={"board": sub('action = "laureates"', 'action = "laureate"')}),
    Case("card-area-spots-mismatch", "", "board", "location",
         ("'card_area' has 4 spots", "slot_prices lists 5 slots"),
         data={"board": sub("slot_prices = [0, 1, 2, 3]", "slot_prices = [0, 1, 2, 3, 4]")}),
    Case("too-many-collect-spots", "", "board", "location",
         ("the collect locations have 79 spots in all", "at most 60"),
         data={"board": sub("spots = [ { gain = { mrna = 3 } }, { gain = { mrna = 2 } } ]",
                            "spots = [ " + ", ".join(["{ gain = { mrna = 1 } }"] * 26) + " ]\n"
                            "[[location]]\nid = \"nucleolus\"\nname = \"Nucleolus\"\n"
                            "action = \"collect\"\nspots = [ "
                            + ", ".join(["{ gain = { mrna = 1 } }"] * 26) + " ]\n"
                            "[[location]]\nid = \"peroxisome\"\nname = \"Peroxisome\"\n"
                            "action = \"collect\"\nspots = [ "
                            + ", ".join(["{ gain = { atp = 1 } }"] * 20) + " ]")}),
    Case("slot-prices-rule-wrong-length", "\n[rules]\nslot_prices = [0, 1, 2]\n", "run",
         "rules.slot_prices", ("needs 4 prices", "one per Card Area slot", "got 3")),
    Case("starting-atp-rule-too-short", "\n[rules]\nstarting_atp = [4, 4]\n", "run",
         "rules.starting_atp", ("needs at least 5 item(s)", "got 2")),
    Case("bad-combo", "", "board", "setup.combos",
         ("item 0 must be two resource names", "'mrna'"),
         data={"board": sub('["atp", "atp"]', '["atp", "gold"]')}),
    # rule values
    Case("unknown-turn-order", '\n[rules]\nturn_order = "rotating"\n', "run", "rules.turn_order",
         ("unknown value 'rotating'", "did you mean 'rotate'?", "allowed: 'marker', 'rotate'")),
    Case("unknown-placement-order", '\n[rules]\nplacement_order = "snake"\n', "run",
         "rules.placement_order",
         ("unknown value 'snake'", "allowed: 'clockwise', 'snake_pass', 'snake_round'")),
    Case("placement-order-not-a-word", '\n[rules]\nplacement_order = 2\n', "run",
         "rules.placement_order", ("must be a string, got int 2",)),
    Case("starting-hp-too-short", '\n[rules]\nstarting_hp_by_seat = [0, 1, 2]\n', "run",
         "rules.starting_hp_by_seat", ("needs at least 5 item(s), got 3",)),
    Case("starting-hp-negative", '\n[rules]\nstarting_hp_by_seat = [0, 0, 0, 0, -1]\n', "run",
         "rules.starting_hp_by_seat", ("must be at least 0, got -1",)),
    Case("first-marker-hp-negative", '\n[rules]\nfirst_marker_hp = [3, -1]\n', "run",
         "rules.first_marker_hp", ("item 1 must be at least 0, got -1",)),
    Case("first-marker-hp-not-a-list", '\n[rules]\nfirst_marker_hp = 2\n', "run",
         "rules.first_marker_hp", ("must be an array, got int 2",)),
    Case("goals-open-round-zero", '\n[rules]\ngoals_open_round = 0\n', "run",
         "rules.goals_open_round", ("must be at least 1, got 0",)),
    Case("goals-open-round-not-whole", '\n[rules]\ngoals_open_round = 2.5\n', "run",
         "rules.goals_open_round", ("must be an integer, got float 2.5",)),
    Case("laureates-marker-only-not-a-bool", '\n[rules]\nlaureates_marker_only = 1\n', "run",
         "rules.laureates_marker_only", ("must be true or false, got int 1",)),
    Case("laureates-once-each-not-a-bool", '\n[rules]\nlaureates_once_each = "yes"\n', "run",
         "rules.laureates_once_each", ("must be true or false, got string 'yes'",)),
    # fields and policies
    Case("unknown-policy", custom(field='policy = "randon"'), "run", "field[0].policy",
         ("unknown policy 'randon'", "did you mean 'random'?", "'file.py:function'")),
    Case("seats-length-mismatch", custom(field='seats = ["random", "random"]'), "run",
         "field[0].seats",
         ("lists 2 policies but the run plays 3 players", "use 'pool'")),
    Case("field-two-modes", custom(field='policy = "random"\npool = ["random"]'), "run", "field[0]",
         ("exactly one of 'policy'", "'seats'", "'pool'", "found 2")),
    Case("fields-share-a-name", '\n[[field]]\npolicy = "random"\n', "run", "field",
         ("two fields share a name", "['random', 'random']")),
    Case("no-field", custom(field=None), "run", "field", ("missing", "at least one [[field]]")),
    Case("empty-field-array", custom(top="field = []", field=None), "run", "field",
         ("missing", "at least one [[field]]")),
    Case("unknown-rotation", custom(field='pool = ["random"]\nrotation = "cycle"'), "run",
         "field[0].rotation",
         ("unknown value 'cycle'", "did you mean 'cyclic'?", "allowed: 'cyclic', 'all'")),
    Case("params-for-unused-policy",
         custom(field='policy = "random"\n[field.params.greedy]\ndepth = 2'), "run",
         "field[0].params.greedy",
         ("parameters for a policy this field does not use", "used: 'random'")),
    Case("unknown-policy-param",
         custom(field='policy = "random"\n[field.params.random]\ndepth = 2'), "run",
         "field[0].params.random.depth",
         ("unknown field 'depth'", "allowed: none")),
    Case("user-policy-file-not-found", custom(field='policy = "mine.py:choose"'), "run",
         "field[0].policy",
         ("user policy file not found", "mine.py")),
    # two-player Detoxification removal and the deck size
    Case("two-player-detox-removal-names-key", "\n[rules]\ntwo_player_remove_detox = true\n",
         "cards", "card", ("two_player_remove_detox removes 3 Detoxification cards", "has 1"),
         data={"cards": keep_first("card", 37)}, players="2"),
    Case("deck-too-small-names-key", "", "cards", "card",
         ("15 cards in the deck at 5 players", "setup needs 19"),
         data={"cards": keep_first("card", 15)}, players="5"),
    Case("epigenetic-variant-too-few-cards-names-key", "\n[rules]\nepigenetic = true\n",
         "epigenetic", "epigenetic", ("4 epigenetic cards", "deals one to each of 5 players"),
         data={"epigenetic": keep_first("epigenetic", 4)}, players="5"),
    # files: missing, malformed
    Case("missing-data-file", '\n[data]\ncards = "missing.toml"\n', "run", "data.cards",
         ("file not found", "missing.toml")),
    Case("malformed-run-config", custom(run_extra="seed 2"), "run", None,
         ("malformed TOML", "line 5")),
    Case("malformed-data-file", "", "cards", None, ("malformed TOML", "line 16"),
         data={"cards": sub('name = "Amylase"', 'name = "Amylase')}),
    Case("data-file-not-a-table-array", "", "cards", "card",
         ("must be an array", "got int 3"), data={"cards": lambda text: "card = 3\n"}),
    Case("override-with-card-file-not-an-array", '\n[overrides.cards."Insulin"]\natp = 2\n',
         "cards", "card", ("must be an array", "got int 3"),
         data={"cards": lambda text: "card = 3\n"}),
    Case("data-file-holds-no-cards", "", "cards", "card", ("the card file holds no cards",),
         data={"cards": lambda text: "card = []\n"}),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, case: Case) -> None:
    config, named = build(tmp_path, case)
    assert_error(validate(config), named, case.key, *case.fragments)


def test_missing_run_config(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    assert_error(validate(missing), str(missing), None, "file not found")


def test_run_config_is_a_directory(tmp_path: Path) -> None:
    assert_error(validate(tmp_path), str(tmp_path), None, "not a file")


def test_run_config_not_utf8(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_bytes(b"[run]\nplayers = 3 # \xff\xfe\n")
    assert_error(validate(config), str(config), None, "cannot read file")


def test_cards_command_reports_the_same_way(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text(HEADER.format(players="6"), encoding="utf-8")
    result = runner.invoke(app, ["cards", str(config)])
    assert_error(result, str(config), "run.players", "6 players is outside 2-5")


def test_good_config_validates() -> None:
    """The contrast case: a good config passes with exit 0 and nothing on stderr."""
    config = Path(__file__).resolve().parent.parent / "configs" / "3p.toml"
    result = validate(config)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout.rstrip().endswith("ok")


def test_console_script_one_line_exit_2(tmp_path: Path) -> None:
    """The real entry point (a new interpreter, no CliRunner): status 2, one stderr line."""
    config = tmp_path / "run.toml"
    config.write_text(
        '[run]\nplayers = 3\ngames = 10\nseed = 1\n\n[[field]]\npolicy = "random"\n\n'
        '[overrides.cards."Insulinn"]\natp = 2\n',
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "simcell.cli", "validate", str(config)],
        check=False, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0] == (
        f"error: {config}: overrides.cards.Insulinn: no card named 'Insulinn' "
        "(did you mean 'Insulin'?)"
    )
