"""The ``llm`` agent against a real OpenAI-compatible server on 127.0.0.1 (tests/llm_server.py):
decisions and outcomes, rethinks, forfeits, retries (500, 429 + Retry-After, timeouts, truncated
JSON, dropped connections), the cache, and the one-line setup errors."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time

import numpy as np
import pytest

import agents
import bluffsim
from agents.llm import CallBudgetReached, LLMCallError, LLMSetupError
from bluffsim.chat_client import retry_after
from bluffsim.rng import AgentRNG
from bluffsim.text import protocol_for
from bluffsim.tournament.runner import forfeit_placements
from tests.llm_server import MODEL, LLMServer, listed_actions


def first_decisions(game_id: str = "veru", players: int = 3, n: int = 6):
    """(game, state, obs, mask, rng) at the first decision of ``n`` fresh games."""
    game = bluffsim.make(game_id, players)
    st = game.init(np.arange(1, n + 1, dtype=np.uint64))
    return game, st, game.observe(st), st.legal_action_mask, AgentRNG(
        st.seed, st.current_player, st.num_decisions)


def make_llm(game, server: LLMServer, tmp_path, **params):
    """An llm agent of ``server`` with its cache in ``tmp_path``."""
    return agents.make("llm", game, **{"model": MODEL, "base_url": server.url,
                                       "cache": str(tmp_path / "cache.sqlite"), **params})


def illegal_text(game, messages: list[dict]) -> str:
    """An action in the notation that is not among the listed legal ones."""
    listed = set(listed_actions(messages))
    proto = protocol_for(game, True)
    return next(t for t in (proto.action_text(a) for a in range(proto.num_actions))
                if t not in listed)


def test_the_agent_plays_the_servers_answers(tmp_path) -> None:
    """Every decision is the listed action the server chose (read back by the parser), with
    the server's token counts; one request per decision."""
    game, st, obs, mask, rng = first_decisions()
    with LLMServer() as server:
        agent = make_llm(game, server, tmp_path)
        actions = agent.act(obs, mask, rng)
        assert server.chat_calls == 6
        proto = protocol_for(game, True)
        for d, a in zip(agent.decisions, actions, strict=True):
            assert d.outcome == "ok" and d.rethinks == 0 and d.action == a
            assert proto.action_text(a) == d.answers[0]
            assert d.meta[0]["tokens_in"] > 100 and d.meta[0]["cached"] is False
        agent.close()


def test_under_a_running_event_loop_the_agent_plays_the_same(tmp_path) -> None:
    """Called from inside a running loop (as in a Jupyter cell) the agent plays exactly what
    it plays outside one (its HTTP runs in a process of its own), more than a chunk of calls
    at once."""
    game, st, obs, mask, rng = first_decisions(n=20)
    with LLMServer() as server:
        outside = make_llm(game, server, tmp_path, cache="none")
        expected = outside.act(obs, mask, rng)
        outside.close()

        async def in_a_cell():
            agent = make_llm(game, server, tmp_path, cache="none")
            try:
                return agent.act(obs, mask, rng)
            finally:
                agent.close()

        played = asyncio.run(in_a_cell())
        assert server.chat_calls == 40
        assert played.tolist() == expected.tolist()


@pytest.mark.parametrize("fault, read", [("malformed", "unparseable"), ("empty", "unparseable"),
                                         ("illegal", "illegal")])
def test_an_unplayable_first_answer_is_rethought_with_the_reason(tmp_path, fault, read) -> None:
    game, st, obs, mask, rng = first_decisions()

    def faults(n, messages, tries):
        if sum(m["role"] == "assistant" for m in messages):
            return None                      # the rethink is answered properly
        return ("answer", illegal_text(game, messages)) if fault == "illegal" else fault

    with LLMServer(faults=faults) as server:
        agent = make_llm(game, server, tmp_path)
        agent.act(obs, mask, rng)
        assert server.chat_calls == 12       # each decision asked twice
        for d in agent.decisions:
            assert d.outcome == "rethought" and d.rethinks == 1 and len(d.answers) == 2
            assert d.parsed[0].outcome == read and d.parsed[1].ok
            assert d.messages[-2]["role"] == "assistant"
            assert d.parsed[0].reason and d.parsed[0].reason in d.messages[-1]["content"]
            assert mask[list(agent.decisions).index(d), d.action]
        agent.close()


@pytest.mark.parametrize("on_failure", ["forfeit", "random"])
def test_answers_that_never_parse_forfeit_or_play_random_after_the_rethinks(tmp_path,
                                                                            on_failure) -> None:
    game, st, obs, mask, rng = first_decisions()
    with LLMServer(faults=lambda n, m, t: "malformed") as server:
        agent = make_llm(game, server, tmp_path, rethinks=2, on_failure=on_failure)
        actions = agent.act(obs, mask, rng)
        assert server.chat_calls == 6 * 3
        assert {d.outcome for d in agent.decisions} == {on_failure}
        assert all(d.rethinks == 2 and len(d.answers) == 3 for d in agent.decisions)
        assert mask[np.arange(6), actions].all()
        assert (len(agent.forfeited) == 6) == (on_failure == "forfeit")
        agent.close()


