"""The shipped data files and configs load, hold every [config] value of docs/rules.md, follow the
seed's counts, and the reconstruction is balanced by type (checked, not asserted)."""

from __future__ import annotations

import dataclasses
import shutil
import statistics
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.config.load import load_default_game, load_run_config
from simcell.config.model import GameDefinition
from simcell.config.placements import CollectSpot, card_placements, fewest_collect_placements
from simcell.config.summary import card_differences, count_differences
from simcell.vocabulary import SEED_CARD_COUNTS

from .conftest import CONFIGS, DATA

ALL_CONFIGS = sorted(CONFIGS.glob("*.toml"))


def test_shipped_configs_exist() -> None:
    names = {p.name for p in ALL_CONFIGS}
    assert {"2p.toml", "3p.toml", "4p.toml", "5p.toml", "all-counts.toml"} <= names
    assert any("override" in n for n in names)


@pytest.mark.parametrize("path", ALL_CONFIGS, ids=lambda p: p.name)
def test_every_shipped_config_validates(path: Path) -> None:
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    rc = load_run_config(path)
    assert rc.game.content_hash in result.output
    assert result.output.strip().endswith("ok")


def test_player_counts_of_configs() -> None:
    for p in (2, 3, 4, 5):
        assert load_run_config(CONFIGS / f"{p}p.toml").players == (p,)
    assert load_run_config(CONFIGS / "all-counts.toml").players == (2, 3, 4, 5)
    assert load_run_config(CONFIGS / "5p.toml").games == 1_000_000


def test_shipped_card_set_has_the_seeds_counts() -> None:
    game = load_default_game()
    counts = Counter(c.type for c in game.cards)
    assert dict(counts) == SEED_CARD_COUNTS
    assert len(game.cards) == 43
    assert count_differences(game) == []
    assert len(game.events) == 12 and len(game.goals) == 5 and len(game.epigenetic) == 7


def test_rules_md_config_values_live_in_data() -> None:
    """Every [config] value of docs/rules.md, read from the shipped files (not from code)."""
    game = load_default_game()
    b, r = game.board, game.rules
    assert b.supply == (18, 18, 15, 15, 30)
    assert b.flasks_per_player == (4, 4, 3, 2)
    assert b.grey_flasks == 2 and b.vesicles_per_player == 2 and b.goal_markers_per_player == 2
    assert b.events_set_aside == (2, 2, 1, 0)
    assert b.goals_revealed == (3, 4, 5, 5)
    assert b.starting_atp == (2, 3, 4, 5, 6)
    assert b.slot_prices == (0, 1, 2, 3)
    assert b.budding_locations == (3, 3, 3)
    assert b.first_marker_hp == 3 and b.max_markers_per_goal == 2
    assert b.two_player_detox_removed == 3 and b.cards_dealt == 3
    assert len(b.combos) == 6
    assert (r.epigenetic, r.supply_limited, r.grey_per_player) == (False, False, 1)
    assert (r.two_player_remove_detox, r.turn_order, r.laureates_holder_may_take) == (
        False, "marker", True)
    assert (r.max_batch, r.tie_rule) == (12, "split")
    assert [game.rounds(p) for p in (2, 3, 4, 5)] == [11, 11, 12, 13]
    actions = [loc.action for loc in b.locations]
    assert actions.count("collect") == 4
    assert [len(loc.spots) for loc in b.locations] == [2, 2, 3, 2, 2, 4, 2, 2, 2, 2, 2, 2, 1]
    detox_hp = {c.hp for c in game.cards if c.type == "detox"}
    assert detox_hp == {1}
    goals = {g.name: (g.criterion, g.type, g.hp) for g in game.goals}
    assert goals["Enzymes"] == ("per_completed", "enzyme", 2)
    assert goals["Detoxification"] == ("most_completed", "detox", 8)
    events = {e.name: e.effects[0] for e in game.events}
    boost = events["Respiration Boost"]
    assert (boost.kind, boost.location, boost.resource, boost.n) == (
        "location_bonus", "mitochondria", "atp", 1)


