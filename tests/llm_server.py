"""A scripted OpenAI-compatible server on 127.0.0.1 for the ``llm`` agent's tests and benchmark.

``LLMServer`` is a real HTTP server with ``GET /v1/models`` and ``POST /v1/chat/completions``:
a minimal HTTP/1.1 server (keep-alive, ``Content-Length`` bodies) on ``asyncio.start_server``,
its event loop on a daemon thread, so a request costs little CPU and a wait (``delay``) costs
none (the benchmark shares the machine with the client).  Its answers read only the prompt:

* ``policy="prompt"``: a legal action picked from the listed legal actions (the text before
  the gloss of each ``- action: gloss`` line) by a hash of the whole conversation, so the same
  prompt always gets the same answer (like a model at temperature 0);
* ``policy="sampled"``: the hash also covers the request's serial number, so asking again gives
  another answer (like a sampled model): only the cache makes a rerun identical;
* or a callable ``messages -> str``.

``faults(n, messages, tries)`` (``n`` the request's serial number, ``tries`` how many times this
exact conversation was asked before) returns None, a fault name, or ``("answer", text)`` to
answer ``text``.  Faults: ``malformed`` (prose naming no action), ``empty`` (an empty answer),
``500``, ``429`` (with ``Retry-After: RETRY_AFTER``), ``slow`` (answers after ``slow_seconds``),
``truncated`` (a response whose JSON body is cut in half), ``drop`` (closes the connection).
``delay`` makes every answer wait that long (the benchmark's 50 ms).  With ``key`` set, a
request without ``Authorization: Bearer <key>`` gets HTTP 401.  Every chat request is kept in
``requests`` (serial, fault, messages); ``in_flight_seen`` holds how many requests were being
answered when each arrived (the client's effective concurrency).  A request whose target is an
absolute URL (``POST http://host/v1/...``, how a client talks to a forward proxy) is answered
as if for its path and counted in ``proxied``: pointed to by ``HTTP_PROXY``, the server stands
in for a proxy in front of any host.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import threading
import urllib.parse
from collections import Counter
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

RETRY_AFTER = "0.05"
MODEL = "test-model"
Fault = Callable[[int, list[dict], int], Any]


def listed_actions(messages: list[dict]) -> list[str]:
    """The legal actions listed in the conversation's last prompt that lists them."""
    for m in reversed(messages):
        text = m.get("content") or ""
        if m.get("role") == "user" and "Your legal actions:" in text:
            tail = text.split("Your legal actions:", 1)[1]
            return [line[2:].split(": ", 1)[0].strip() for line in tail.splitlines()
                    if line.startswith("- ")]
    return []


def digest(*parts: Any) -> int:
    """A stable integer hash of ``parts``."""
    return blob_digest(json.dumps(parts, sort_keys=True, ensure_ascii=False))


def blob_digest(blob: str) -> int:
    """The integer hash of an already serialised ``digest`` argument list."""
    return int.from_bytes(hashlib.sha256(blob.encode()).digest()[:8], "big")


def salted(blob: str, salt: int) -> str:
    """The serialisation of ``(*parts, salt)`` from that of ``parts`` (``json.dumps`` of a tuple is
    a list: one more item before the closing bracket), so one prompt is serialised once."""
    return f"{blob[:-1]}, {salt}]"


