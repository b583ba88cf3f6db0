"""The studio's HTTP side (Starlette, served by uvicorn on 127.0.0.1 unless told otherwise): the
page, a JSON API over the session, and the studio folder's files (exports, compare reports).

    GET  /                 the page (page.html)
    GET  /api/setup        the config's card, card type and rule values, player count, field,
                           seed, games
    POST /api/edit         {"values": {key: text}, "changed": key} -> {"generation"} or 400
                           (keys as --set writes them; a type's "+1" steps each of its cards)
                           {"key", "message"}: the config layer's words, nothing played
    GET  /api/results      the baseline's and the edit's progress and the paired figures
    POST /api/export       {"values"} -> the edited set as a card file and a config
    POST /api/compare      {"values"} -> a full `simcell compare` report of the export against
                           the baseline, played in the background; GET /api/compare/N its state
    GET  /files/...        the studio folder, read-only

Every write goes under the studio folder. A request that fails answers with its error; it never
stops the server. Requests to another host or from another site's page, and POSTs that are not
JSON, are refused before they reach a route (studio/guard.py)."""

from __future__ import annotations

import json
import threading
import traceback
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from simcell.config.errors import ConfigError
from simcell.studio.edits import Edit, EditError, export
from simcell.studio.guard import RequestGuard
from simcell.studio.session import Session, finite

HOST = "127.0.0.1"  # this machine only, unless --host says otherwise
PORT = 8765


class Exports:
    """Numbered exports and compare reports under the studio folder."""

    def __init__(self, session: Session, plays):
        self.session, self.plays = session, plays
        self.lock = threading.Lock()
        self.count = 0
        self.compares: dict[int, dict] = {}

    def write(self, values: dict) -> dict:
        s = self.session
        with self.lock:
            self.count += 1
            n = self.count
        folder = s.folder / "exports" / f"export-{n}"
        cards, config = export(s.config, Edit.of(values), folder, players=s.players, games=s.games,
                               seed=s.seed, field=s.field_table)
        return {"n": n, "config": str(config.resolve()), "cards": str(cards.resolve()),
                "files": f"/files/exports/export-{n}/{config.name}",
                "run": f"simcell run {config.resolve()}"}

    def compare(self, values: dict) -> dict:
        """Export the edited set and the baseline (the same games), then play and compare them in
        a background thread."""
        if self.plays is None:
            raise EditError("compare", "this studio was started without a way to play full runs")
        s = self.session
        written = self.write(values)
        n = written["n"]
        folder = s.folder / "exports" / f"export-{n}"
        _, baseline = export(s.config, Edit(()), folder / "baseline", players=s.players, games=s.games,
                             seed=s.seed, field=s.field_table)
        state = {"n": n, "state": "playing", "report": f"/files/exports/export-{n}/compare/report.html",
                 "error": None}
        self.compares[n] = state

        def work():
            from simcell.tools.compare.loop import run_compare

            try:
                run_compare(baseline, Path(written["config"]), folder / "compare", self.plays)
                state["state"] = "done"
            except Exception as exc:  # reported on the page; the server goes on
                state["state"], state["error"] = "failed", f"{type(exc).__name__}: {exc}"

        threading.Thread(target=work, name=f"studio-compare-{n}", daemon=True).start()
        return state


def _page() -> str:
    return resources.files("simcell.studio").joinpath("page.html").read_text(encoding="utf-8")


def build_app(session: Session, plays=None, *, host: str = HOST, port: int = PORT) -> Starlette:
    """The studio's app as served on `host`:`port`, the only address whose requests it answers."""
    exports = Exports(session, plays)

    async def body(request: Request) -> dict:
        try:
            data = json.loads(await request.body() or b"{}")
        except json.JSONDecodeError as exc:
            raise EditError("request", f"not JSON: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("values", {}), dict):
            raise EditError("request", 'expected {"values": {key: text}}')
        return data

    def guarded(handler):
        async def endpoint(request: Request):
            try:
                return JSONResponse(finite(await handler(request)))
            except EditError as exc:
                return JSONResponse({"key": exc.key, "message": exc.message}, status_code=400)
            except ConfigError as exc:
                return JSONResponse({"key": exc.key or "config", "message": str(exc)}, status_code=400)
            except Exception as exc:  # one request's failure, never the server's
                traceback.print_exc()
                return JSONResponse({"key": "server", "message": f"{type(exc).__name__}: {exc}"},
                                    status_code=500)
        return endpoint

    async def page(request: Request):
        return HTMLResponse(_page())

    async def setup(request: Request):
        return session.baseline_values()

    async def edit(request: Request):
        data = await body(request)
        values = {str(k): str(v) for k, v in data.get("values", {}).items()}
        changed = data.get("changed")
        generation = await run_in_threadpool(session.edit, values, str(changed) if changed is not None else None)
        return {"generation": generation}

    async def results(request: Request):
        return await run_in_threadpool(session.results)

    async def do_export(request: Request):
        data = await body(request)
        return await run_in_threadpool(exports.write, {str(k): str(v) for k, v in data.get("values", {}).items()})

    async def compare(request: Request):
        data = await body(request)
        return await run_in_threadpool(exports.compare, {str(k): str(v) for k, v in data.get("values", {}).items()})

    async def compare_state(request: Request):
        n = int(request.path_params["n"])
        if n not in exports.compares:
            raise EditError("compare", f"no comparison {n}")
        return exports.compares[n]

    session.folder.mkdir(parents=True, exist_ok=True)
    routes = [
        Route("/", page),
        Route("/api/setup", guarded(setup)),
        Route("/api/edit", guarded(edit), methods=["POST"]),
        Route("/api/results", guarded(results)),
        Route("/api/export", guarded(do_export), methods=["POST"]),
        Route("/api/compare", guarded(compare), methods=["POST"]),
        Route("/api/compare/{n:int}", guarded(compare_state)),
        Mount("/files", app=StaticFiles(directory=session.folder, html=True), name="files"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(RequestGuard, host=host, port=port)])


def serve(session: Session, plays=None, *, host: str = HOST, port: int = PORT, ready=None) -> None:
    """Serve until interrupted (uvicorn handles Ctrl-C); `ready(url)` is called once listening."""
    import uvicorn

    config = uvicorn.Config(build_app(session, plays, host=host, port=port), host=host, port=port,
                            log_level="warning")
    server = uvicorn.Server(config)
    if ready is not None:
        original = server.startup

        async def startup(*args, **kwargs):
            await original(*args, **kwargs)
            ready(f"http://{host}:{port}/")

        server.startup = startup
    server.run()