def test_rules_md_dotted_names_set_the_same_switches(tmp_path: Path) -> None:
    """docs/rules.md names two switches `supply.limited` and `laureates.holder_may_take`; a run
    config may use those names or the flat keys, with the same game (and content hash)."""
    head = "[run]\nplayers = 3\ngames = 10\nseed = 1\n[[field]]\npolicy = \"random\"\n[rules]\n"
    dotted, flat = tmp_path / "dotted.toml", tmp_path / "flat.toml"
    dotted.write_text(head + "supply.limited = true\nlaureates.holder_may_take = false\n")
    flat.write_text(head + "supply_limited = true\nlaureates_holder_may_take = false\n")
    a, b = load_run_config(dotted).game, load_run_config(flat).game
    assert (a.rules.supply_limited, a.rules.laureates_holder_may_take) == (True, False)
    assert a.content_hash == b.content_hash != load_default_game().content_hash


def test_reconstruction_is_balanced_by_type() -> None:
    """Each type's median HP per placement lies within +-30% of the median over all
    completable cards (Additional Resource cards are never completed)."""
    game = load_default_game()
    placements = card_placements(game)
    per_card = {
        c.id: c.hp / placements[c.id] for c in game.cards if placements[c.id] is not None
    }
    assert len(per_card) == 43 - 4
    overall = statistics.median(per_card.values())
    by_type: dict[str, list[float]] = {}
    for c in game.cards:
        if c.id in per_card:
            by_type.setdefault(c.type, []).append(per_card[c.id])
    for card_type, values in by_type.items():
        m = statistics.median(values)
        assert 0.7 * overall <= m <= 1.3 * overall, (card_type, m, overall)


def test_hp_rises_with_cost_within_each_type() -> None:
    """docs/rules.md §4: HP rises with total cost (never falls as placements rise, per type)."""
    game = load_default_game()
    placements = card_placements(game)
    by_type: dict[str, list[tuple[int, int]]] = {}
    for c in game.cards:
        if placements[c.id] is not None and c.type != "detox":
            by_type.setdefault(c.type, []).append((placements[c.id], c.hp))
    for card_type, pairs in by_type.items():
        pairs.sort()
        hps = [hp for _, hp in pairs]
        # the card with the most placements scores at least as much as the one with the fewest
        assert hps[-1] >= hps[0], card_type
        assert max(hp for pl, hp in pairs if pl == pairs[-1][0]) == max(hps), card_type


def _v(**kw: int) -> tuple[int, ...]:
    return tuple(kw.get(r, 0) for r in ("mrna", "protein", "carb", "lipid", "atp"))


BASE_SPOTS = (
    CollectSpot(_v(), _v(mrna=3)),
    CollectSpot(_v(), _v(mrna=2)),
    CollectSpot(_v(atp=1), _v(carb=1)),
    CollectSpot(_v(atp=2), _v(carb=2)),
    CollectSpot(_v(), _v(atp=3)),
    CollectSpot(_v(), _v(atp=2)),
    CollectSpot(_v(carb=1), _v(atp=6)),
    CollectSpot(_v(), _v(lipid=3)),
    CollectSpot(_v(), _v(lipid=2)),
)


@pytest.mark.parametrize(
    ("need", "expected"),
    [
        (_v(), 0),
        (_v(mrna=3), 1),
        (_v(mrna=4), 2),
        (_v(atp=6), 2),  # 3 + 3
        (_v(carb=1), 2),  # Mitochondria a, then Glucose a
        (_v(carb=2), 2),  # Mitochondria a (3 ATP), Glucose b (pay 2)
        (_v(atp=9), 3),  # Mito a, Glucose a, Mito c: 3 - 1 + 6 = 8 < 9, so three of Mito a
        (_v(mrna=5, carb=2, atp=3), 5),
    ],
)
def test_fewest_collect_placements_by_hand(need: tuple[int, ...], expected: int) -> None:
    assert fewest_collect_placements(need, BASE_SPOTS) == expected