class LLMServer:
    """The scripted server (module docstring); a context manager that starts and stops it."""

    def __init__(self, policy: str | Callable[[list[dict]], str] = "prompt",
                 faults: Fault | None = None, models: tuple[str, ...] = (MODEL,),
                 key: str | None = None, delay: float = 0.0, slow_seconds: float = 1.0,
                 list_models: bool = True):
        self.policy, self.faults, self.models = policy, faults, models
        self.key, self.delay, self.slow_seconds = key, delay, slow_seconds
        self.list_models = list_models
        self.hold: Callable[[], bool] | None = None   # answers wait while this says True
        self.requests: list[dict] = []
        self.asked: Counter[int] = Counter()
        self.in_flight = 0          # chat requests being answered now
        self.in_flight_seen: list[int] = []   # requests in flight when each one arrived
        self.proxied = 0            # requests sent to this server as to a forward proxy
        self.lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    # ------------------------------------------------------------------ life
    def start(self) -> LLMServer:
        """Listen on a free port of 127.0.0.1 (the event loop on a daemon thread)."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="llm-test-server")
        self._thread.start()
        listen = asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024)
        self._server = asyncio.run_coroutine_threadsafe(listen, self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        """Stop listening and close every open connection."""
        loop, server = self._loop, self._server
        if loop is None or server is None:
            return

        async def close() -> None:
            server.close()
            for w in list(self._writers):
                w.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close(), loop).result(timeout=5)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        with contextlib.suppress(Exception):
            loop.close()
        self._loop = self._server = self._thread = None

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on."""
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        """The agent's ``base_url``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_calls(self) -> int:
        """Chat requests received."""
        return len(self.requests)

    # ------------------------------------------------------------------ answers
    def answer(self, messages: list[dict], n: int, blob: str | None = None) -> str:
        """The policy's answer to ``messages`` (request serial ``n``; ``blob`` the messages'
        ``digest`` serialisation when already made)."""
        if callable(self.policy):
            return self.policy(messages)
        legal = listed_actions(messages)
        if not legal:
            return "I would rather not say."
        salt = n if self.policy == "sampled" else 0
        if blob is None:
            blob = json.dumps((messages,), sort_keys=True, ensure_ascii=False)
        return legal[blob_digest(salted(blob, salt)) % len(legal)]

    # ------------------------------------------------------------------ HTTP
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection: requests one after another until the client closes it."""
        self._writers.add(writer)
        try:
            while True:
                request = await read_request(reader)
                if request is None:
                    break
                method, path, headers, body = request
                if not await self._respond(writer, method, path, headers, body):
                    break
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def _respond(self, writer: asyncio.StreamWriter, method: str, path: str,
                       headers: dict[str, str], body: bytes) -> bool:
        """Answer one request; False when the connection is to be closed."""
        if self.key is not None and headers.get("authorization") != f"Bearer {self.key}":
            return await send(writer, 401, {"error": {"message": "invalid or missing API key"}})
        if path.startswith(("http://", "https://")):
            self.proxied += 1
            path = urllib.parse.urlsplit(path).path
        route = path.rstrip("/")
        if method == "GET" and route == "/v1/models" and self.list_models:
            return await send(writer, 200, {"object": "list", "data": [
                {"id": m, "object": "model"} for m in self.models]})
        if method != "POST" or route != "/v1/chat/completions":
            return await send(writer, 404, {"error": {"message": f"no route {path}"}})
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            return await send(writer, 400, {"error": {"message": "the body is not JSON"}})
        if request.get("model") not in self.models:
            return await send(writer, 404, {"error": {
                "message": f"model {request.get('model')!r} not found"}})
        return await self._chat(writer, request)

    async def _chat(self, writer: asyncio.StreamWriter, request: dict) -> bool:
        """A chat completion, its fault, its delay."""
        messages = request.get("messages", [])
        blob = json.dumps((messages,), sort_keys=True, ensure_ascii=False)
        with self.lock:
            n = len(self.requests)
            h = blob_digest(blob)
            tries = self.asked[h]
            self.asked[h] += 1
            fault = self.faults(n, messages, tries) if self.faults else None
            self.requests.append({"n": n, "fault": fault, "messages": messages})
            self.in_flight += 1
            self.in_flight_seen.append(self.in_flight)
        try:
            while self.hold is not None and self.hold():
                await asyncio.sleep(0.01)
            if self.delay:
                await asyncio.sleep(self.delay)
            return await self._reply(writer, fault, messages, n, request, blob)
        finally:
            with self.lock:
                self.in_flight -= 1

    async def _reply(self, writer: asyncio.StreamWriter, fault: Any, messages: list[dict], n: int,
                     request: dict, blob: str) -> bool:
        if fault == "500":
            return await send(writer, 500, {"error": {"message": "internal error"}})
        if fault == "429":
            return await send(writer, 429, {"error": {"message": "slow down"}},
                              {"Retry-After": RETRY_AFTER})
        if fault == "drop":
            return False
        if fault == "slow":
            await asyncio.sleep(self.slow_seconds)
        if isinstance(fault, tuple) and fault[0] == "answer":
            answer = fault[1]
        elif fault == "malformed":
            answer = "Hmm, the odds look interesting here; let me think about it."
        elif fault == "empty":
            answer = ""
        else:
            answer = self.answer(messages, n, blob)
        prompt_chars = sum(len(m.get("content") or "") for m in messages)
        return await send(writer, 200, {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "model": request.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(answer) // 4 + 1,
                      "total_tokens": prompt_chars // 4 + len(answer) // 4 + 1}},
            cut=fault == "truncated")


MAX_HEAD = 64 * 1024   # the longest request line and headers read


async def read_request(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str], bytes] | None:
    """One HTTP/1.1 request (method, path, lower-cased headers, body); None when the client
    closed the connection between requests."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if not e.partial.strip():
            return None
        raise
    if len(head) > MAX_HEAD:
        raise ValueError("request head too long")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length") or 0)
    body = await reader.readexactly(length) if length else b""
    return method, path, headers, body


async def send(writer: asyncio.StreamWriter, status: int, payload: Any,
               headers: dict[str, str] | None = None, cut: bool = False) -> bool:
    """Write one JSON response (``cut``: its body cut in half, a truncated JSON the length of
    which matches); True (the connection stays open) unless the client went away."""
    body = json.dumps(payload).encode()
    if cut:
        body = body[:len(body) // 2]
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{extra}\r\n").encode("latin-1")
    try:
        writer.write(head + body)
        await writer.drain()
    except (OSError, RuntimeError):   # the client gave up (a timeout)
        return False
    return True
