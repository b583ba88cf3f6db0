"""`simcell studio` without a browser (issue 41): a block's sums are the compare report's sums of
the same games, the API answers a bad value with the config layer's one line and plays nothing,
an edit's paired figures arrive block by block and match `simcell run` of its export on the same
seed, a newer edit replaces the running one, the server keeps to its folder and survives bad
requests, and the command's bad input is one line."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from simcell.cli import app
from simcell.config.errors import ConfigError
from simcell.config.load import load_run_config
from simcell.reports.changes import segment_sums
from simcell.reports.data import RunData
from simcell.studio.blocks import BlockSpec, play_block
from simcell.studio.server import HOST, PORT, build_app
from simcell.studio.session import Session
from tests.support.studio import CONFIG as STUDIO_CONFIG
from tests.support.studio import started_session

CONFIG = STUDIO_CONFIG.format(games=3000, seed=7)
INSULIN = 'cards."Insulin".atp'
SERVED = f"http://{HOST}:{PORT}"  # the test client's requests name the host and port served


def _client(app) -> TestClient:
    return TestClient(app, base_url=SERVED)


def _run(config: Path, out: Path) -> RunData:
    result = CliRunner().invoke(app, ["run", "--no-rungs", str(config), "--out", str(out), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    return RunData(out)


def test_a_blocks_sums_are_the_compare_reports_sums_of_its_games(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    run = _run(config, tmp_path / "run")
    sums, hp = segment_sums(run, run.segments[0])
    rc = load_run_config(config)
    parts = [play_block(BlockSpec(rc.game, 3, 7, rc.fields[0], first, 1000)) for first in (0, 1000, 2000)]
    for key, value in sums.items():
        np.testing.assert_allclose(sum(p[0][key].sum(axis=0) for p in parts), value.sum(axis=0), rtol=1e-12, err_msg=key)
    np.testing.assert_array_equal(np.concatenate([p[1] for p in parts]), hp)


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    folder = tmp_path_factory.mktemp("studio")
    session = started_session(folder, games=3000, block=250, seed=7)
    with _client(build_app(session)) as client:
        yield session, client, folder
    session.close()


def _until_done(client, generation: int, timeout: float = 120) -> list[dict]:
    """Every distinct results answer of this generation until its last block."""
    seen, end = [], time.perf_counter() + timeout
    while time.perf_counter() < end:
        r = client.get("/api/results").json()
        if r["generation"] == generation and r["figures"] and (not seen or seen[-1]["figures"]["games"] != r["figures"]["games"]):
            seen.append(r)
        if r["generation"] == generation and r["done"]:
            return seen
        time.sleep(0.01)
    raise AssertionError(f"edit {generation} did not finish: {r}")


def test_setup_lists_the_cards_and_rules(studio):
    _, client, _ = studio
    setup = client.get("/api/setup").json()
    insulin = next(c for c in setup["cards"] if c["name"] == "Insulin")
    assert insulin["values"]["atp"] == 1 and setup["players"] == 3 and setup["games"] == 3000
    assert setup["rules"]["turn_order"] == "marker"
    assert setup["board"]["board.goals.first_marker_hp"] == 3 and setup["board"]["board.card_area.slot_prices"] == [0, 1, 2, 3]
    assert "<title>simcell studio</title>" in client.get("/").text


@pytest.mark.parametrize("text, words", [("-1", "must be at least 0, got -1"),
                                         ("abc", "must be an integer"),
                                         ("", "cannot read the value")])
def test_a_bad_value_is_the_config_layers_one_line_and_plays_nothing(studio, text, words):
    session, client, _ = studio
    before = client.get("/api/results").json()
    r = client.post("/api/edit", json={"values": {INSULIN: text}, "changed": INSULIN})
    assert r.status_code == 400
    assert r.json()["key"] == INSULIN and words in r.json()["message"] and "\n" not in r.json()["message"]
    after = client.get("/api/results").json()
    assert after["generation"] == before["generation"] and after["edit"] == before["edit"]


def test_an_unknown_card_or_rule_is_named(studio):
    _, client, _ = studio
    r = client.post("/api/edit", json={"values": {'cards."Insulinn".atp': "2"}, "changed": 'cards."Insulinn".atp'})
    assert r.status_code == 400 and "did you mean 'Insulin'" in r.json()["message"]
    r = client.post("/api/edit", json={"values": {"rules.turn_order": "sideways"}, "changed": "rules.turn_order"})
    assert r.status_code == 400 and "allowed: 'marker', 'rotate'" in r.json()["message"]
    r = client.post("/api/edit", json={"values": {"board.card_area.slot_prices": "[0, 1, 2]"},
                                       "changed": "board.card_area.slot_prices"})
    assert r.status_code == 400 and r.json()["key"] == "board.card_area.slot_prices" and r.json()["message"]


def test_an_edit_streams_paired_figures_that_match_simcell_run_of_its_export(studio, tmp_path):
    session, client, folder = studio
    g = client.post("/api/edit", json={"values": {INSULIN: "4"}, "changed": INSULIN}).json()["generation"]
    seen = _until_done(client, g)
    final = seen[-1]["figures"]
    assert final["games"] == 3000 and final["blocks"] == 12
    assert len(seen) >= 2 and seen[0]["figures"]["games"] < 3000  # results arrive before the last block
    insulin = next(c for c in final["edited"] if c["name"] == "Insulin")
    assert insulin["pick_rate_pct_diff"] < 0  # three ATP dearer: bought less often
    assert insulin["pick_rate_pct_low"] <= insulin["pick_rate_pct_diff"] <= insulin["pick_rate_pct_high"]
    export = client.post("/api/export", json={"values": {INSULIN: "4"}}).json()
    written = Path(export["config"])
    assert written.is_relative_to((folder / "out").resolve())
    run = _run(written, tmp_path / "exported")
    shares = pd.concat(run.record_parts("players", run.segments[0], ["win_share"])).groupby("seat")["win_share"].mean()
    seats = [h for h in final["headline"] if h["figure"].endswith("win share")]
    np.testing.assert_allclose([h["B"] for h in seats], shares.to_numpy() * 100, rtol=0, atol=1e-9)
    # the baseline side is the config as it is, on the same games
    base = Path(client.post("/api/export", json={"values": {}}).json()["config"])
    run_a = _run(base, tmp_path / "baseline")
    a = pd.concat(run_a.record_parts("players", run_a.segments[0], ["win_share"])).groupby("seat")["win_share"].mean()
    np.testing.assert_allclose([h["A"] for h in seats], a.to_numpy() * 100, rtol=0, atol=1e-9)


def test_a_type_edit_steps_every_card_of_the_type_and_shows_the_types_gaps(studio, tmp_path):
    """`types.detox.atp = +1` in a type's cell: every Detoxification card one ATP dearer (a
    step, not the value 1), its cards all listed as edited, and each type's gap in both sets
    exactly as `simcell compare` of the two exports reports it (the intervals differ: the
    studio's blocks are its own)."""
    session, client, folder = studio
    key = "types.Detoxification.atp"
    setup = client.get("/api/setup").json()
    detox = {c["name"]: c["values"]["atp"] for c in setup["cards"] if c["type"] == "detox"}
    assert next(t for t in setup["types"] if t["name"] == "detox")["cards"] == len(detox) > 1
    assert len({*detox.values()}) > 1  # a step, not one value for all, is what is checked below
    g = client.post("/api/edit", json={"values": {key: "+1"}, "changed": key}).json()["generation"]
    final = _until_done(client, g)[-1]["figures"]
    assert {c["name"] for c in final["edited"]} == set(detox)
    types = {t["type"]: t for t in final["types"]}
    assert types["detox"]["edited"] and not any(t["edited"] for n, t in types.items() if n != "detox")
    for t in types.values():
        assert t["gap_pp_low"] <= t["gap_pp_diff"] <= t["gap_pp_high"]
        assert t["verdict_A"] in ("in band", "out of band", "inconclusive")
    bad = client.post("/api/edit", json={"values": {"types.detoxx.atp": "+1"}, "changed": "types.detoxx.atp"})
    assert bad.status_code == 400 and "Detoxification" in bad.json()["message"]  # the valid names listed

    written = Path(client.post("/api/export", json={"values": {key: "+1"}}).json()["config"])
    base = Path(client.post("/api/export", json={"values": {}}).json()["config"])
    valid = CliRunner().invoke(app, ["validate", str(written)])
    assert valid.exit_code == 0, valid.output
    for name, atp in detox.items():  # echoed card by card
        assert f"card {name!r}: atp {atp} -> {atp + 1}" in valid.output
    out = tmp_path / "compare"
    result = CliRunner().invoke(app, ["compare", "--no-rungs", str(base), str(written), "--out", str(out), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    report = pd.read_csv(out / "tables" / "types.csv").set_index("type")
    for name, t in types.items():
        for col in ("gap_pp_A", "gap_pp_B", "gap_pp_diff"):  # the intervals: the studio's own blocks
            assert t[col] == pytest.approx(report.loc[name, col], abs=1e-9), (name, col)
    assert "Detoxification" in result.output  # the terminal names the type that moved or its gap


def test_a_newer_edit_replaces_the_running_one(studio):
    session, client, _ = studio
    first = client.post("/api/edit", json={"values": {INSULIN: "3"}, "changed": INSULIN}).json()["generation"]
    second = client.post("/api/edit", json={"values": {INSULIN: "2", "rules.turn_order": "rotate",
                                                       "board.goals.first_marker_hp": "4"},
                                            "changed": "rules.turn_order"}).json()["generation"]
    assert second == first + 1
    seen = _until_done(client, second)
    assert seen[-1]["edit"] == {INSULIN: "2", "rules.turn_order": "rotate", "board.goals.first_marker_hp": "4"}
    assert session.current.generation == second and not session.current.flying


def test_the_server_keeps_to_its_folder_and_survives_bad_requests(studio):
    session, client, folder = studio
    assert client.post("/api/edit", content=b"not json",
                       headers={"Content-Type": "application/json"}).status_code == 400
    assert client.post("/api/edit", json={"values": ["a"]}).status_code == 400
    assert client.get("/files/../c.toml").status_code == 404
    assert client.get("/files/%2e%2e/c.toml").status_code == 404
    assert client.get("/api/compare/99").status_code == 400
    assert client.get("/api/setup").status_code == 200  # still serving
    written = {p.resolve() for p in folder.rglob("*") if p.is_file()}
    assert all(p.is_relative_to((folder / "out").resolve()) or p == (folder / "c.toml").resolve() for p in written)


def _exports(folder: Path) -> list[Path]:
    return sorted((folder / "out").glob("exports/export-*"))


@pytest.mark.parametrize("headers", [{"Content-Type": "text/plain"},
                                     {"Content-Type": "application/x-www-form-urlencoded"}, {}],
                         ids=["text/plain", "form", "none"])
def test_a_post_that_is_not_json_is_refused_and_plays_and_writes_nothing(studio, headers):
    """Issue 70: a cross-site page may post a plain-text or form body without asking the browser
    first; the API read any body as JSON, so such a page could start an edit, an export or a
    compare. A POST without the JSON content type is refused (415) before its body is read."""
    session, client, folder = studio
    before, exports = client.get("/api/results").json()["generation"], _exports(folder)
    body = json.dumps({"values": {INSULIN: "3"}, "changed": INSULIN})
    for path in ("/api/edit", "/api/export", "/api/compare"):
        r = client.post(path, content=body, headers=headers)
        assert r.status_code == 415, (path, r.status_code, r.text)
        assert r.json()["key"] == "request" and "application/json" in r.json()["message"]
    assert client.get("/api/results").json()["generation"] == before
    assert _exports(folder) == exports


def test_another_host_or_origin_is_refused_and_plays_nothing(studio):
    """Issue 70: a page on another site (its fetch carries its Origin), or one whose name was
    rebound to this machine (its requests carry its own Host), is refused (403) on every route;
    the page's own address, under the loopback names of a studio served on loopback, is not."""
    session, client, folder = studio
    before, exports = client.get("/api/results").json()["generation"], _exports(folder)
    edit = {"values": {INSULIN: "3"}, "changed": INSULIN}
    for headers in ({"Host": f"evil.example:{PORT}"}, {"Host": f"{HOST}:{PORT + 1}"},
                    {"Host": "evil.example"}):
        for r in (client.get("/api/setup", headers=headers), client.get("/", headers=headers),
                  client.post("/api/edit", json=edit, headers=headers)):
            assert r.status_code == 403, (headers, r.status_code)
            assert r.json()["key"] == "request" and "host" in r.json()["message"]
    for origin in ("http://evil.example", f"http://evil.example:{PORT}", "null",
                   f"https://{HOST}:{PORT}"):
        for path in ("/api/edit", "/api/export", "/api/compare"):
            r = client.post(path, json=edit, headers={"Origin": origin})
            assert r.status_code == 403, (origin, path, r.status_code)
            assert "origin" in r.json()["message"]
    assert client.get("/api/results").json()["generation"] == before
    assert _exports(folder) == exports
    for name in ("localhost", "127.0.0.1", "[::1]", "LOCALHOST"):
        assert client.get("/api/setup", headers={"Host": f"{name}:{PORT}"}).status_code == 200
        assert client.get("/api/setup", headers={"Host": f"{name}:{PORT}",
                                                 "Origin": f"http://{name}:{PORT}"}).status_code == 200
    assert client.get("/").status_code == 200 and "<html" in client.get("/").text.lower()


def test_a_studio_served_beyond_this_machine_answers_its_own_address_only(studio):
    """Served on another address (--host), the studio answers that address and port only: no
    loopback alias, since a page on the designer's machine could rebind a name to it."""
    session, _, _ = studio
    with TestClient(build_app(session, host="192.0.2.7", port=8123),
                    base_url="http://192.0.2.7:8123") as client:
        assert client.get("/api/setup").status_code == 200
        assert client.get("/api/setup", headers={"Origin": "http://192.0.2.7:8123"}).status_code == 200
        assert client.get("/api/setup", headers={"Host": "localhost:8123"}).status_code == 403
        assert client.get("/api/setup", headers={"Host": "192.0.2.7:8765"}).status_code == 403


def test_the_command_warns_when_served_beyond_this_machine(tmp_path):
    """Issue 70: `--host` other than a loopback address serves the studio (which plays games and
    writes files, with no password) to the network: the command says so first."""
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    with socket.socket() as busy:  # the port taken: the command stops after its first words
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(app, ["studio", str(config), "--host", "0.0.0.0", "--port",
                                          str(port), "--out", str(tmp_path / "s")])
        assert result.exit_code == 2
        assert "warning" in result.stderr and "other machines" in result.stderr, result.stderr
        quiet = CliRunner().invoke(app, ["studio", str(config), "--port", str(port), "--out",
                                         str(tmp_path / "s")])
        assert quiet.exit_code == 2 and "warning" not in quiet.stderr, quiet.stderr


@pytest.mark.parametrize("cached", [None, True])
def test_the_command_says_when_it_compiles_the_kernel(tmp_path, monkeypatch, cached):
    """Issue 70: a first studio compiled the kernel in silence. Where numba's cache does not hold
    it (here: cannot tell), the command says so under `simcell run`'s spinner (one line on a
    stderr that is no terminal); a cached kernel is loaded without a word."""
    import simcell.runner.warm as warm
    import simcell.studio.server as server

    served = []
    monkeypatch.setattr(warm, "_cached", lambda dispatcher: cached)
    monkeypatch.setattr(server, "serve", lambda *args, **kwargs: served.append(kwargs["port"]))
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = CliRunner().invoke(app, ["studio", str(config), "--port", str(port), "--workers", "1",
                                      "--games", "200", "--out", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert served == [port]
    assert ("loading (or compiling) the game kernel" in result.stderr) == (cached is None), result.stderr


def test_the_full_compare_report_of_an_edit_is_played_in_the_background(studio):
    from simcell import api

    session, _, folder = studio
    with _client(build_app(session, api.plays(workers=1, quiet=True))) as client:
        state = client.post("/api/compare", json={"values": {INSULIN: "4"}}).json()
        end = time.perf_counter() + 300
        while state["state"] == "playing" and time.perf_counter() < end:
            time.sleep(0.5)
            state = client.get(f"/api/compare/{state['n']}").json()
        assert state["state"] == "done", state
        report = client.get(state["report"])
        assert report.status_code == 200 and "Insulin" in report.text
    differences = pd.read_csv(next((folder / "out" / "exports").glob("export-*/compare/tables/differences.csv")))
    assert list(differences["name"]) == ["Insulin"]


def test_a_dead_worker_is_reported_and_the_next_edit_plays_on_a_fresh_pool(studio):
    session, client, _ = studio
    for process in list(session.pool._processes.values()):
        process.kill()
    g = client.post("/api/edit", json={"values": {INSULIN: "5"}, "changed": INSULIN}).json()["generation"]
    end = time.perf_counter() + 60
    while time.perf_counter() < end and not client.get("/api/results").json()["error"]:
        time.sleep(0.05)
    r = client.get("/api/results").json()
    assert r["error"] and r["generation"] == g and not r["done"]
    g = client.post("/api/edit", json={"values": {INSULIN: "3"}, "changed": INSULIN}).json()["generation"]
    seen = _until_done(client, g)
    assert seen[-1]["figures"]["games"] == 3000 and client.get("/api/results").json()["error"] is None


def test_the_command_refuses_bad_input_in_one_line(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(app, ["studio", str(config), "--port", str(port), "--out", str(tmp_path / "s")])
    assert result.exit_code == 2 and f"127.0.0.1:{port}" in result.output and result.output.count("\n") == 1
    result = CliRunner().invoke(app, ["studio", str(config), "--field", "plannerr", "--port", str(port)])
    assert result.exit_code == 2 and "no field named 'plannerr'" in result.output, result.output


def test_a_baseline_read_from_a_run_directory_pairs_with_its_games(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(CONFIG)
    run = _run(config, tmp_path / "run")
    session = Session(config, tmp_path / "out", games=2000, workers=1, baseline=tmp_path / "run")
    seg = run.segments[0]
    assert session.seed == 7 and 2000 <= session.games < 2000 + 3000 // seg.blocks + 1
    assert len(session.baseline.blocks) == len(session.spans) and session.baseline.finished is not None
    session.start()
    try:
        with _client(build_app(session)) as client:
            g = client.post("/api/edit", json={"values": {INSULIN: "4"}, "changed": INSULIN}).json()["generation"]
            final = _until_done(client, g)[-1]["figures"]
    finally:
        session.close()
    first = pd.concat(run.record_parts("players", seg, ["win_share"]))
    first = first[first["game"] < session.games].groupby("seat")["win_share"].mean()
    seats = [h for h in final["headline"] if h["figure"].endswith("win share")]
    np.testing.assert_allclose([h["A"] for h in seats], first.to_numpy() * 100, rtol=0, atol=1e-9)
    assert final["games"] == session.games
    # another card set's run is refused in one line
    other = tmp_path / "other.toml"
    other.write_text(CONFIG + '[overrides.cards."Insulin"]\natp = 2\n')
    with pytest.raises(ConfigError, match="another game"):
        Session(other, tmp_path / "out2", baseline=tmp_path / "run")


def test_the_documented_example_script_plays_a_what_if(studio):
    """docs/examples/studio_what_if.py, as a designer would copy it: its what_if against the API
    (here through the test client) returns the finished paired figures, and a bad value comes back
    as the config layer's one line."""
    import importlib.util

    path = Path(__file__).parents[1] / "docs" / "examples" / "studio_what_if.py"
    spec = importlib.util.spec_from_file_location("studio_what_if", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    _, client, _ = studio

    def get(p):
        return client.get(p).json()

    def post(p, body):
        return client.post(p, json=body).json()

    results = example.what_if(get, post, {INSULIN: "2"}, timeout=120, poll=0.05)
    assert results["done"] and results["figures"]["games"] == 3000
    lines = example.describe(results)
    assert lines[1].startswith("Insulin: against its type")
    with pytest.raises(ValueError, match="Insulin"):
        example.what_if(get, post, {'cards."Insulinn".atp': "2"})
