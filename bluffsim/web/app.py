"""The web app of ``bluffsim serve``: a Starlette application over ``WebGame`` s.

| route | what it does |
|---|---|
| ``GET /`` | the start page: the table, the rules, a *New game* button |
| ``POST /new`` | deals the next game and redirects to its page (303) |
| ``GET /game/{id}`` | the game's page (plain HTML and JavaScript, ``static/``) |
| ``GET /api/game/{id}`` | the human's view as JSON (``WebGame.view``); claims the game for the tab |
| ``POST /api/game/{id}/claim`` | the tab takes the game over from another tab |
| ``POST /api/game/{id}/move`` | ``{"decision": n, "action": id}`` or ``{"decision": n, "answer": text}`` |
| ``GET /static/...`` | the page's script and style sheet |

Each tab sends its own id (``X-Bluffsim-Tab``, kept in the tab's ``sessionStorage``): the tab
that opened a game last plays it, a move from another tab is refused with a message, and a move
made on a page showing an earlier decision is refused too, so two tabs on one game can never
both move.  A game id is a random token: knowing one game's page gives no other game's.
A refused request answers ``{"error": message}`` with a 4xx status and changes nothing; an
unexpected failure answers 500 with the error in words and the server goes on.
"""

from __future__ import annotations

import html
import json
import secrets
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import bluffsim
from bluffsim.api import BluffsimError
from bluffsim.text import protocol_for
from bluffsim.web.record import ResultsDir
from bluffsim.web.table import MoveError, WebGame, rules_text

STATIC = Path(__file__).parent / "static"
TAB_HEADER = "x-bluffsim-tab"
MAX_BODY = 16_384      # bytes of a move request


class Tables:
    """The games of one server, by id, and the results dir they are written to."""

    def __init__(self, setup: Any):
        self.setup = setup
        self.results = ResultsDir(setup)
        self.games: dict[str, WebGame] = {}
        self.lock = threading.Lock()

    def new_game(self, state: Any = None, seed: int = 0) -> WebGame:
        """Deal the next game; or, given ``state``, a game of that scripted deal whose agents
        draw from ``seed`` (numbered -1 and never recorded: its seed does not deal it)."""
        number = self.results.new_game() if state is None else -1
        if state is None:
            seed = self.setup.seed_of(number)
        game = WebGame(self.setup, number, secrets.token_urlsafe(12), seed, state)
        with self.lock:
            self.games[game.gid] = game
        return game

    def get(self, gid: str) -> WebGame:
        """The game ``gid``; ``MoveError`` 404 when there is none."""
        game = self.games.get(gid)
        if game is None:
            raise MoveError(404, "no such game on this server (it may have been started by an "
                                 "earlier run of bluffsim serve): start a new game")
        return game

    def save(self, game: WebGame) -> None:
        """Write a game that just ended to the results dir (once); a failure is said on the page
        and the server goes on."""
        if not game.over or game.saved or not game.recorded:
            return
        try:
            game.saved = self.results.write(game.number, game.seed, game.actions,
                                            game.decisions, [int(p) for p in game.state.placements],
                                            game.seconds())
            print(f"bluffsim serve: game {game.number}: {game.result()['result']}; {game.saved}",
                  flush=True)
        except (BluffsimError, OSError) as e:
            game.saved = f"the game could not be saved: {e}"
            print(f"bluffsim serve: game {game.number}: {game.saved}", file=sys.stderr)

    def view(self, gid: str, tab: str, claim: bool = False) -> dict[str, Any]:
        """The view of game ``gid`` for tab ``tab`` (a game nobody holds is given to it; with
        ``claim`` it is taken over from another tab)."""
        game = self.get(gid)
        with game.lock:
            if claim or game.owner is None:
                game.claim(tab)
            elif game.owner != tab:
                raise MoveError(409, "this game is open in another tab (one game per tab): play "
                                     "it there, or take it over here")
            return game.view()

    def move(self, gid: str, tab: str, body: dict[str, Any]) -> dict[str, Any]:
        """Play the human's move of ``body`` in game ``gid`` and return the new view."""
        game = self.get(gid)
        decision, action, answer = move_fields(body)
        with game.lock:
            game.move(tab, decision, action, answer)
            self.save(game)
            return game.view()


