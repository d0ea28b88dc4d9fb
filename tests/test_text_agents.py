"""Text agents: text-counting plays counting's exact decisions through the protocol; the TextAgent
base batches, re-prompts, forfeits or plays random; ``text:package.module:function`` callables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import agents
import bluffsim
from agents.base import AgentParamError
from agents.custom import AgentContractError
from agents.text import TextAgent
from bluffsim.rng import AgentRNG
from bluffsim.tournament import parse_config, play_shard
from tests.games import random_actions
from tests.test_workflow import assert_one_line_error, cli

TABLES = [(g, p) for g in ("qdv", "legumes", "veru")
          for p in range(max(2, bluffsim.spec(g).players[0]), bluffsim.spec(g).players[1] + 1)]


# ------------------------------------------------------------------ text-counting
@pytest.mark.parametrize("game_id, players", TABLES)
def test_text_counting_makes_countings_exact_decisions(game_id, players) -> None:
    """On the same observations and streams, every decision of text-counting (counting's choice
    written out, in three styles, and read back) equals counting's; all parsed at once."""
    game = bluffsim.make(game_id, players)
    counting, text = agents.make("counting", game), agents.make("text-counting", game)
    st = game.init(np.arange(12) + 100 * players)
    for _ in range(3):                      # start from varied positions
        game.step(st, random_actions(game, st))
    decisions = 0
    for _ in range(30):
        live = np.flatnonzero(~st.done)
        if not live.size:
            break
        obs = {k: v[live] for k, v in game.observe(st).items()}
        rng = AgentRNG(st.seed[live], st.current_player[live], st.num_decisions[live])
        want = counting.act(obs, st.legal_action_mask[live], rng)
        got = text.act(obs, st.legal_action_mask[live], rng)
        np.testing.assert_array_equal(got, want)
        decisions += live.size
        actions = np.zeros(st.done.size, np.int64)
        actions[live] = want
        game.step(st, actions)
    assert decisions >= 200
    assert {d.outcome for d in text.decisions} == {"ok"} and not text.forfeited
    assert any(a.startswith('{"action"') for d in text.decisions for a in d.answers)


def test_text_counting_seats_give_the_same_games_as_counting_seats() -> None:
    """A small tournament: text-counting in a seat gives the very rows counting gives (duplicate
    deals on permuted seatings: one deal is in flight several times in a batch)."""
    def shard(agent: str) -> tuple[pd.DataFrame, pd.DataFrame]:
        raw = {"experiment": {"name": "t", "game": "qdv", "players": 3, "games": 12, "seed": 3},
               "seats": [{"agent": agent, "label": "c"}, {"agent": "heuristic", "label": "h"},
                         {"agent": "random", "label": "r"}],
               "run": {"batch": 12, "shard_games": 12, "plots": False, "seating": "permute",
                       "duplicate": True}}
        return play_shard(parse_config(raw), 0)

    (g1, r1), (g2, r2) = shard("counting"), shard("text-counting")
    pd.testing.assert_frame_equal(g1, g2)
    pd.testing.assert_frame_equal(r1, r2)


def test_text_counting_takes_countings_parameters_and_the_text_ones() -> None:
    game = bluffsim.make("qdv", 3)
    a = agents.make("text-counting", game, spite=0.0, list_legal=False, rethinks=0)
    assert a.inner.config["spite"] == 0.0 and a.config["list_legal"] is False
    assert a.protocol.list_legal is False
    with pytest.raises(AgentParamError, match="unknown parameter"):
        agents.make("text-counting", game, temperature=1)
    assert "text-counting" not in [n for n in agents.list_agents()
                                   if "liarsdice" in agents.REGISTRY.get(n, {})]


# ------------------------------------------------------------------ the TextAgent base
class Scripted(TextAgent):
    """Answers from ``script(key, attempt, legal_texts)``; logs every batch sent."""

    name = "scripted"

    def __init__(self, game, script, **params):
        super().__init__(game, **params)
        self.script, self.batches = script, []

    def answer_many(self, conversations, keys):
        self.batches.append(list(keys))
        out = []
        for conv, key in zip(conversations, keys, strict=True):
            attempt = sum(m["role"] == "assistant" for m in conv)
            out.append((self.script(key, attempt, conv), {"attempt": attempt}))
        return out


def first_legal(conv) -> str:
    """The first action of the legal list in the user message."""
    user = [m["content"] for m in conv if m["role"] == "user"][0]
    return user.split("Your legal actions:\n- ")[1].split("\n")[0].split(":")[0]


def batch(game_id: str = "qdv", n: int = 3, steps: int = 4):
    game = bluffsim.make(game_id, 3)
    st = game.init(np.arange(n) + 40)
    for _ in range(steps):
        game.step(st, random_actions(game, st))
    return game, st, game.observe(st), st.legal_action_mask, AgentRNG(
        st.seed, st.current_player, st.num_decisions)


def random_choice(game, st) -> np.ndarray:
    return agents.make("random", game).act(None, st.legal_action_mask,
                                           AgentRNG(st.seed, st.current_player, st.num_decisions))


