"""The HTTP side of the ``llm`` agent: chat-completion POSTs in a process of their own.

An ``llm`` seat's process renders prompts and parses answers; the requests themselves (``aiohttp``
on an asyncio loop, a few hundred microseconds of Python each) run in a child process started on
first use (``spawn``, so it is safe beside threads and numba), so that work runs on another core
instead of holding the seat's GIL.  The child imports only the standard library and ``aiohttp``.

``ChatClient.shared()`` is the one client of the calling process (a forked worker starts its
own).  ``send(requests, policy)`` hands it a chunk of ``Request`` s and returns a chunk id at
once; ``results(ids, block)`` returns the chunks that have come back, each a list of
``Outcome`` s in request order.  The child keeps one ``aiohttp`` session per (connections,
timeout), at most ``connections`` requests in flight on it.

Per request the child retries a transport error, a timeout, HTTP 429, a 5xx or an unreadable
body (truncated JSON) up to ``policy.retries`` times, after ``BACKOFF * 2**k`` seconds (at most
``BACKOFF_CAP``) or after the server's ``Retry-After`` (at most ``RETRY_AFTER_CAP``); other 4xx
are not retried.  What still fails comes back as an ``Outcome`` with ``failed`` set and the reason
in words; the agent turns it into its one-line error.  Nothing is stored by the child: the API
key travels only in the request headers.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

BACKOFF = 0.5            # seconds before the first retry; doubled each time
BACKOFF_CAP = 30.0       # the longest wait between retries without a Retry-After
RETRY_AFTER_CAP = 120.0  # the longest Retry-After honoured


@dataclass(frozen=True)
class Target:
    """Where a chunk's requests go: the URL, the headers and the proxy (None: direct)."""

    url: str
    headers: dict[str, str]
    proxy: str | None = None


@dataclass(frozen=True)
class Policy:
    """How a chunk's requests are sent: the session's connections and timeout, and retries."""

    connections: int
    timeout: float
    retries: int


@dataclass
class Outcome:
    """What became of one request: the answer and its meta, or ``failed`` (``"retries"``: still
    failing after the retries; ``"status"``: a 4xx that is not retried) with ``reason``."""

    answer: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    failed: str = ""
    reason: str = ""
    retries: int = 0


class Retryable(Exception):
    """A failure worth another try, with the server's ``Retry-After`` wait when it sent one."""

    def __init__(self, why: str, wait: float | None = None):
        super().__init__(why)
        self.wait = wait


class NotRetried(Exception):
    """An HTTP error that another try would not fix (a 4xx other than 429)."""


# ---------------------------------------------------------------------- the parent's handle
class ChatClient:
    """The calling process's handle on its HTTP child process (module docstring)."""

    _shared: ChatClient | None = None

    def __init__(self) -> None:
        mine, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bluffsim.chat_client", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        self.conn = Connection(mine.detach())
        self.pid = os.getpid()
        self.next_id = 0
        self.arrived: dict[int, list[Outcome]] = {}
        self.lock = threading.Lock()

    @classmethod
    def shared(cls) -> ChatClient:
        """This process's client, started on first use (again after a fork or a crash)."""
        client = cls._shared
        if client is None or client.pid != os.getpid() or client.process.poll() is not None:
            client = cls._shared = cls()
        return client

    def send(self, target: Target, bodies: list[bytes], policy: Policy) -> int:
        """Hand a chunk of POSTs to the child; its id."""
        with self.lock:
            self.next_id += 1
            self.conn.send((self.next_id, target, bodies, policy))
            return self.next_id

    def results(self, ids: list[int], block: bool) -> dict[int, list[Outcome]]:
        """The chunks among ``ids`` that have come back (``block``: wait until one has);
        ``ConnectionError`` when the child has ended."""
        with self.lock:
            while True:
                while self.conn.poll(0):
                    self._receive()
                done = {i: self.arrived.pop(i) for i in ids if i in self.arrived}
                if done or not block or not ids:
                    return done
                if not self.conn.poll(1.0) and self.process.poll() is not None:
                    raise ConnectionError(f"the HTTP client process ended (exit code "
                                          f"{self.process.returncode})")

    def _receive(self) -> None:
        try:
            chunk_id, outcomes = self.conn.recv()
        except (EOFError, OSError):
            raise ConnectionError(f"the HTTP client process ended (exit code "
                                  f"{self.process.poll()})") from None
        self.arrived[chunk_id] = outcomes

    def close(self) -> None:
        """Stop the child (its connections close with it)."""
        try:
            self.conn.send(None)
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.conn.close()
        if ChatClient._shared is self:
            ChatClient._shared = None


