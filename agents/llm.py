"""``llm``: a text agent that asks any OpenAI-compatible chat-completions server for its moves.

One protocol reaches vLLM, llama.cpp's server, Ollama and the hosted APIs: ``POST
{base_url}/chat/completions`` with the protocol's messages (``agents.text``), the answer read
back by the tolerant parser, re-prompted with the reason up to ``rethinks`` times, then
``on_failure``.  ``base_url`` is the OpenAI-style prefix that ends in ``/v1`` (e.g.
``http://127.0.0.1:8000/v1``); the client is ``aiohttp`` (the ``llm`` extra).

**When the agent is built** (a config load, ``bluffsim evaluate``, each shard): ``model`` must be
given, ``base_url`` must be an http(s) URL, the variable named by ``api_key_env`` must be set,
the server must answer ``GET {base_url}/models`` and, when it lists models, list ``model``.
Each failure is one ``LLMSetupError`` line (an ``AgentError``: ``bluffsim: error: ...``, exit 2,
nothing written).  A process checks a server once per (base_url, model, key variable).

**The key** is read from the environment when a request is sent; it is never stored in the
agent's config, the cache, the records or an error message (a server's error text is scrubbed
of it).

**Calls.** ``answer_stream`` hands the requests to this process's HTTP process
(``bluffsim.chat_client``: ``aiohttp`` in a child process, so the requests' Python runs on
another core than the prompts) ``SEND_CHUNK`` at a time as the prompts are built, so the first
are in flight while the rest are rendered, and reads each answer as it comes.  Up to
``concurrency`` requests are in flight, on ``concurrency`` keep-alive connections, through the
environment's ``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``ALL_PROXY`` unless ``NO_PROXY`` matches the
host (read by this process when the first request is sent).  A transport error, a timeout,
HTTP 429, a 5xx or an unreadable body (truncated JSON) is retried up to ``retries`` times with
backoff or after the server's ``Retry-After`` (``bluffsim.chat_client``); other 4xx are not
retried.  A call that still fails stops the run with ``LLMCallError`` (one line): a server
outage must not turn into forfeited games, and ``--resume`` replays every stored answer for free.

**Cache.** Every answer is stored in a SQLite file (``cache``; default ``results/llm_cache.sqlite``
under the working directory, ``"none"`` = no cache), keyed by a SHA-256 of (model, temperature,
max_tokens, the messages, game seed, seat, decision index, attempt).  A repeated run, a
``--force`` replay, a second output dir and ``--resume`` therefore make **zero** calls for what
was asked before and replay the same answers, hence the same games.  The file is shared by every
run that names it and is safe across worker processes (WAL journal; the first stored answer for
a key wins and every process plays that one).  To draw fresh answers for the same seeds, point
``cache`` at another file or delete it.  The base URL is not in the key: the same model name
served elsewhere reuses the answers.  Rows of one batch with the same key are asked once.

**Budget.** ``max_calls`` (0 = no limit) bounds the *new* (uncached) calls of one ``bluffsim
run`` invocation, counted over every seat with the same llm parameters and every worker process
(a counter file the runner creates in the output dir; without one, e.g. under ``bluffsim
evaluate``, the count is per process).  Reaching it raises ``CallBudgetReached``: the run stops
with one line, finished shards are kept, and ``--resume`` goes on with a fresh allowance (the
answers of the unfinished shard are cached, so they are not paid twice).

The meta of every answer (``Decision.meta``): ``tokens_in``, ``tokens_out`` (the response's
``usage``; 0 when the server reports none), ``latency`` (seconds from the first send to the
answer, retries included; 0 when cached), ``retries``, ``cached``, ``finish_reason``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import sqlite3
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.base import AgentError, Param, Traits, integer, real, register_agent
from agents.text import TEXT_PARAMS, TEXT_SPEC, Key, Messages, TextAgent
from bluffsim.api import BluffsimError
from bluffsim.chat_client import ChatClient, Outcome, Policy, Target, transport_reason

SEND_CHUNK = 16          # requests handed to the HTTP process at once while prompts are built
PROBE_TIMEOUT = 10.0     # seconds for the build-time GET /models
DEFAULT_CACHE = "results/llm_cache.sqlite"
NO_CACHE = "none"
BUDGET_FILE = ".llm_budget.sqlite"   # the run's call counter (created by the runner)

LLM_PARAMS: dict[str, Any] = {
    **TEXT_PARAMS, "model": "", "base_url": "http://127.0.0.1:8000/v1", "api_key_env": "",
    "temperature": 0.0, "max_tokens": 512, "timeout": 60.0, "retries": 4, "concurrency": 16,
    "max_calls": 0, "cache": ""}
LLM_SPEC: dict[str, Param] = {
    **TEXT_SPEC,
    "model": Param(str, doc="the served model's name (as GET /v1/models lists it)"),
    "base_url": Param(str, doc="the OpenAI-style base URL, ending in /v1"),
    "api_key_env": Param(str, doc="NAME of the environment variable holding the API key "
                                  "(empty: no key)"),
    "temperature": real(0.0, 2.0, doc="sampling temperature"),
    "max_tokens": integer(1, 1_000_000, doc="longest answer, in tokens"),
    "timeout": real(0.001, 3600.0, doc="seconds to wait for one answer"),
    "retries": integer(0, 100, doc="retries after a transport error, a timeout, 429 or 5xx"),
    "concurrency": integer(1, 4096, doc="requests in flight at once"),
    "max_calls": integer(0, None, doc="most new calls per run invocation (0 = no limit)"),
    "cache": Param(str, doc=f"answer cache file (default {DEFAULT_CACHE}; \"none\" = no cache)"),
}


class LLMSetupError(AgentError):
    """The llm agent cannot start: no model, a bad URL, an unset key variable, no server, or a
    model the server does not serve (one line, before any game)."""


class LLMCallError(BluffsimError, RuntimeError):
    """A chat-completions call failed after every retry (or was refused); stops the run."""


class CallBudgetReached(BluffsimError, RuntimeError):
    """``max_calls`` new calls were made; the run stops and ``--resume`` goes on."""


# (base_url, model, api_key_env) this process has checked
_PROBED: set[tuple[str, str, str]] = set()


def canonical_json(value: Any) -> str:
    """``value`` as JSON with sorted keys, no spaces and no NaN: what cache keys hash."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)