@pytest.mark.parametrize("fault", ["500", "429", "slow", "truncated", "drop"])
def test_a_failed_attempt_is_retried_and_counted(tmp_path, fault) -> None:
    """The first attempt of every conversation fails; the retry answers (429 honours the server's
    Retry-After of 50 ms, a slow answer is a timeout)."""
    game, st, obs, mask, rng = first_decisions(n=3)
    with LLMServer(faults=lambda n, m, tries: fault if tries == 0 else None,
                   slow_seconds=1.0) as server:
        agent = make_llm(game, server, tmp_path, timeout=0.3, retries=2)
        start = time.perf_counter()
        agent.act(obs, mask, rng)
        assert server.chat_calls == 6
        assert all(d.outcome == "ok" and d.meta[0]["retries"] == 1 for d in agent.decisions)
        if fault == "429":
            assert all(d.meta[0]["latency"] >= 0.05 for d in agent.decisions)
        assert time.perf_counter() - start < 5
        agent.close()


def test_a_call_that_keeps_failing_stops_with_one_line(tmp_path) -> None:
    game, st, obs, mask, rng = first_decisions(n=2)
    with LLMServer(faults=lambda n, m, t: "500") as server:
        agent = make_llm(game, server, tmp_path, retries=1)
        with pytest.raises(LLMCallError, match=r"failed after 1 retries: HTTP 500; .*--resume") as e:
            agent.act(obs, mask, rng)
        assert "\n" not in str(e.value) and server.chat_calls == 4
        agent.close()


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after("2") == 2.0 and retry_after(None) is None and retry_after("soon") is None
    assert retry_after("100000") == 120.0
    later = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= retry_after(later) <= 31


def test_the_cache_replays_every_answer_without_a_call(tmp_path) -> None:
    """A sampled server answers differently each time; the second agent (a new process would
    be the same: the cache is a file) makes no call and plays the very same actions."""
    game, st, obs, mask, rng = first_decisions()
    with LLMServer(policy="sampled", faults=lambda n, m, t: "malformed" if n % 4 == 0 else None
                   ) as server:
        first = make_llm(game, server, tmp_path)
        a = first.act(obs, mask, rng)
        calls = server.chat_calls
        second = make_llm(game, server, tmp_path)
        b = second.act(obs, mask, rng)
        assert server.chat_calls == calls and np.array_equal(a, b)
        assert [d.answers for d in first.decisions] == [d.answers for d in second.decisions]
        assert all(m["cached"] for d in second.decisions for m in d.meta)
        fresh = make_llm(game, server, tmp_path, cache="none")
        fresh.act(obs, mask, rng)
        assert server.chat_calls > calls
        for x in (first, second, fresh):
            x.close()


def test_identical_requests_of_one_batch_are_asked_once(tmp_path) -> None:
    """One deal in flight twice (duplicate deals): one call, the same answer for both."""
    game = bluffsim.make("veru", 3)
    st = game.init(np.array([5, 5, 9], dtype=np.uint64))
    rng = AgentRNG(st.seed, st.current_player, st.num_decisions)
    with LLMServer(policy="sampled") as server:
        agent = make_llm(game, server, tmp_path)
        a = agent.act(game.observe(st), st.legal_action_mask, rng)
        assert server.chat_calls == 2 and a[0] == a[1]
        assert [m[0]["cached"] for m in (d.meta for d in agent.decisions)] == [False, True, False]
        agent.close()


def test_the_cache_key_hashes_the_sorted_json_of_what_decides_an_answer(tmp_path) -> None:
    """The key stays the documented SHA-256 (caches of earlier runs keep hitting), whatever
    pieces the agent encodes once; the system prompt, the messages with an answer and
    non-ASCII text included."""
    game, st, obs, mask, rng = first_decisions("qdv")
    p = protocol_for(game)
    first = p.messages({k: v[0] for k, v in obs.items()}, mask[0])
    again = first + [{"role": "assistant", "content": "je dis \"vrai\" \u2028 é"},
                     {"role": "user", "content": "again"}]
    with LLMServer() as server:
        agent = make_llm(game, server, tmp_path, temperature=0.5)
    for messages in (first, again, first):
        fields = {"model": MODEL, "temperature": 0.5, "max_tokens": agent.config["max_tokens"],
                  "messages": messages, "game": "qdv", "seed": 7, "seat": 1, "decision": 3,
                  "attempt": sum(m["role"] == "assistant" for m in messages)}
        blob = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert agent.cache_key(messages, (7, 1, 3)) == hashlib.sha256(blob.encode()).hexdigest()


def test_max_calls_stops_with_one_line_after_that_many_calls(tmp_path) -> None:
    game, st, obs, mask, rng = first_decisions()
    with LLMServer() as server:
        agent = make_llm(game, server, tmp_path, max_calls=4)
        with pytest.raises(CallBudgetReached, match="max_calls = 4 new calls .* --resume"):
            agent.act(obs, mask, rng)
        assert server.chat_calls == 4
        again = make_llm(game, server, tmp_path, max_calls=4)   # the first 4 are cached now
        again.act(obs, mask, rng)
        assert server.chat_calls == 6
        agent.close()
        again.close()


