"""A scripted OpenAI-compatible server on 127.0.0.1 for the ``llm`` agent's tests and benchmark.

``LLMServer`` is a real HTTP server (stdlib ``ThreadingHTTPServer``, HTTP/1.1 keep-alive) with
``GET /v1/models`` and ``POST /v1/chat/completions``.  Its answers read only the prompt:

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
answered when each arrived (the client's effective concurrency).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "big")


class LLMServer:
    """The scripted server (module docstring); a context manager that starts and stops it."""

    def __init__(self, policy: str | Callable[[list[dict]], str] = "prompt",
                 faults: Fault | None = None, models: tuple[str, ...] = (MODEL,),
                 key: str | None = None, delay: float = 0.0, slow_seconds: float = 1.0,
                 list_models: bool = True):
        self.policy, self.faults, self.models = policy, faults, models
        self.key, self.delay, self.slow_seconds = key, delay, slow_seconds
        self.list_models = list_models
        self.requests: list[dict] = []
        self.asked: Counter[int] = Counter()
        self.in_flight = 0          # chat requests being answered now
        self.in_flight_seen: list[int] = []   # requests in flight when each one arrived
        self.lock = threading.Lock()
        self.httpd: ThreadingHTTPServer | None = None

    # ------------------------------------------------------------------ life
    def start(self) -> LLMServer:
        """Listen on a free port of 127.0.0.1 (in a daemon thread)."""
        server = self

        class Handler(ChatHandler):
            owner = server

        self.httpd = Listener(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on."""
        assert self.httpd is not None
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        """The agent's ``base_url``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_calls(self) -> int:
        """Chat requests received."""
        return len(self.requests)

    # ------------------------------------------------------------------ answers
    def answer(self, messages: list[dict], n: int) -> str:
        """The policy's answer to ``messages`` (request serial ``n``)."""
        if callable(self.policy):
            return self.policy(messages)
        legal = listed_actions(messages)
        if not legal:
            return "I would rather not say."
        salt = n if self.policy == "sampled" else 0
        return legal[digest(messages, salt) % len(legal)]


class Listener(ThreadingHTTPServer):
    """The HTTP server: a listen backlog for many clients connecting at once (the stdlib's 5
    makes a burst of 64 connections wait for TCP's one-second SYN retry)."""

    request_queue_size = 1024


class ChatHandler(BaseHTTPRequestHandler):
    """The HTTP side of ``LLMServer``."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True   # no 40 ms wait between the headers and the body
    owner: LLMServer

    def log_message(self, *args: Any) -> None:   # quiet
        pass

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None,
              cut: bool = False) -> None:
        body = json.dumps(payload).encode()
        if cut:
            body = body[:len(body) // 2]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:   # the client gave up (a timeout)
            pass

    def _authorised(self) -> bool:
        key = self.owner.key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send(401, {"error": {"message": "invalid or missing API key"}})
        return False

    def do_GET(self) -> None:  # noqa: N802
        """``/v1/models``."""
        if not self._authorised():
            return
        if self.path.rstrip("/") == "/v1/models" and self.owner.list_models:
            self._send(200, {"object": "list", "data": [{"id": m, "object": "model"}
                                                        for m in self.owner.models]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        """``/v1/chat/completions``."""
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if not self._authorised():
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        owner, messages = self.owner, request.get("messages", [])
        if request.get("model") not in owner.models:
            self._send(404, {"error": {"message": f"model {request.get('model')!r} not found"}})
            return
        with owner.lock:
            n = len(owner.requests)
            h = digest(messages)
            tries = owner.asked[h]
            owner.asked[h] += 1
            fault = owner.faults(n, messages, tries) if owner.faults else None
            owner.requests.append({"n": n, "fault": fault, "messages": messages})
            owner.in_flight += 1
            owner.in_flight_seen.append(owner.in_flight)
        try:
            if owner.delay:
                time.sleep(owner.delay)
            self._reply(fault, messages, n, request)
        finally:
            with owner.lock:
                owner.in_flight -= 1

    def _reply(self, fault: Any, messages: list[dict], n: int, request: dict) -> None:
        owner = self.owner
        if fault == "500":
            self._send(500, {"error": {"message": "internal error"}})
            return
        if fault == "429":
            self._send(429, {"error": {"message": "slow down"}}, {"Retry-After": RETRY_AFTER})
            return
        if fault == "drop":
            self.close_connection = True
            self.connection.close()
            return
        if fault == "slow":
            time.sleep(owner.slow_seconds)
        if isinstance(fault, tuple) and fault[0] == "answer":
            answer = fault[1]
        elif fault == "malformed":
            answer = "Hmm, the odds look interesting here; let me think about it."
        elif fault == "empty":
            answer = ""
        else:
            answer = owner.answer(messages, n)
        prompt_chars = sum(len(m.get("content") or "") for m in messages)
        self._send(200, {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "model": request.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(answer) // 4 + 1,
                      "total_tokens": prompt_chars // 4 + len(answer) // 4 + 1}},
            cut=fault == "truncated")