def move_fields(body: Any) -> tuple[int | None, int | None, str | None]:
    """``(decision, action, answer)`` of a move request's JSON; ``MoveError`` 400 when it is not
    one."""
    if not isinstance(body, dict):
        raise MoveError(400, "a move is a JSON object: {\"decision\": n, \"action\": id} or "
                             "{\"decision\": n, \"answer\": \"text\"}")
    decision, action, answer = body.get("decision"), body.get("action"), body.get("answer")
    for key, value in (("decision", decision), ("action", action)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise MoveError(400, f"{key} must be an integer, not {value!r}")
    if answer is not None and not isinstance(answer, str):
        raise MoveError(400, f"answer must be text, not {answer!r}")
    return decision, action, answer


# ---------------------------------------------------------------- pages
def page(name: str, **values: str) -> str:
    """The static page ``name`` with its ``{{key}}`` slots filled (values are HTML-escaped)."""
    text = (STATIC / name).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"{{{{{key}}}}}", html.escape(value))
    return text


def page_values(tables: Tables) -> dict[str, str]:
    """What the pages show of the server's table: title, seats and rules."""
    setup = tables.setup
    vec = bluffsim.make(setup.game, setup.players, **setup.rules)
    return {"title": f"{bluffsim.spec(setup.game).name} ({setup.game})", "table": setup.describe(),
            "rules": rules_text(protocol_for(vec, list_legal=False))}


def create_app(tables: Tables) -> Starlette:
    """The Starlette application serving ``tables`` (module docstring)."""
    values = page_values(tables)

    async def index(request: Request) -> Response:
        return HTMLResponse(page("index.html", **values))

    async def new(request: Request) -> Response:
        game = await run_in_threadpool(tables.new_game)
        return RedirectResponse(f"/game/{game.gid}", status_code=303)

    async def game_page(request: Request) -> Response:
        gid = request.path_params["gid"]
        if gid not in tables.games:
            return HTMLResponse(page("missing.html", **values), status_code=404)
        return HTMLResponse(page("game.html", gid=gid, **values))

    async def state(request: Request) -> Response:
        return await answer(lambda: tables.view(request.path_params["gid"], tab_of(request)))

    async def claim(request: Request) -> Response:
        return await answer(lambda: tables.view(request.path_params["gid"], tab_of(request), True))

    async def move(request: Request) -> Response:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            return JSONResponse({"error": "the move request is too long"}, status_code=413)
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            return JSONResponse({"error": "a move is a JSON object"}, status_code=400)
        return await answer(lambda: tables.move(request.path_params["gid"], tab_of(request), body))

    routes = [
        Route("/", index), Route("/new", new, methods=["POST"]),
        Route("/game/{gid}", game_page), Route("/api/game/{gid}", state),
        Route("/api/game/{gid}/claim", claim, methods=["POST"]),
        Route("/api/game/{gid}/move", move, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.tables = tables
    return app


def tab_of(request: Request) -> str:
    """The requesting tab's id (``X-Bluffsim-Tab``; "" when the request sends none)."""
    return request.headers.get(TAB_HEADER, "")[:100]


async def answer(work: Callable[[], dict[str, Any]]) -> Response:
    """Run ``work`` in a worker thread and answer its view as JSON, or its refusal."""
    try:
        return JSONResponse(await run_in_threadpool(work), headers={"Cache-Control": "no-store"})
    except MoveError as e:
        return JSONResponse({"error": str(e)}, status_code=e.status)
    except Exception as e:  # a bug must not stop the other games: say it, keep serving
        traceback.print_exc(file=sys.stderr)
        return JSONResponse({"error": f"internal error ({type(e).__name__}: {e}); see the "
                                      "server's output"}, status_code=500)