@dataclass
class _Call:
    """One request of ``answer_stream``: its cache key, the rows that asked it, and once it has
    come, its stored reply."""

    key: str
    positions: list[int]
    reply: tuple[str, dict] | None = None


@register_agent()
class LLMAgent(TextAgent):
    """A language model behind an OpenAI-compatible ``/v1/chat/completions`` endpoint (module
    docstring)."""

    name = "llm"
    traits = Traits(stochastic=True, uses_history=True)
    params = dict(LLM_PARAMS)
    spec = dict(LLM_SPEC)

    def __init__(self, game: Any, **params: Any):
        super().__init__(game, **params)
        c = self.config
        self.base_url = c["base_url"].rstrip("/")
        self._check_setup()
        self.cache = ResponseCache.at(c["cache"])
        # without a cache a replay (analysis.behaviour) would ask the model again
        self.replayable = self.cache.path is not None
        self.budget = CallBudget(c["max_calls"], None, self.config_digest())
        self.calls_made = 0            # new calls this agent sent (not cached)
        self._system_json: dict[str, str] = {}    # system prompt -> its message's JSON

    # ------------------------------------------------------------------ build-time checks
    def _who(self) -> str:
        return f"agent 'llm' ({self.game.game_id})"

    def _check_setup(self) -> None:
        """The one-line checks of the module docstring, before any game."""
        c = self.config
        if importlib.util.find_spec("aiohttp") is None:
            raise LLMSetupError(f"{self._who()}: needs the 'llm' extra (the aiohttp client): pip "
                                "install 'bluffsim[llm]'")
        if not c["model"].strip():
            raise LLMSetupError(f"{self._who()}: parameter model is required: the served model's "
                                "name, e.g. model = \"Qwen/Qwen2.5-7B-Instruct\"")
        if not self.base_url.startswith(("http://", "https://")):
            raise LLMSetupError(f"{self._who()}: base_url = {c['base_url']!r} is invalid; allowed: "
                                "an http:// or https:// URL ending in /v1, e.g. "
                                "http://127.0.0.1:8000/v1")
        if c["api_key_env"] and not os.environ.get(c["api_key_env"]):
            raise LLMSetupError(f"{self._who()}: the environment variable {c['api_key_env']} "
                                "(api_key_env) is not set; export it with the API key, or leave "
                                "api_key_env empty for a server without one")
        if (self.base_url, c["model"], c["api_key_env"]) not in _PROBED:
            self._probe_server()
            _PROBED.add((self.base_url, c["model"], c["api_key_env"]))

    def _probe_server(self) -> None:
        """GET /models: the server answers, and lists the model when it lists any."""
        url = f"{self.base_url}/models"
        status, body = http_get(url, self._headers(), min(PROBE_TIMEOUT, self.config["timeout"] + 1.0))
        if status is None:
            raise LLMSetupError(f"{self._who()}: cannot reach the server at {url} "
                                f"({self._scrub(body)}); start it or fix base_url")
        if status in (401, 403):
            key = self.config["api_key_env"]
            raise LLMSetupError(f"{self._who()}: the server at {url} refused the request (HTTP "
                                f"{status}): " + (f"check the key in {key}" if key else
                                                  "it needs a key: set api_key_env"))
        if status == 404:
            return                      # a server that does not list its models
        if status >= 400:
            raise LLMSetupError(f"{self._who()}: GET {url} answered HTTP {status}; is "
                                "base_url an OpenAI-compatible /v1 prefix?")
        try:
            served = [str(m["id"]) for m in json.loads(body).get("data", [])]
        except (ValueError, AttributeError, KeyError, TypeError):
            raise LLMSetupError(f"{self._who()}: GET {url} did not answer an OpenAI model list; "
                                "is base_url an OpenAI-compatible /v1 prefix?") from None
        if served and self.config["model"] not in served:
            shown = ", ".join(served[:10]) + (", …" if len(served) > 10 else "")
            raise LLMSetupError(f"{self._who()}: model {self.config['model']!r} is not served at "
                                f"{self.base_url}; it serves: {shown}")

    def _headers(self) -> dict[str, str]:
        """Request headers; the key is read from the environment now, never kept."""
        env = self.config["api_key_env"]
        key = os.environ.get(env, "") if env else ""
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _scrub(self, text: str) -> str:
        """``text`` without the API key (a server may echo it)."""
        env = self.config["api_key_env"]
        key = os.environ.get(env, "") if env else ""
        return text.replace(key, "***") if key else text

    def config_digest(self) -> str:
        """A short hash of this agent's parameters (its budget counter's row)."""
        return hashlib.sha256(json.dumps(self.config, sort_keys=True).encode()).hexdigest()[:16]

    def bind_run(self, out_dir: Path) -> None:
        """Count ``max_calls`` in the run's counter file when the runner created one."""
        path = Path(out_dir) / BUDGET_FILE
        if path.is_file():
            self.budget = CallBudget(self.config["max_calls"], path, self.config_digest())

    # ------------------------------------------------------------------ answering
    def cache_key(self, messages: Messages, key: Key) -> str:
        """SHA-256 of what decides an answer: model, sampling, messages, seed, seat, decision,
        attempt (the number of answers already in the conversation)."""
        return self._request(messages, key)[0]

    def _request(self, messages: Messages, key: Key) -> tuple[str, bytes]:
        """(cache key, POST body) of one conversation: the messages are encoded to JSON once,
        for both."""
        c = self.config
        attempt = sum(m["role"] == "assistant" for m in messages)
        said = "[" + ",".join(map(self._message_json, messages)) + "]"
        model, temperature = json.dumps(c["model"], ensure_ascii=False), json.dumps(c["temperature"])
        # the keys in sorted order: the hash of json.dumps(..., sort_keys=True) of these fields
        blob = (f'{{"attempt":{attempt},"decision":{int(key[2])},'
                f'"game":{json.dumps(self.game.game_id)},"max_tokens":{int(c["max_tokens"])},'
                f'"messages":{said},"model":{model},"seat":{int(key[1])},"seed":{int(key[0])},'
                f'"temperature":{temperature}}}')
        body = (f'{{"model":{model},"messages":{said},"temperature":{temperature},'
                f'"max_tokens":{int(c["max_tokens"])}}}')
        return hashlib.sha256(blob.encode()).hexdigest(), body.encode()

    def _message_json(self, message: dict[str, str]) -> str:
        """One message as canonical JSON (sorted keys, no spaces): the pieces of the messages'
        ``json.dumps``; the system message, the same at every decision, encoded once."""
        if message["role"] != "system":
            return canonical_json(message)
        encoded = self._system_json.get(message["content"])
        if encoded is None:
            encoded = self._system_json[message["content"]] = canonical_json(message)
        return encoded

    def answer_many(self, conversations: list[Messages], keys: list[Key]) -> list[tuple[str, dict]]:
        """Cached answers where stored; the others asked at once, up to ``concurrency`` in
        flight; identical requests of the batch asked once."""
        out: list[tuple[str, dict]] = [("", {})] * len(conversations)
        for pos, reply in self.answer_stream(zip(conversations, keys, strict=True),
                                             len(conversations)):
            out[pos] = reply
        return out

    def answer_stream(self, items: Iterable[tuple[Messages, Key]],
                      n: int) -> Iterator[tuple[int, tuple[str, dict]]]:
        """Conversations sent ``SEND_CHUNK`` at a time as soon as they are built (the next ones
        are built while those are in flight), unless the answer is cached or the same request
        was already sent; answers yielded as they come, each chunk's stored in the cache first
        (the stored one, the first for its key in any process, is the one played).  The call
        budget is taken per chunk, for the calls really sent."""
        in_flight: dict[int, list[_Call]] = {}
        calls: dict[str, _Call] = {}
        chunk: list[tuple[_Call, bytes]] = []
        failure: BaseException | None = None
        for pos, (messages, key) in enumerate(items):
            h, body = self._request(messages, key)
            if h in calls:                       # the same request: its answer, as cached
                if calls[h].reply is None:
                    calls[h].positions.append(pos)
                else:
                    yield pos, cached_reply(calls[h].reply)
                continue
            found = self.cache.get_many([h]).get(h)
            if found is not None:
                yield pos, cached_reply(found)
                continue
            calls[h] = _Call(h, [pos])
            chunk.append((calls[h], body))
            if len(chunk) == SEND_CHUNK:
                failure = self._send(chunk, in_flight)
                chunk = []
                failure = (yield from self._collect(in_flight, False, failure)) or failure
                if failure is not None:
                    break
        if chunk and failure is None:
            failure = self._send(chunk, in_flight)
        while in_flight:
            failure = (yield from self._collect(in_flight, True, failure)) or failure
        if failure is not None:
            raise failure

    def _budget_reached(self) -> CallBudgetReached:
        """The one-line stop when ``max_calls`` is used up."""
        return CallBudgetReached(
            f"llm budget reached: max_calls = {self.config['max_calls']:,} new calls of model "
            f"{self.config['model']!r} in this run; the finished shards are kept and every answer "
            "is cached: rerun with --resume to go on (a fresh allowance)")

    @functools.cached_property
    def _proxy(self) -> str | None:
        """The environment's proxy for ``base_url``, read when the first request is sent."""
        return proxy_for(self.base_url)

    def _send(self, chunk: list[tuple[_Call, bytes]],
              in_flight: dict[int, list[_Call]]) -> CallBudgetReached | None:
        """Hand one chunk of calls to the HTTP process, as many as the call budget grants;
        the budget stop when it did not grant them all."""
        granted = self.budget.take(len(chunk))
        if granted:
            c = self.config
            target = Target(f"{self.base_url}/chat/completions", self._headers(), self._proxy)
            policy = Policy(connections=c["concurrency"], timeout=c["timeout"],
                            retries=c["retries"])
            chunk_id = ChatClient.shared().send(target, [body for _, body in chunk[:granted]],
                                                policy)
            in_flight[chunk_id] = [call for call, _ in chunk[:granted]]
            self.calls_made += granted
        return self._budget_reached() if granted < len(chunk) else None

    def _collect(self, in_flight: dict[int, list[_Call]], block: bool,
                 failed: BaseException | None = None,
                 ) -> Generator[tuple[int, tuple[str, dict]], None, BaseException | None]:
        """Store the answers of every chunk that has come (waiting for one when ``block``) in
        one transaction and yield their rows' replies (none once a call has ``failed``);
        returns the first failure among them."""
        try:
            came = ChatClient.shared().results(list(in_flight), block)
        except ConnectionError as e:
            raise LLMCallError(f"llm: {e}; the finished shards are kept and every answer is "
                               "cached: rerun with --resume") from None
        answered: dict[str, tuple[str, dict]] = {}
        failure = None
        for chunk_id, outcomes in came.items():
            for call, outcome in zip(in_flight[chunk_id], outcomes, strict=True):
                if outcome.failed:
                    failure = failure or self._call_error(outcome)
                else:
                    answered[call.key] = (outcome.answer, outcome.meta)
        stored = self.cache.put_many(answered)
        for chunk_id in came:
            for call in in_flight.pop(chunk_id):
                if call.key not in answered:
                    continue
                answer, meta = answered[call.key]
                kept_answer, kept = stored[call.key]
                if kept_answer != answer:   # another process stored an answer first: play that one
                    meta = {**meta, **kept, "cached": True}
                call.reply = (kept_answer, meta)
                if failed is None and failure is None:
                    yield call.positions[0], call.reply
                    for pos in call.positions[1:]:
                        yield pos, cached_reply(call.reply)
        return failure

    def _call_error(self, outcome: Outcome) -> LLMCallError:
        """The one-line stop for a call that failed in the HTTP process."""
        url = f"{self.base_url}/chat/completions"
        if outcome.failed == "status":
            return LLMCallError(f"llm: POST {url} answered {self._scrub(outcome.reason)}")
        return LLMCallError(f"llm: POST {url} failed after {outcome.retries} retries: "
                            f"{self._scrub(outcome.reason)}; the finished shards are kept and "
                            "every answer is cached: rerun with --resume once the server answers")

    def close(self) -> None:
        """Nothing to release: the HTTP process (``bluffsim.chat_client``) is shared by every
        ``llm`` seat of this process and ends with it."""