def test_card_placements_by_hand() -> None:
    game = load_default_game()
    pl = card_placements(game)
    by_name = {c.name: c for c in game.cards}
    # Amylase: 2 Protein + 1 ATP: buy (slot 0 free), Nucleus a, Mitochondria a, Ribosome, Cytoplasm
    assert pl[by_name["Amylase"].id] == 5
    # a Detoxification card costing 0 ATP: buy and complete
    sulfation = by_name["Sulfation"]
    assert sulfation.atp == 0 and pl[sulfation.id] == 2
    # Oxytocin: 2 mRNA, 1 Carb at the Golgi, 1 ATP: buy, Nucleus, Mito a, Glucose a, RER, Golgi, Exo
    assert pl[by_name["Oxytocin"].id] == 7
    # Additional Resource cards are never completed
    assert all(pl[c.id] is None for c in game.cards if c.type == "additional_resource")


def test_content_hash_is_stable_and_changes_with_any_value(tmp_path: Path) -> None:
    game = load_default_game()
    again = load_default_game()
    assert game.content_hash == again.content_hash
    # a copy of the data files in another folder gives the same hash (paths are not hashed)
    for f in DATA.glob("*.toml"):
        shutil.copy(f, tmp_path / f.name)
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        "[run]\nplayers = 3\ngames = 10\nseed = 1\n[[field]]\npolicy = \"random\"\n"
        "[data]\n" + "".join(f'{k} = "{k}.toml"\n' for k in
                             ("board", "rules", "cards", "events", "goals", "epigenetic"))
    )
    assert load_run_config(cfg).game.content_hash == game.content_hash
    # run settings (players, games, seed, fields, report bands) do not change it
    cfg2 = tmp_path / "run2.toml"
    cfg2.write_text(
        "[run]\nplayers = [2, 5]\ngames = 99\nseed = 7\n[[field]]\npolicy = \"random\"\n"
        "[report.bands]\nseat_win_share_pp = 5.0\n"
    )
    assert load_run_config(cfg2).game.content_hash == game.content_hash


def _replace_card(game: GameDefinition, index: int, **changes: object) -> GameDefinition:
    cards = list(game.cards)
    cards[index] = dataclasses.replace(cards[index], **changes)
    return dataclasses.replace(game, cards=tuple(cards))


def test_content_hash_changes_with_each_kind_of_value() -> None:
    game = load_default_game()
    variants = [
        _replace_card(game, 0, atp=game.cards[0].atp + 1),
        _replace_card(game, 5, hp=game.cards[5].hp + 1),
        _replace_card(game, 20, name="Renamed"),
        dataclasses.replace(game, rules=dataclasses.replace(game.rules, epigenetic=True)),
        dataclasses.replace(game, rules=dataclasses.replace(game.rules, max_batch=11)),
        dataclasses.replace(game, board=dataclasses.replace(game.board, slot_prices=(0, 1, 2, 4))),
        dataclasses.replace(game, goals=game.goals[:4] + (dataclasses.replace(game.goals[4], hp=3),)),
        dataclasses.replace(game, events=game.events[1:] + game.events[:1]),
        dataclasses.replace(game, epigenetic=game.epigenetic[:6]),
    ]
    hashes = {v.content_hash for v in variants}
    assert game.content_hash not in hashes
    assert len(hashes) == len(variants)


def test_override_example_states_its_differences() -> None:
    rc = load_run_config(CONFIGS / "override-example.toml")
    diffs = card_differences(rc.game, load_default_game())
    assert "card 11 'Insulin': atp 1 -> 2" in diffs
    assert any("Calcitriol" in d and "lipid 6 -> 5" in d for d in diffs)
    assert rc.game.content_hash != load_default_game().content_hash
    assert rc.game.board.starting_atp == (4, 4, 4, 4, 4)
    assert rc.game.board.budding_locations == (3, 3, 4)
    assert rc.game.rules.epigenetic is True
    goal = next(g for g in rc.game.goals if g.name == "Detoxification")
    assert goal.hp == 10
    mito_c = rc.game.board.location("mitochondria").spots[2]
    assert mito_c.gain == (0, 0, 0, 0, 5) and mito_c.cost == (0, 0, 1, 0, 0)
    assert dict(rc.report.bands)["seat_win_share_pp"] == 3.0
    assert "seat_win_share_pp" not in rc.report.default_bands


def test_no_op_override_keeps_the_hash(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        "[run]\nplayers = 4\ngames = 10\nseed = 1\n[[field]]\npolicy = \"random\"\n"
        "[overrides.cards.\"Amylase\"]\natp = 1\n"
    )
    assert load_run_config(cfg).game.content_hash == load_default_game().content_hash