# ---------------------------------------------------------------------- the child
def serve(conn: Connection) -> None:
    """The child's main: read chunks from ``conn``, answer each when all its requests are
    done, until told to stop (None) or the parent goes away.  Ctrl-C is the parent's to handle
    (it then closes the connection)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(Server(conn).run())


class Server:
    """The child's event loop: one task per chunk, one ``aiohttp`` session per policy."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.sessions: dict[tuple[int, float], Any] = {}
        self.tasks: set[asyncio.Task] = set()
        self.stopped = asyncio.Event()

    async def run(self) -> None:
        """Serve until stopped, then cancel what is in flight and close the sessions."""
        loop = asyncio.get_running_loop()
        loop.add_reader(self.conn.fileno(), self._readable)
        await self.stopped.wait()
        loop.remove_reader(self.conn.fileno())
        for task in self.tasks:
            task.cancel()
        for session in self.sessions.values():
            await session.close()

    def _readable(self) -> None:
        try:
            while self.conn.poll(0):
                message = self.conn.recv()
                if message is None:
                    self.stopped.set()
                    return
                task = asyncio.get_running_loop().create_task(self._chunk(*message))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
        except (EOFError, OSError):        # the parent is gone
            self.stopped.set()

    async def _chunk(self, chunk_id: int, target: Target, bodies: list[bytes],
                     policy: Policy) -> None:
        session = self._session(policy)
        outcomes = await asyncio.gather(*(post(session, target, b, policy) for b in bodies))
        try:
            self.conn.send((chunk_id, list(outcomes)))
        except OSError:
            self.stopped.set()

    def _session(self, policy: Policy) -> Any:
        import aiohttp

        key = (policy.connections, policy.timeout)
        if key not in self.sessions:
            self.sessions[key] = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=policy.connections,
                                               limit_per_host=policy.connections),
                timeout=aiohttp.ClientTimeout(total=policy.timeout),
                headers={"User-Agent": f"bluffsim-llm (aiohttp/{aiohttp.__version__})"})
        return self.sessions[key]


async def post(session: Any, target: Target, body: bytes, policy: Policy) -> Outcome:
    """One chat completion with retries (module docstring)."""
    start, retries = time.perf_counter(), 0
    while True:
        try:
            answer, meta = await attempt(session, target, body)
        except NotRetried as e:
            return Outcome(failed="status", reason=str(e), retries=retries)
        except Retryable as e:
            if retries >= policy.retries:
                return Outcome(failed="retries", reason=str(e), retries=retries)
            wait = e.wait if e.wait is not None else min(BACKOFF_CAP, BACKOFF * 2 ** retries)
            retries += 1
            await asyncio.sleep(wait)
            continue
        meta.update(latency=round(time.perf_counter() - start, 6), retries=retries)
        return Outcome(answer=answer, meta=meta, retries=retries)


async def attempt(session: Any, target: Target, body: bytes) -> tuple[str, dict[str, Any]]:
    """One POST: the answer and its meta; ``Retryable`` or ``NotRetried`` when there is none."""
    import aiohttp

    try:
        async with session.post(target.url, data=body, proxy=target.proxy, headers={
                **target.headers, "Content-Type": "application/json"}) as r:
            status, content = r.status, await r.read()
            wait = retry_after(r.headers.get("Retry-After"))
    except (TimeoutError, aiohttp.ClientError, OSError) as e:
        raise Retryable(transport_reason(e)) from None
    if status == 429 or status >= 500:
        raise Retryable(f"HTTP {status}", wait)
    if status >= 400:
        raise NotRetried(f"HTTP {status}: " + content[:400].decode("utf-8", "replace")[:200].strip())
    try:
        data = json.loads(content)
        choice = data["choices"][0]
        answer = choice["message"].get("content") or ""
        usage = data.get("usage") or {}
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise Retryable("the response is not a chat completion (truncated or malformed "
                        "JSON)") from None
    return str(answer), {"tokens_in": int(usage.get("prompt_tokens") or 0),
                         "tokens_out": int(usage.get("completion_tokens") or 0),
                         "cached": False,
                         "finish_reason": str(choice.get("finish_reason") or "")}


def transport_reason(e: object) -> str:
    """A transport failure in a few words: its class name and first line (e.g. ``TimeoutError``,
    ``ConnectionRefusedError: [Errno 111] Connection refused``)."""
    first = str(e).strip().splitlines()
    name = type(e).__name__ if isinstance(e, BaseException) else "error"
    return name + (f": {first[0][:160]}" if first and first[0] else "")


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date), capped at
    ``RETRY_AFTER_CAP``; None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, min(RETRY_AFTER_CAP, seconds))


if __name__ == "__main__":
    # the child runs the code of bluffsim.chat_client, not of __main__, so that what it sends
    # back unpickles in the parent
    from bluffsim import chat_client

    chat_client.serve(Connection(int(sys.argv[1])))