def test_setup_errors_are_one_line_before_any_call(tmp_path, monkeypatch) -> None:
    game = bluffsim.make("veru", 3)
    with LLMServer(models=("served-a", "served-b"), key="k-123") as server:
        monkeypatch.setenv("BLUFFSIM_TEST_KEY", "k-123")
        cases = [({"model": "nope", "api_key_env": "BLUFFSIM_TEST_KEY"},
                  "model 'nope' is not served at .*; it serves: served-a, served-b"),
                 ({"model": "served-a", "api_key_env": "BLUFFSIM_UNSET_KEY"},
                  "the environment variable BLUFFSIM_UNSET_KEY \\(api_key_env\\) is not set"),
                 ({"model": "served-a"}, "refused the request \\(HTTP 401\\): it needs a key"),
                 ({"model": ""}, "parameter model is required"),
                 ({"model": "m", "base_url": "ftp://x"}, "base_url = 'ftp://x' is invalid")]
        for params, message in cases:
            with pytest.raises(LLMSetupError, match=message) as e:
                agents.make("llm", game, base_url=params.pop("base_url", server.url), **params)
            assert "\n" not in str(e.value)
        assert server.chat_calls == 0
        port = server.port
    with pytest.raises(LLMSetupError, match="cannot reach the server at .*Connection refused"):
        agents.make("llm", game, model="m", base_url=f"http://127.0.0.1:{port}/v1")


def test_requests_go_through_the_environments_proxy_unless_no_proxy_names_the_host(
        tmp_path, monkeypatch) -> None:
    """With HTTP_PROXY set, the build-time check and every call reach the server as a forward
    proxy for a host that does not resolve; with NO_PROXY naming that host they go direct and
    the agent cannot start (one line)."""
    game, st, obs, mask, rng = first_decisions()
    unresolvable = "http://llm.invalid:8000/v1"
    with LLMServer() as proxy:
        for name in ("http_proxy", "all_proxy", "ALL_PROXY", "NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        agent = agents.make("llm", game, model=MODEL, base_url=unresolvable,
                            cache=str(tmp_path / "cache.sqlite"))
        actions = agent.act(obs, mask, rng)
        agent.close()
        assert proxy.chat_calls == 6 and proxy.proxied == 7     # GET /models and 6 answers
        assert all(d.outcome == "ok" and d.action == a for d, a in zip(agent.decisions, actions,
                                                                        strict=True))
        monkeypatch.setenv("NO_PROXY", "llm.invalid")
        with pytest.raises(LLMSetupError, match="cannot reach the server at http://llm.invalid"):
            agents.make("llm", game, model="other-model", base_url=unresolvable)
        assert proxy.proxied == 7


def test_a_server_that_lists_no_models_is_accepted(tmp_path) -> None:
    game, st, obs, mask, rng = first_decisions(n=2)
    with LLMServer(list_models=False) as server:
        agent = make_llm(game, server, tmp_path)
        agent.act(obs, mask, rng)
        assert server.chat_calls == 2
        agent.close()


def test_forfeited_seats_are_placed_last_in_their_own_order() -> None:
    place = np.array([[1, 2, 3, 4], [1, 2, 3, 4], [2, 1, 2, 4], [1, 2, 3, 4]])
    forfeit = np.array([[True, False, False, False], [False, True, False, True],
                        [False, False, False, False], [True, True, True, True]])
    assert forfeit_placements(place, forfeit).tolist() == [
        [4, 1, 2, 3], [1, 3, 2, 4], [2, 1, 2, 4], [1, 2, 3, 4]]


def test_workers_opening_a_fresh_cache_together_never_see_it_locked(tmp_path) -> None:
    """Six connections set up one new cache file at the same moment, 40 times over (two worker
    processes starting on a fresh cache did hit "database is locked")."""
    import sqlite3
    import threading

    from agents.llm import set_up_cache

    for k in range(40):
        path, errors = tmp_path / f"cache{k}.sqlite", []
        start = threading.Barrier(6)

        def open_it(path=path, errors=errors, start=start) -> None:
            con = sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)
            start.wait()
            try:
                set_up_cache(con)
            except sqlite3.OperationalError as e:
                errors.append(str(e))
            finally:
                con.close()

        threads = [threading.Thread(target=open_it) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == [], errors
        assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_dead_http_process_is_started_again_at_the_next_batch(tmp_path) -> None:
    """The requests' process (bluffsim.chat_client) killed between two batches: the next batch
    starts a new one and plays the same answers."""
    from bluffsim.chat_client import ChatClient

    game, st, obs, mask, rng = first_decisions()
    with LLMServer() as server:
        first = make_llm(game, server, tmp_path, cache="none").act(obs, mask, rng)
        old = ChatClient.shared()
        old.process.kill()
        old.process.wait(timeout=10)
        again = make_llm(game, server, tmp_path, cache="none").act(obs, mask, rng)
        assert ChatClient.shared() is not old and ChatClient.shared().process.poll() is None
        assert again.tolist() == first.tolist() and server.chat_calls == 12
