"""Running the app: warming the kernels up, then uvicorn on a socket bound before anything else.

The socket is bound first (``setup.bind``), so a port in use is a one-line error before any
work; then a throwaway game is played through every path a real one takes (agents, the page's
view, the fast engine's replay of the results), so numba compiles before the first page is
served (``COMPILING`` is said when it must), never in the middle of a game.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections.abc import Iterator

import uvicorn

import bluffsim
from bluffsim import kernel_cache
from bluffsim.kernel_cache import COMPILING
from bluffsim.play import agents_cold
from bluffsim.web.app import Tables, create_app
from bluffsim.web.record import game_tables
from bluffsim.web.setup import ServeSetup
from bluffsim.web.table import WebGame

WARM_UP_MOVES = 2000     # human moves of the throwaway game at most


def warm_up(setup: ServeSetup) -> None:
    """Play a throwaway game (the human's moves cycling through the legal ones) and replay it
    on the fast engine, compiling what is not in numba's cache (module docstring)."""
    vec = bluffsim.make(setup.game, setup.players, **setup.rules)
    names = [s.name for s in setup.opponents]
    if not agents_cold(vec, names) and not all(kernel_cache.cached(d)
                                               for d in kernel_cache.entry_kernels(vec)):
        print(COMPILING, file=sys.stderr, flush=True)
    seed = setup.seed_of(0)
    game = WebGame(setup, 0, "warm-up", seed)    # compiles the agents first when they are cold
    for k in range(WARM_UP_MOVES):
        if game.over:
            break
        view = game.view()
        game.move("", view["decision"], action=view["actions"][k % len(view["actions"])]["id"])
    if game.over:
        game_tables(setup.experiment(1), 0, seed, game.actions, game.decisions)


def url_of(sock: socket.socket) -> str:
    """``http://host:port/`` of a listening socket."""
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


class Server:
    """The app of ``setup`` on the listening socket ``sock`` (``run`` blocks; ``thread`` serves
    from a background thread, for tests and notebooks)."""

    def __init__(self, setup: ServeSetup, sock: socket.socket):
        self.tables = Tables(setup)
        self.app = create_app(self.tables)
        self.sock = sock
        self.url = url_of(sock)
        self.uvicorn = uvicorn.Server(uvicorn.Config(self.app, log_level="warning",
                                                     access_log=False, lifespan="off"))

    def run(self) -> None:
        """Serve until stopped (Ctrl-C, or ``stop``)."""
        self.uvicorn.run(sockets=[self.sock])

    def stop(self) -> None:
        """Ask the server to finish its requests and stop."""
        self.uvicorn.should_exit = True


@contextlib.contextmanager
def serving(setup: ServeSetup, sock: socket.socket) -> Iterator[Server]:
    """A ``Server`` running in a background thread for the ``with`` body, then stopped."""
    server = Server(setup, sock)
    thread = threading.Thread(target=server.run, name="bluffsim-serve", daemon=True)
    thread.start()
    try:
        while not server.uvicorn.started and thread.is_alive():
            threading.Event().wait(0.01)
        yield server
    finally:
        server.stop()
        thread.join(timeout=10)
        sock.close()

