"""`simcell fit` (skill issue): duplicate matches on a warm pool, the fitted parameter file and the
field that plays it, and a fit that moves a badly set field towards its best response."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from simcell.cli import app
from simcell.config.errors import ConfigError
from simcell.config.fitted import Fitted, read_fitted, write_fitted
from simcell.config.load import load_default_game, load_run_config
from simcell.policies.registry import builtin, param_values
from simcell.runner.fields import seating
from simcell.runner.match import MatchPool
from simcell.tools import Plays
from simcell.tools.fit.loop import fitted_names, run_fit

CONFIG = """
[run]
players = {players}
games = 1000
seed = 5

[[field]]
name = "planner"
policy = "planner"
{extra}
"""


def _config(tmp_path, players="2", extra=""):
    path = tmp_path / "c.toml"
    path.write_text(CONFIG.format(players=players, extra=extra))
    return path


def test_a_field_against_itself_scores_exactly_the_fair_share_and_a_deviation_does_not():
    game = load_default_game()
    d = builtin("planner").defaults_at(3)
    with MatchPool(1) as pool:
        assert (pool.margins(game, 3, "planner", {}, {}, 7, 12) == 0).all()
        # a field that values a card at a fifth of its worth loses nearly every deal to one that does not
        bad = pool.margins(game, 3, "planner", d | {"card": d["card"] * 0.2}, d, 7, 12)
    assert bad.mean() > 30 and bad.shape == (12,)


def _fitted(tmp_path, **params):
    f = Fitted("planner", {2: {"goal": 1.0} | params}, {2: {"rounds": 3}}, {"config": "x"})
    return write_fitted(tmp_path / "fitted.toml", f, "a test")


def test_a_field_plays_the_fitted_worths_at_its_count(tmp_path):
    _fitted(tmp_path, w_detox=2.0)
    rc = load_run_config(_config(tmp_path, extra='fitted = { planner = "fitted.toml" }'))
    field = rc.fields[0]
    row = seating(field, 2).player_params[0]
    names = list(param_values("planner", {}, 2))
    assert row[names.index("goal")] == 1.0 and row[names.index("w_detox")] == 2.0
    # the field's own params stand over the file's
    (tmp_path / "d.toml").write_text(CONFIG.format(players=2, extra='fitted = { planner = "fitted.toml" }\n'
                                                   '[field.params.planner]\ngoal = 0.5'))
    own = seating(load_run_config(tmp_path / "d.toml").fields[0], 2).player_params[0]
    assert own[names.index("goal")] == 0.5 and own[names.index("w_detox")] == 2.0


@pytest.mark.parametrize("extra, players, message", [
    ('fitted = { planner = "nope.toml" }', "2", "fitted file not found"),
    ('fitted = { greedy = "fitted.toml" }', "2", "does not use"),
    ('fitted = { planner = "fitted.toml" }', "[2, 3]", "this run also plays 3"),
])
def test_a_fitted_file_the_run_cannot_play_is_one_line(tmp_path, extra, players, message):
    _fitted(tmp_path)
    with pytest.raises(ConfigError, match=message):
        load_run_config(_config(tmp_path, players, extra))


def test_a_fitted_file_is_checked_like_every_config(tmp_path):
    path = _fitted(tmp_path)
    text = path.read_text()
    path.write_text(text.replace("goal = 1.0", "gaol = 1.0"))
    with pytest.raises(ConfigError, match="gaol.*unknown field .gaol."):
        read_fitted(path)
    path.write_text(text.replace('policy = "planner"', 'policy = "rollout"'))
    with pytest.raises(ConfigError, match="not a heuristic policy"):
        read_fitted(path)
    path.write_text(text.replace("[players.2]", "[players.9]"))
    with pytest.raises(ConfigError, match="not a player count"):
        read_fitted(path)


def test_fit_moves_a_badly_set_field_towards_its_best_response(tmp_path):
    """A field that weighs Enzymes four times their worth is beaten by one that does not; the fit
    finds that beyond the band, moves the field's Enzyme weight down, and the field it leaves
    gains less to the best deviation than the one it started from."""
    d = builtin("planner").defaults_at(2)
    config = _config(tmp_path, extra=f"[field.params.planner]\nw_enzyme = {4 * d['w_enzyme']}")
    seen = []
    with MatchPool(1) as pool:
        plays = Plays(into=None, say=seen.append, players=(2,), margins=pool.margins)
        out = run_fit(config, tmp_path / "fit", plays, rounds=3, trials=13, deals=150,
                      holdout_deals=400, confirm=2)
    plan = json.loads((out / "fit.json").read_text())
    [count] = plan["counts"]
    first = count["rounds"][0]
    assert first["best"]["low"] > 1.0  # beyond the band and beyond noise
    assert first.get("adopted") and len(count["rounds"]) >= 2
    assert count["fitted"]["w_enzyme"] < 0.75 * count["start"]["w_enzyme"]
    assert count["after"]["gain_pp"] < count["before"]["gain_pp"]
    assert sorted(count["start"]) == sorted(fitted_names("planner"))
    # the file and the config it writes play the fitted worths
    fitted = read_fitted(out / "fitted.toml")
    assert fitted.params[2]["w_enzyme"] == pytest.approx(count["fitted"]["w_enzyme"], abs=1e-4)
    assert fitted.about[2]["exploitability_before_pp"] == pytest.approx(count["before"]["gain_pp"], abs=1e-3)
    rc = load_run_config(out / plan["fitted_config"])
    row = seating(rc.fields[0], 2).player_params[0]
    names = list(param_values("planner", {}, 2))
    # the config's own w_enzyme was searched, so it gives way to the file's
    assert row[names.index("w_enzyme")] == pytest.approx(fitted.params[2]["w_enzyme"])
    assert (out / "report.html").is_file() and (out / "figures" / "fit_rounds.png").is_file()
    assert any("round 1" in s for s in seen)


def test_fit_refuses_a_field_it_cannot_fit(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(CONFIG.format(players=2, extra="").replace('policy = "planner"', 'policy = "rollout"'))
    result = CliRunner().invoke(app, ["fit", str(path), "-o", str(tmp_path / "f"), "--workers", "1"])
    assert result.exit_code == 2 and "fit improves a heuristic policy" in result.output


def test_the_shipped_fitted_field_is_valid_and_within_a_point_at_every_count():
    """simcell/data/fitted.toml (simcell fit on the shipped game, the `fitted` rung) holds 2-5
    players, each fitted to an exploitability at most 1 pp on fresh deals, and configs/fitted-Np.toml
    play it."""
    from pathlib import Path

    from simcell.config.rungs import shipped_fitted

    fitted = read_fitted(shipped_fitted())
    assert fitted.policy == "planner" and sorted(fitted.params) == [2, 3, 4, 5]
    for p, about in fitted.about.items():
        assert about["exploitability_pp"] <= 1.0 and about["stopped"] == "fitted"
        assert sorted(fitted.params[p]) == sorted(fitted_names("planner"))
        rc = load_run_config(Path(__file__).parents[1] / "configs" / f"fitted-{p}p.toml")
        row = seating(rc.fields[0], p).player_params[0]
        names = list(param_values("planner", {}, p))
        assert row[names.index("goal")] == pytest.approx(fitted.params[p]["goal"])