def proxy_for(url: str) -> str | None:
    """The environment's proxy for ``url`` (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, unless
    ``NO_PROXY`` matches its host), read once per client rather than per request."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy


def http_get(url: str, headers: dict[str, str], timeout: float) -> tuple[int | None, str]:
    """(status, body text) of a GET with the standard library (environment proxies honoured);
    (None, why) when no answer came."""
    request = urllib.request.Request(url, headers=headers)
    opener = urllib.request.build_opener()     # reads the proxy variables now, not at first use
    try:
        with opener.open(request, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, ""
    except (urllib.error.URLError, OSError, ValueError) as e:
        return None, transport_reason(getattr(e, "reason", e))


# ---------------------------------------------------------------------- the answer cache
class ResponseCache:
    """Answers on disk (SQLite) by request hash, shared by processes and runs (module docstring)."""

    _open: dict[str, ResponseCache] = {}

    def __init__(self, path: Path | None):
        self.path = path
        self._con: sqlite3.Connection | None = None
        self._pid = -1
        self._lock = threading.Lock()

    @classmethod
    def at(cls, name: str) -> ResponseCache:
        """The cache of a ``cache`` parameter: "" = the default file, "none" = none; one object
        per file in a process."""
        if name.strip().lower() == NO_CACHE:
            return cls(None)
        path = str(Path(name or DEFAULT_CACHE).expanduser().resolve())
        if path not in cls._open:
            cls._open[path] = cls(Path(path))
        return cls._open[path]

    def _connection(self) -> sqlite3.Connection | None:
        if self.path is None:
            return None
        if self._con is None or self._pid != os.getpid():   # a forked worker opens its own
            self.path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(self.path, timeout=60, check_same_thread=False,
                                  isolation_level=None)
            set_up_cache(con)
            self._con, self._pid = con, os.getpid()
        return self._con

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[str, dict]]:
        """The stored (answer, meta) of every key found."""
        out: dict[str, tuple[str, dict]] = {}
        with self._lock:
            con = self._connection()
            if con is None or not keys:
                return out
            return self.get_many_locked(con, keys)

    def put(self, key: str, answer: str, meta: dict) -> tuple[str, dict]:
        """Store an answer unless one is stored for ``key``; returns the stored (answer, the
        kept meta: tokens and finish reason)."""
        return self.put_many({key: (answer, meta)})[key]

    def put_many(self, answers: dict[str, tuple[str, dict]]) -> dict[str, tuple[str, dict]]:
        """Store every answer whose key has none yet, in one transaction; returns the stored
        (answer, kept meta: tokens and finish reason) of every key."""
        kept = {key: (a, {k: m[k] for k in ("tokens_in", "tokens_out", "finish_reason") if k in m})
                for key, (a, m) in answers.items()}
        with self._lock:
            con = self._connection()
            if con is None or not kept:
                return kept
            with con:   # one transaction (the connection is in autocommit mode otherwise)
                con.execute("BEGIN IMMEDIATE")
                con.executemany("INSERT OR IGNORE INTO answers VALUES (?, ?, ?)",
                                [(key, a, json.dumps(m)) for key, (a, m) in kept.items()])
            found = self.get_many_locked(con, list(kept))
        return found

    @staticmethod
    def get_many_locked(con: sqlite3.Connection, keys: Sequence[str]) -> dict[str, tuple[str, dict]]:
        """The stored (answer, meta) of every key found (the caller holds the lock)."""
        out: dict[str, tuple[str, dict]] = {}
        unique = list(dict.fromkeys(keys))
        for i in range(0, len(unique), 500):
            part = unique[i:i + 500]
            rows = con.execute(f"SELECT key, answer, meta FROM answers WHERE key IN "
                               f"({','.join('?' * len(part))})", part).fetchall()
            out.update({k: (a, json.loads(m)) for k, a, m in rows})
        return out


def set_up_cache(con: sqlite3.Connection, patience: float = 60.0) -> None:
    """WAL journal and the answers table.  Switching a new file to WAL needs it alone and SQLite
    does not wait for that (workers opening a fresh cache together get "database is locked"),
    so a busy file is tried again for up to ``patience`` seconds."""
    deadline = time.monotonic() + patience
    while True:
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            con.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT "
                        "NOT NULL, meta TEXT NOT NULL)")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


# ---------------------------------------------------------------------- the call budget
class CallBudget:
    """At most ``limit`` new calls (0 = no limit), counted in ``path`` (shared by processes) when
    given, else in this object."""

    def __init__(self, limit: int, path: Path | None, row: str):
        self.limit, self.path, self.row, self.used = int(limit), path, row, 0

    def take(self, n: int) -> int:
        """Reserve up to ``n`` calls; returns how many were granted."""
        if self.limit <= 0 or n <= 0:
            return n
        if self.path is None:
            granted = max(0, min(n, self.limit - self.used))
            self.used += granted
            return granted
        con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            con.execute("BEGIN IMMEDIATE")
            con.execute("CREATE TABLE IF NOT EXISTS budget (row TEXT PRIMARY KEY, used INTEGER)")
            got = con.execute("SELECT used FROM budget WHERE row = ?", (self.row,)).fetchone()
            used = got[0] if got else 0
            granted = max(0, min(n, self.limit - used))
            con.execute("INSERT OR REPLACE INTO budget VALUES (?, ?)", (self.row, used + granted))
            con.execute("COMMIT")
        finally:
            con.close()
        return granted


def cached_reply(reply: tuple[str, dict]) -> tuple[str, dict]:
    """A stored (answer, meta) as played from the cache: no latency, no retries."""
    answer, meta = reply
    return answer, {**meta, "latency": 0.0, "retries": 0, "cached": True}


def start_budget(out_dir: Path) -> None:
    """A fresh call counter for one run invocation in ``out_dir`` (the runner calls it)."""
    path = Path(out_dir) / BUDGET_FILE
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    try:
        con.execute("CREATE TABLE IF NOT EXISTS budget (row TEXT PRIMARY KEY, used INTEGER)")
        con.commit()
    finally:
        con.close()


def no_answer(prompt: str) -> str:
    """A text agent that never answers (with ``on_failure = "random"``, ``rethinks = 0`` it plays
    uniformly): the llm seats' stand-in when the runner measures decisions per game."""
    return ""
