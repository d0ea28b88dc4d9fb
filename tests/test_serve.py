"""``bluffsim serve`` over real HTTP on 127.0.0.1: full games of every game written as a run's
results, the seed and the human's moves reproducing a game, nothing hidden in any response
(re-dealt twins answer byte for byte the same), bad requests answered in words, and the
command line's one-line errors (issue 38, point 3; the browser is in test_serve_browser.py)."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import bluffsim
from bluffsim.adapters.single import SingleGame
from bluffsim.play import display_for
from bluffsim.replay import open_source, replay_game
from bluffsim.tournament.schedule import Schedule
from bluffsim.web import setup_of
from bluffsim.web.server import Server, serving, warm_up
from bluffsim.web.setup import bind
from bluffsim.web.table import WebGame
from tests.console import bluffsim_here

# (game, flags): short games, the human not always at seat 0
GAMES = [
    ("qdv", ["--rule", "starting_tokens=2", "--seat", "1"]),
    ("legumes", ["--rule", "hand_size=3"]),
    ("veru", ["--seat", "2"]),
    ("liarsdice", ["--rule", "dice=1"]),
]
CLI = [sys.executable, "-m", "bluffsim.cli"]


# ---------------------------------------------------------------- helpers (the browser tests too)
@contextlib.contextmanager
def served(out: Path, game: str, flags: list[str], seed: int = 3) -> Iterator[Server]:
    """A real server of ``bluffsim serve --game GAME FLAGS`` in a background thread on a free
    port of 127.0.0.1, results in ``out``."""
    setup = setup_of(["--game", game, "--out", str(out), "--seed", str(seed), "--port", "0",
                      *flags])
    warm_up(setup)
    with serving(setup, bind("127.0.0.1", 0)) as server:
        yield server


def request(url: str, body: Any = None, tab: str = "tab-a", method: str | None = None
            ) -> tuple[int, str, str]:
    """(status, final URL, body text) of one HTTP request (JSON body when given)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method or ("POST" if data else "GET"),
                                 headers={"X-Bluffsim-Tab": tab, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.geturl(), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, url, e.read().decode()


def new_game(server_url: str) -> str:
    """Deal a game as the start page's button does (POST /new, then its page); its id."""
    status, url, page = request(server_url + "new", method="POST")
    assert status == 200 and "/game/" in url, (status, url)
    assert 'data-page="game"' in page
    return url.rsplit("/", 1)[1]


def first_legal(k: int, view: dict[str, Any]) -> int:
    """A scripted human: the legal actions in turn (the k-th move plays the (k mod n)-th)."""
    actions = view["actions"]
    return actions[k % len(actions)]["id"]


def play_http(server_url: str, gid: str, pick: Callable[[int, dict], int] = first_legal,
              tab: str = "tab-a") -> list[str]:
    """Play game ``gid`` to its end through the API; every response body, in order."""
    base = f"{server_url}api/game/{gid}"
    status, _, text = request(base, tab=tab)
    assert status == 200, text
    bodies = [text]
    view = json.loads(text)
    k = 0
    while not view["over"]:
        assert view["turn"] and view["actions"], view
        status, _, text = request(base + "/move", {"decision": view["decision"],
                                                   "action": pick(k, view)}, tab=tab)
        assert status == 200, text
        bodies.append(text)
        view = json.loads(text)
        k += 1
        assert k < 3000, "the game does not end"
    return bodies


def replayed_states(game: str, players: int, rules: dict, seed: int, actions: list[int],
                    state: Any = None) -> list[Any]:
    """The reference states of a game after 0, 1, ... of its ``actions``."""
    single = SingleGame(game, players, **rules)
    s = single.new_state(seed) if state is None else single.clone(state)
    out = [single.clone(s)]
    for a in actions:
        single.apply(s, a)
        out.append(single.clone(s))
    return out


def hidden_hands(game: str, rules: Any, s: Any, seat: int, tries: int = 4) -> list[str]:
    """The hands of the other seats that ``seat`` cannot know in state ``s`` (a re-deal of what
    it cannot see changes them), in the display's words, those of two cards or more."""
    redeal = bluffsim.spec(game).redeal_hidden
    display = display_for(game, rules, ["x"] * rules.num_players, seat, omniscient=True)
    own = display.cards(s.hand_counts[seat])
    out = []
    for q in range(rules.num_players):
        text = display.cards(s.hand_counts[q])
        if q == seat or sum(s.hand_counts[q]) < 2 or text == own:
            continue
        if any(list(redeal(s, seat, r, rules).hand_counts[q]) != list(s.hand_counts[q])
               for r in range(tries)):
            out.append(text)
    return out


def names_a_whole_list(text: str, cards: str) -> bool:
    """``cards`` (``7, 9, K``) appears in ``text`` as a whole list, not inside a longer one."""
    return re.search(rf"(?<![\w-])(?<!, ){re.escape(cards)}(?![\w-])(?!, ?[\w(])", text) is not None


def check_no_hidden_cards(bodies: list[str], game: WebGame) -> int:
    """Assert that no body of ``game`` (JSON views or pages) before the game's end holds its
    seed or a hand another seat holds hidden at the decision it shows; returns the views
    checked."""
    rules = game.terminal.single.rules
    states = replayed_states(game.setup.game, rules.num_players, game.setup.rules, game.seed,
                             game.actions)
    assert all(int(st.num_decisions) == n for n, st in enumerate(states))
    checked = 0
    for body in bodies:
        try:
            view = json.loads(body)
        except ValueError:
            view = None
        if isinstance(view, dict) and view.get("over"):
            continue
        assert str(game.seed) not in body
        if not isinstance(view, dict) or "decision" not in view:
            continue
        text = json.dumps(view, ensure_ascii=False)
        for cards in hidden_hands(game.setup.game, rules, states[view["decision"]], game.seat):
            assert not names_a_whole_list(text, cards), (view["decision"], cards)
        checked += 1
    return checked


# ---------------------------------------------------------------- full games
@pytest.mark.parametrize("game_id, flags", GAMES, ids=[g for g, _ in GAMES])
def test_a_full_game_over_http_is_written_as_a_runs_results(tmp_path, game_id, flags):
    """A game played through the API to its end: the final screen and seed, then the results
    dir of a run (config with the human seat, games and rounds rows, manifest, summary) and
    the human's transcript; the seed and the human's moves give the same game again."""
    out = tmp_path / "results"
    with served(out, game_id, flags) as server:
        gid = new_game(server.url)
        bodies = play_http(server.url, gid)
        game = server.tables.games[gid]
        assert check_no_hidden_cards(bodies, game) == len(bodies) - 1
    setup = game.setup
    end = json.loads(bodies[-1])
    assert end["over"] and end["result"].startswith("you placed ")
    assert end["seed"] == str(game.seed) and any("game over" in line for line in end["final"])
    assert "game 0 is saved in" in end["saved"]

    config = json.loads((out / "config.json").read_text())
    assert [s["agent"] for s in config["config"]["seats"]][setup.seat] == "human"
    assert config["config"]["game"] == game_id and config["config"]["seed"] == 3
    games = pd.read_parquet(out / "games.parquet")
    assert len(games) == setup.players and set(games["game"]) == {0}
    human = games[games["agent"] == "human"]
    assert human["seat"].tolist() == [setup.seat]
    assert games.sort_values("seat")["placement"].tolist() == end["placements"]
    schedule = Schedule(3, 1, setup.players, rotate=False, shard_games=1)
    assert int(games["seed"].iloc[0]) == int(schedule.seeds(np.array([0]))[0]) == game.seed
    assert (out / "rounds.parquet").is_file() and (out / "manifest.json").is_file()
    assert "human" in (out / "summary.csv").read_text()

    lines = [json.loads(x) for x in (out / "transcripts" / "000000.jsonl").read_text().splitlines()]
    decisions, last = lines[:-1], lines[-1]
    assert len(decisions) == len(bodies) - 1 and last["type"] == "end"
    assert last["agents"][setup.seat] == "human" and last["placements"] == end["placements"]
    assert len(last["hidden"]) == len(decisions)
    for d in decisions:
        assert d["type"] == "decision" and d["agent"] == "human" and d["seat"] == setup.seat
        assert [m["role"] for m in d["messages"]] == ["system", "user"]
        assert d["answers"] == [d["action_text"]] and d["outcome"] == "ok"
        assert d["read"] == [{"outcome": "ok", "reason": "", "action": d["action_text"]}]

    again = WebGame(setup, 0, "again", game.seed)      # the seed and the human's moves
    for d in decisions:
        assert int(again.state.num_decisions) == d["decision"]
        again.move("", d["decision"], action=d["action"])
    assert again.actions == game.actions and again.over
    assert [int(p) for p in again.state.placements] == end["placements"]

    replayed = replay_game(open_source(out), 0, note=lambda _: None)   # bluffsim replay's check
    assert replayed.placements == end["placements"] and replayed.kinds[setup.seat] == "recorded"
    assert [s.action for s in replayed.steps] == game.actions


def test_several_games_at_once_are_numbered_and_all_written(tmp_path):
    """Two tabs play two games interleaved: each its own deal and number, both written."""
    out = tmp_path / "results"
    with served(out, "qdv", ["--rule", "starting_tokens=2"]) as server:
        first, second = new_game(server.url), new_game(server.url)
        assert first != second
        views = {g: json.loads(request(f"{server.url}api/game/{g}", tab=g)[2])
                 for g in (first, second)}
        assert [views[first]["number"], views[second]["number"]] == [0, 1]
        while not all(v["over"] for v in views.values()):
            for g, v in views.items():
                if not v["over"]:
                    status, _, text = request(f"{server.url}api/game/{g}/move",
                                              {"decision": v["decision"], "action": first_legal(0, v)},
                                              tab=g)
                    assert status == 200, text
                    views[g] = json.loads(text)
    games = pd.read_parquet(out / "games.parquet")
    assert sorted(set(games["game"])) == [0, 1]
    assert games.groupby("game")["seed"].first().nunique() == 2
    assert sorted(p.name for p in (out / "transcripts").iterdir()) == ["000000.jsonl",
                                                                       "000001.jsonl"]


def test_a_results_dir_is_continued_by_the_same_setup(tmp_path):
    """A second server on the same dir and setup goes on numbering (and dealing) after the
    games started before; its rows join the first server's."""
    out = tmp_path / "results"
    flags = ["--rule", "starting_tokens=2"]
    with served(out, "qdv", flags) as server:
        play_http(server.url, new_game(server.url))
    with served(out, "qdv", flags) as server:
        gid = new_game(server.url)
        play_http(server.url, gid)
        assert server.tables.games[gid].number == 1
    games = pd.read_parquet(out / "games.parquet")
    assert sorted(set(games["game"])) == [0, 1]
    assert json.loads((out / "config.json").read_text())["config"]["games"] == 2


# ---------------------------------------------------------------- nothing hidden, by re-dealing
class PublicChoices:
    """A test opponent whose public moves do not depend on its cards: it draws among the public
    names of its legal actions (``GameDisplay.public_action``), then plays the lowest action of
    that name, so two deals that differ only in hidden cards get the same public moves."""

    name = "public-choices"
    traits = {"stochastic": True, "uses_history": False}

    def __init__(self, game: Any):
        display = display_for(game.game_id, game.rules, ["x"] * game.num_players, 0)
        self.public = [display.public_action(n) for n in game.action_names]

    def act(self, obs: Any, legal_mask: np.ndarray, rng: Any) -> np.ndarray:
        """One legal action per row (class docstring)."""
        u = rng.uniform(1)[:, 0]
        out = np.empty(legal_mask.shape[0], np.int64)
        for b, row in enumerate(legal_mask):
            ids = np.flatnonzero(row)
            names = sorted({self.public[a] for a in ids})
            chosen = names[int(u[b] * len(names))]
            out[b] = min(a for a in ids if self.public[a] == chosen)
        return out


def same_for_seat(game: str, players: int, rules: dict, seat: int, a: list[Any],
                  b: list[Any], names: tuple[str, ...], acts: tuple[list[int], list[int]]) -> bool:
    """Every observation of ``seat`` so far, and every action's public part, are equal in two
    games (states ``a`` and ``b`` after each action; ``acts`` their actions)."""
    single = SingleGame(game, players, **rules)
    display = display_for(game, single.rules, ["x"] * players, seat)
    if [display.public_action(names[x]) for x in acts[0]] != \
            [display.public_action(names[x]) for x in acts[1]]:
        return False
    for sa, sb in zip(a, b, strict=True):
        oa, ob = single.observation(sa, seat), single.observation(sb, seat)
        if any(not np.array_equal(oa[k], ob[k]) for k in oa):
            return False
    return True


@pytest.mark.parametrize("game_id, flags", GAMES, ids=[g for g, _ in GAMES])
def test_twins_that_differ_only_in_hidden_cards_get_the_same_responses(tmp_path, game_id, flags):
    """The information-set test over HTTP: a second game dealt from the first's deal with every
    card the human cannot see dealt again, its opponents' public moves made the same, answers
    every request byte for byte as the first (its id and number aside) for as long as the
    human's observations of the two games agree."""
    flags = [*flags, "--opponents", "tests.test_serve:PublicChoices", "--players", "3"]
    with served(tmp_path / "results", game_id, flags, seed=11) as server:
        setup = server.tables.setup
        compared = 0
        for deal in range(40):
            if compared >= 8:
                break
            gid = new_game(server.url)
            a = server.tables.games[gid]
            single = a.terminal.single
            twin_deal = bluffsim.spec(game_id).redeal_hidden(single.new_state(a.seed), setup.seat,
                                                             100 + deal, single.rules)
            b = server.tables.new_game(state=twin_deal, seed=a.seed)
            assert not b.recorded
            pages = [request(f"{server.url}game/{g.gid}")[2].replace(g.gid, "ID") for g in (a, b)]
            assert pages[0] == pages[1]
            view_a, view_b = (json.loads(request(f"{server.url}api/game/{g.gid}")[2]) for g in (a, b))
            k = 0
            while not view_a["over"]:
                states = [replayed_states(game_id, setup.players, setup.rules, a.seed, g.actions,
                                          state=s0)
                          for g, s0 in ((a, None), (b, twin_deal))]
                if not same_for_seat(game_id, setup.players, setup.rules, setup.seat, *states,
                                     single.action_names, (a.actions, b.actions)):
                    break
                texts = [json.dumps({**v, "id": "", "number": 0}, ensure_ascii=False)
                         for v in (view_a, view_b)]
                assert texts[0] == texts[1], (deal, k)
                compared += 1
                move = {"decision": view_a["decision"], "action": first_legal(k, view_a)}
                view_a, view_b = (json.loads(request(f"{server.url}api/game/{g.gid}/move", move)[2])
                                  for g in (a, b))
                k += 1
    assert compared >= 8


# ---------------------------------------------------------------- bad requests
def test_bad_requests_are_answered_in_words_and_change_nothing(tmp_path):
    """Unknown games, malformed and illegal moves, a stale page, a second tab, an answer the
    parser cannot play: a 4xx and a message each; the game goes on and the server serves."""
    with served(tmp_path / "results", "qdv", ["--rule", "starting_tokens=2"]) as server:
        url = server.url
        status, _, page = request(url + "game/nope")
        assert status == 404 and "no such game" in page.lower()
        status, _, text = request(url + "api/game/nope")
        assert status == 404 and "no such game" in json.loads(text)["error"]
        gid = new_game(url)
        api = f"{url}api/game/{gid}"
        view = json.loads(request(api)[2])
        move = api + "/move"

        def refused(body: Any, status: int, words: str, tab: str = "tab-a") -> None:
            got, _, text = request(move, body, tab=tab, method="POST")
            assert got == status, text
            assert words in json.loads(text)["error"], text

        refused("not an object", 400, "a move is a JSON object")
        refused({"decision": "one", "action": 0}, 400, "decision must be an integer")
        refused({"decision": view["decision"]}, 400, "send a move")
        legal = {a["id"] for a in view["actions"]}
        illegal = next(a for a in range(1000) if a not in legal)
        refused({"decision": view["decision"], "action": illegal}, 409, "is not a legal move now")
        refused({"decision": view["decision"] + 5, "action": view["actions"][0]["id"]}, 409,
                "reload the page")
        refused({"decision": view["decision"], "answer": "hmm, no idea"}, 422, "cannot be played")
        status, _, text = request(api, tab="tab-b")               # a second tab
        assert status == 409 and "open in another tab" in json.loads(text)["error"]
        refused({"decision": view["decision"], "action": view["actions"][0]["id"]}, 409,
                "open in another tab", tab="tab-b")
        status, _, text = request(api + "/claim", tab="tab-b", method="POST")  # taken over
        assert status == 200 and json.loads(text) == view
        refused({"decision": view["decision"], "action": view["actions"][0]["id"]}, 409,
                "open in another tab", tab="tab-a")
        assert json.loads(request(api, tab="tab-b")[2]) == view    # nothing changed
        notation = view["actions"][0]["text"]
        status, _, text = request(move, {"decision": view["decision"],
                                         "answer": f"I think... {notation.upper()}"}, tab="tab-b")
        assert status == 200, text
        game = server.tables.games[gid]
        first = game.decisions[0]
        assert first["answers"] == ["hmm, no idea", f"I think... {notation.upper()}"]
        assert first["outcome"] == "rethought" and first["rethinks"] == 1
        assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant", "user"]
        assert first["read"][0]["outcome"] == "unparseable" and first["action_text"] == notation
        bodies = play_http(url, gid, tab="tab-b")
        assert json.loads(bodies[-1])["over"]
        refused({"decision": 0, "action": 0}, 409, "the game is over", tab="tab-b")
        assert request(url)[0] == 200


# ---------------------------------------------------------------- the command line
def free_port() -> int:
    """A port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_bluffsim_serve_runs_until_ctrl_c_and_keeps_its_results(tmp_path):
    """The real command: it prints its address, serves a game to its end, refuses a second
    server on its results dir, and stops on Ctrl-C with exit status 0, the game written."""
    out = tmp_path / "results"
    proc = subprocess.Popen([*CLI, "serve", "--game", "qdv", "--rule", "starting_tokens=2",
                             "--port", "0", "--out", str(out), "--seed", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, (line, proc.stderr.read() if proc.poll() is not None else "")
        assert "qdv, 3 players: you at seat 0" in line and "seed 4" in line
        bodies = play_http(url.group(0), new_game(url.group(0)))
        assert json.loads(bodies[-1])["over"]
        second = subprocess.run([*CLI, "serve", "--game", "qdv", "--rule", "starting_tokens=2",
                                 "--port", "0", "--out", str(out)], capture_output=True, text=True,
                                timeout=60)
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1 and "is in use by another bluffsim run" in second.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopped; 1 games saved" in err and "Traceback" not in err
    assert len(pd.read_parquet(out / "games.parquet")) == 3


BAD_FLAGS = [   # (flags, words of the one-line error); {taken}, {other}: dirs made by the test
    (["--game", "chess"], "unknown game 'chess'"),
    (["--game", "qdv", "--players", "9"], "--players 9: qdv is played by 2..6 players"),
    (["--opponents", "wizard"], "--opponents: unknown agent 'wizard'; available: counting"),
    (["--opponents", "human,random"], "the human is the browser's seat (--seat)"),
    (["--opponents", "random,random", "--players", "4"], "2 agents for --players 4"),
    (["--opponents", "heuristic:zzz=1"], "--opponents: seat 1 (heuristic:zzz=1)"),
    (["--seat", "3"], "--seat 3: give a seat 0..2"),
    (["--game", "qdv", "--rule", "starting_tokens=0"], "starting_tokens=0 is invalid"),
    (["--seed", "-1"], "--seed -1: give an integer in 0..9223372036854775807"),
    (["--port", "70000"], "--port 70000: give a port 0..65535"),
    (["--out", "{taken}"], "is not empty and holds no results"),
    (["--out", "{other}"], "holds games of another setup: experiment.game (\"veru\" there"),
]


def bad_flags_error(tmp_path: Path, flags: list[str], words: str,
                    run: Callable[[list[str]], tuple[int, str]]) -> None:
    """Check that ``bluffsim serve FLAGS`` (``run(args) -> (exit status, stderr)``, run in
    ``tmp_path``) is one ``bluffsim: error:`` line with ``words``, exit status 2, nothing served."""
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "config.json").write_text(json.dumps({
        "identity": {"game": "veru"}, "config": {"game": "veru", "seed": 1}}))
    flags = [f.format(taken=tmp_path / "taken", other=tmp_path / "other") for f in flags]
    code, err = run(["serve", "--port", str(free_port()), *flags])
    assert code == 2, err
    assert err.startswith("bluffsim: error: ") and err.count("\n") == 1, err
    assert words in err
    assert not (tmp_path / "results").exists()


def test_bad_flags_are_one_line_errors_before_the_server_starts_from_a_process(tmp_path):
    """One case as a real process (``tests.console``); the others in this process below."""
    flags, words = BAD_FLAGS[0]

    def process(args: list[str]) -> tuple[int, str]:
        r = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        return r.returncode, r.stderr

    bad_flags_error(tmp_path, flags, words, process)


@pytest.mark.parametrize("flags, words", BAD_FLAGS[1:],
                         ids=[" ".join(f) for f, _ in BAD_FLAGS[1:]])
def test_bad_flags_are_one_line_errors_before_the_server_starts(tmp_path, monkeypatch, capsys,
                                                                 flags, words):
    """Each other bad flag, in this process: every one is refused by ``from_flags``, so a call
    of ``bind`` (the port, then the server) fails the test instead of serving here."""
    monkeypatch.chdir(tmp_path)                  # --out defaults to results/serve_<game> here

    def no_bind(host: str, port: int) -> None:
        pytest.fail(f"bluffsim serve got past its flags to bind {host}:{port}")

    monkeypatch.setattr(bluffsim.web, "bind", no_bind)
    bad_flags_error(tmp_path, flags, words, lambda args: bluffsim_here(args, capsys))


def test_a_port_in_use_is_a_one_line_error(tmp_path):
    """Another server on the port: one line naming it, before any work."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        started = time.monotonic()
        r = subprocess.run([*CLI, "serve", "--port", str(port), "--out", str(tmp_path / "r")],
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert f"--port {port}: port {port} on 127.0.0.1 is in use" in r.stderr
    assert time.monotonic() - started < 30 and not (tmp_path / "r").exists()
