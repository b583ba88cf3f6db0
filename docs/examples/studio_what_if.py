"""A what-if against a running `simcell studio` from a script: one card one ATP dearer, the
paired figures once every block has played, the card's change printed with its interval.

    simcell studio configs/5p.toml            # in one terminal (http://127.0.0.1:8765/)
    python docs/examples/studio_what_if.py    # in another: Insulin at 2 ATP, what moved

Standard library only. `what_if` takes any `get(path)` and `post(path, body)` returning JSON, so
the same function runs against the server over HTTP (below) or in a test client."""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request

URL = "http://127.0.0.1:8765"


def http(url: str = URL):
    """get and post over HTTP; an error answer (400: a bad value) comes back as its JSON."""
    def call(path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url + path, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return json.loads(exc.read()) | {"status": exc.code}
    return (lambda path: call(path)), call


def what_if(get, post, values: dict[str, str], timeout: float = 600.0, poll: float = 0.5) -> dict:
    """Play `values` (keys as `simcell sweep --set` writes them) against the studio's baseline on
    the same games and return the finished results (the last response of /api/results)."""
    answer = post("/api/edit", {"values": values, "changed": next(iter(values))})
    if "generation" not in answer:
        raise ValueError(f"{answer['key']}: {answer['message']}")  # the config layer's one line
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        results = get("/api/results")
        if results["error"]:
            raise RuntimeError(results["error"])
        if results["generation"] == answer["generation"] and results["done"] and results["figures"]:
            return results
        time.sleep(poll)
    raise TimeoutError(f"the edit did not finish in {timeout:.0f} s")


def describe(results: dict) -> list[str]:
    """One line per edited card and per card type that moved."""
    f = results["figures"]
    lines = [f"{f['games']:,} paired games, rho = {f['rho']:.2f}"]
    for c in f["edited"]:
        lines.append(f"{c['name']}: against its type {c['contrast_pp_A']:+.2f} -> {c['contrast_pp_B']:+.2f} pp, "
                     f"B - A {c['contrast_pp_diff']:+.2f} ({c['contrast_pp_low']:+.2f} to {c['contrast_pp_high']:+.2f})")
    for t in f["types"]:
        if t["moved"]:
            lines.append(f"{t['label']} moved: {t['gap_pp_A']:+.2f} -> {t['gap_pp_B']:+.2f} pp")
    return lines


if __name__ == "__main__":
    get, post = http(sys.argv[1] if len(sys.argv) > 1 else URL)
    setup = get("/api/setup")
    print(f"studio: {setup['players']} players, field {setup['field']}, {setup['games']:,} games")
    print("\n".join(describe(what_if(get, post, {'cards."Insulin".atp': "2"}))))