def test_designers_own_card_file_with_other_counts(tmp_path: Path) -> None:
    """A designer's card file may use other counts; validate states every difference."""
    text = (DATA / "cards.toml").read_text()
    extra = '\n[[card]]\nid = 50\nname = "Kinase X"\ntype = "enzyme"\natp = 2\nprotein = 3\ncarb = 0\nhp = 2\n'
    (tmp_path / "my_cards.toml").write_text(text + extra)
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        "[run]\nplayers = 5\ngames = 10\nseed = 1\n[[field]]\npolicy = \"random\"\n"
        "[data]\ncards = \"my_cards.toml\"\n"
    )
    result = CliRunner().invoke(app, ["validate", str(cfg)])
    assert result.exit_code == 0, result.output
    assert "enzyme: 11 cards (seed: 10)" in result.output
    assert "card 50 'Kinase X': added" in result.output


def test_cards_command_shows_placements_and_overrides() -> None:
    result = CliRunner().invoke(app, ["cards", str(CONFIGS / "override-example.toml")])
    assert result.exit_code == 0, result.output
    assert "HP/placement" in result.output
    assert "Insulin" in result.output and "2*" in result.output
    plain = CliRunner().invoke(app, ["cards"])
    assert plain.exit_code == 0
    table_part = plain.output.split("* differs")[0]
    assert "Amylase" in table_part and "*" not in table_part


CARD_COLUMNS = ("id", "name", "type", "atp", "protein", "carb", "lipid", "golgi", "hp", "bonus",
                "gain", "placements", "HP/placement")


def _card_row(output: str, name: str) -> dict[str, str]:
    """The cells of card `name`'s row in `simcell cards`' table, by column."""
    line = next(row for row in output.splitlines() if f" {name} " in row)
    return dict(zip(CARD_COLUMNS, (c.strip() for c in line.split("│")[1:-1]), strict=True))


def test_cards_command_stars_only_the_fields_of_an_added_cards_type(tmp_path: Path) -> None:
    """Issue 70: an added card was starred in every column, carb, lipid, bonus and gain
    included, which its type does not have. Only its type's fields are starred; the others
    show '-', and the legend says what a star and a '-' mean."""
    text = (DATA / "cards.toml").read_text()
    extra = ('\n[[card]]\nid = 50\nname = "Kinase X"\ntype = "detox"\natp = 2\nhp = 1\n'
             '\n[[card]]\nid = 51\nname = "Kinase Y"\ntype = "enzyme"\natp = 1\nprotein = 2\n'
             'carb = 1\nhp = 2\n')
    (tmp_path / "my_cards.toml").write_text(text + extra)
    cfg = tmp_path / "run.toml"
    cfg.write_text("[run]\nplayers = 5\ngames = 10\nseed = 1\n[[field]]\npolicy = \"random\"\n"
                   "[data]\ncards = \"my_cards.toml\"\n"
                   "[overrides.cards.\"Insulin\"]\natp = 2\n")
    result = CliRunner().invoke(app, ["cards", str(cfg)])
    assert result.exit_code == 0, result.output
    detox = _card_row(result.output, "Kinase X")
    assert (detox["atp"], detox["hp"]) == ("2*", "1*")
    for col in ("protein", "carb", "lipid", "golgi", "bonus", "gain"):
        assert detox[col] == "-", (col, detox)
    enzyme = _card_row(result.output, "Kinase Y")
    assert [enzyme[c] for c in ("atp", "protein", "carb", "hp")] == ["1*", "2*", "1*", "2*"]
    assert [enzyme[c] for c in ("lipid", "golgi", "bonus", "gain")] == ["-"] * 4
    insulin = _card_row(result.output, "Insulin")  # a shipped card: its changed value alone
    assert insulin["atp"] == "2*" and insulin["protein"] == "3" and insulin["carb"] == "-"
    legend = result.output.split("└")[-1]
    assert "* differs from the shipped set" in legend and "- not a field of the card's type" in legend


def test_version_and_help() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("simcell ")
    for args in (["--help"], ["validate", "--help"], ["cards", "--help"]):
        r = runner.invoke(app, args)
        assert r.exit_code == 0 and "Usage" in r.output