def test_failed_answers_are_re_prompted_together_with_the_reason() -> None:
    game, st, obs, legal, rng = batch()
    bad_row = int(st.seed[1])

    def script(key, attempt, conv):
        return "I am not sure." if key[0] == bad_row and attempt == 0 else first_legal(conv)

    agent = Scripted(game, script)
    out = agent.act(obs, legal, rng)
    assert [len(b) for b in agent.batches] == [3, 1]             # all rows, then the failed one
    assert agent.batches[1][0] == (bad_row, int(st.current_player[1]), int(st.num_decisions[1]))
    d = agent.decisions[1]
    assert (d.outcome, d.rethinks, len(d.answers)) == ("rethought", 1, 2)
    assert [m["role"] for m in d.messages] == ["system", "user", "assistant", "user"]
    assert "no action found" in d.messages[-1]["content"]
    assert d.meta == [{"attempt": 0}, {"attempt": 1}]
    assert [x.outcome for x in agent.decisions[::2]] == ["ok", "ok"]
    assert legal[np.arange(3), out].all() and d.action_text == agent.protocol.action_text(out[1])


def test_a_seat_that_keeps_failing_forfeits_and_is_not_asked_again() -> None:
    game, st, obs, legal, rng = batch()
    agent = Scripted(game, lambda key, attempt, conv: "pass", rethinks=1)
    out = agent.act(obs, legal, rng)
    assert [len(b) for b in agent.batches] == [3, 3]
    np.testing.assert_array_equal(out, random_choice(game, st))   # the random agent's action
    assert agent.forfeited == {(int(s), int(p)) for s, p in zip(st.seed, st.current_player,
                                                              strict=True)}
    assert all(d.outcome == "forfeit" and d.rethinks == 1 for d in agent.decisions)
    game.step(st, out)
    agent.batches.clear()
    n, gone = len(agent.decisions), set(agent.forfeited)
    nxt = AgentRNG(st.seed, st.current_player, st.num_decisions)
    out2 = agent.act(game.observe(st), st.legal_action_mask, nxt)
    asked = {k[:2] for b in agent.batches for k in b}
    again = [b for b in range(3) if (int(st.seed[b]), int(st.current_player[b])) in gone]
    assert again and not asked & gone
    np.testing.assert_array_equal(out2[again], random_choice(game, st)[again])
    later = [d for d in agent.decisions[n:] if (d.seed, d.seat) in gone]
    assert len(later) == len(again)
    assert all(d.messages == [] and d.answers == [] and d.outcome == "forfeit" for d in later)


def test_on_failure_random_flags_the_decision_and_keeps_asking() -> None:
    game, st, obs, legal, rng = batch()
    agent = Scripted(game, lambda key, attempt, conv: "salads 4", rethinks=0, on_failure="random")
    out = agent.act(obs, legal, rng)
    np.testing.assert_array_equal(out, random_choice(game, st))
    assert {d.outcome for d in agent.decisions} == {"random"} and not agent.forfeited
    d = agent.decisions[0]
    assert d.answers == ["salads 4"] and [p.outcome for p in d.parsed] == ["illegal"]
    assert "salad" in d.parsed[0].reason.split("is illegal:")[1]
    with pytest.raises(AgentParamError, match=r"on_failure = 'retry' is invalid; allowed: "
                                              r"forfeit \| random"):
        Scripted(game, first_legal, on_failure="retry")


# ------------------------------------------------------------------ text:package.module:function
MODULE = '''
def prompt(text: str) -> str:
    """str -> str: the first legal action of the prompt, in a sentence."""
    return "I will play " + text.split("Your legal actions:\\n- ")[1].split("\\n")[0].split(":")[0]


def chat(messages: list) -> str:
    """messages -> str: the same, as JSON."""
    user = messages[1]["content"]
    first = user.split("Your legal actions:\\n- ")[1].split("\\n")[0].split(":")[0]
    return '{"action": "%s"}' % first


def broken(text):
    return 42

NOT_CALLABLE = 3
'''


@pytest.fixture
def text_module(tmp_path, monkeypatch):
    (tmp_path / "my_text_agents.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("fn", ["prompt", "chat"])
def test_a_python_callable_is_a_text_agent(text_module, fn) -> None:
    game, st, obs, legal, rng = batch("veru")
    agent = agents.make(f"text:my_text_agents:{fn}", game, rethinks=0)
    assert agent.wants_messages is (fn == "chat") and agent.decisions == [] and not agent.forfeited
    out = agent.act(obs, legal, rng)
    assert legal[np.arange(3), out].all()
    assert [d.outcome for d in agent.decisions] == ["ok"] * 3
    agents.check_name(f"text:my_text_agents:{fn}")


def test_bad_text_specs_are_one_line_errors(text_module) -> None:
    game = bluffsim.make("qdv", 3)
    with pytest.raises(AgentContractError, match="has no function 'nope'"):
        agents.make("text:my_text_agents:nope", game)
    with pytest.raises(AgentContractError, match="NOT_CALLABLE' is not callable"):
        agents.make("text:my_text_agents:NOT_CALLABLE", game)
    with pytest.raises(AgentContractError, match="must return a str, got int"):
        agents.make("text:my_text_agents:broken", game)
    with pytest.raises(AgentContractError, match=r'write "text:package.module:function"'):
        agents.check_name("text:nothing")


def test_a_config_with_a_missing_text_module_is_a_one_line_cli_error(tmp_path) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text('''
[experiment]
name = "t"
game = "qdv"
players = 2
games = 2
[[seats]]
agent = "text:no_such_module:fn"
[[seats]]
agent = "random"
''')
    code, err = cli("run", str(conf), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert_one_line_error(code, err, "text:no_such_module:fn", "cannot import module")
    assert not (tmp_path / "o").exists()
