"""``bluffsim serve`` in a real browser (headless Debian Chromium, ``tests/browser.py``): a full
game of qdv, legumes and veru against ``random`` opponents, played by clicking the move buttons
the page shows, to the end screen and into the results dir; bad moves sent by the page's own
``fetch`` answered in words; and nothing the human seat cannot see ever in the page or in any
response the browser received.

What is hidden is taken from the server's state of the game, three ways at every step:

* **the page** (``driver.page_source``) and **every response body** (the DevTools performance
  log) must not name the game's seed, nor any other seat's hand of two cards or more that the
  human cannot know, written as the display writes hands (``tests.test_serve.hidden_hands``;
  a single card such as ``7`` can appear for other reasons, so it is left to the next check);
* **a twin**: a second game of the same server dealt beside the human's with every card the
  human cannot see dealt again (``redeal_hidden``, until another seat holds other cards), its
  opponents drawing from the same streams, shown in a second browser and clicked with the
  human's moves.  While the human's observations and the public part of every action of the
  two games agree, the two pages must be the same, byte for byte, apart from the game's id and
  number.  When they part (a showdown shows the other hands), or the twin holds the same hands
  as the game while they could be dealt otherwise (a new round), a new twin is dealt from the
  game where it stands, whose page must agree too (its log starts later, so only the end of
  the human's log is compared).  This catches a leak of anything that depends on hidden cards,
  a single card included.

``test_the_checks_see_a_server_that_leaks`` makes the server leak the other hands (into the page,
or only into the JSON the page reads) and requires the checks to say so, and the full-game test
counts what was looked at, so a pass is not vacuous.

Screenshots of a game under way (1280 x 900) are written to the test's ``tmp_path``; with
``BLUFFSIM_SCREENSHOTS=DIR`` (a dir relative to the repository, e.g. ``docs``) the qdv one is
also written to ``DIR/serve.png`` in 128 colours (docs/serve.md).  Both browsers are shared by
the module's tests; the fixture skips them where Chromium is missing, unless ``CI`` is set.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import os
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import bluffsim
from bluffsim.adapters.single import SingleGame
from bluffsim.play import display_for
from bluffsim.web.table import WebGame
from tests.browser import WINDOW, make_driver, require_chromium, response_bodies
from tests.test_serve import hidden_hands, names_a_whole_list, same_for_seat, served

ROOT = Path(__file__).resolve().parents[1]
OPPONENTS = ["--opponents", "random", "--players", "3"]
# (game, flags, server seed): short games (9 to 19 moves of the human), the human not always
# at seat 0; the human's clicks are drawn from random.Random(server seed)
GAMES = [
    ("qdv", ["--seat", "1"], 0),
    ("legumes", ["--rule", "hand_size=4"], 1),
    ("veru", ["--seat", "2"], 60),
]
SCREENSHOT_STEP = 3      # the human's move before which the page is photographed
BAD_MOVES_STEP = 1       # the human's move before which bad moves are sent
WAIT = 30.0              # seconds a page may take to show the next decision

STATE_JS = """
const m = document.getElementById("message");
return [document.body.dataset.state || "", Number(document.body.dataset.decision ?? -1),
        m && !m.hidden ? document.getElementById("message-text").textContent : ""];
"""
# the page's own fetch, with the page's tab id unless one is given
FETCH_JS = """
const [path, body, tab] = arguments, done = arguments[arguments.length - 1];
fetch(path, {method: "POST", cache: "no-store",
             headers: {"Content-Type": "application/json",
                       "X-Bluffsim-Tab": tab || sessionStorage.getItem("bluffsim-tab")},
             body: JSON.stringify(body)})
  .then(async (r) => done([r.status, await r.text()]), (e) => done([0, String(e)]));
"""


# ---------------------------------------------------------------- the page
def page_state(driver: Any) -> tuple[str, int, str]:
    """(body[data-state], body[data-decision], the message shown or "") of the page."""
    state, decision, message = driver.execute_script(STATE_JS)
    return state, int(decision), message


def wait_shown(driver: Any, after: int | None = None, message: bool = False) -> tuple[str, int]:
    """Wait until the page shows a decision (other than ``after``) or the end, or with
    ``message`` a message at the same decision; (state, decision)."""
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d: Any) -> tuple[str, int] | None:
        state, decision, said = page_state(d)
        if state == "error" and not message:
            raise AssertionError(f"the page says: {said}")
        if message:
            return (state, decision) if said and state == "turn" else None
        if state == "over" or (state == "turn" and decision != after):
            return state, decision
        return None

    return WebDriverWait(driver, WAIT, poll_frequency=0.01).until(ready)


def buttons(driver: Any) -> list[int]:
    """The action ids of the move buttons the page shows."""
    return [int(x) for x in driver.execute_script(
        "return [...document.querySelectorAll('#actions button.action')].map(b => b.dataset.action)")]


def click(driver: Any, action: int, real: bool = True) -> None:
    """Click the move button of ``action``: as a user does (WebDriver's click: the button must
    be shown and not covered), or, not ``real``, by the page's ``button.click()`` (quicker)."""
    from selenium.webdriver.common.by import By

    selector = f'#actions button[data-action="{action}"]'
    if real:
        driver.find_element(By.CSS_SELECTOR, selector).click()
    else:
        assert driver.execute_script("const b = document.querySelector(arguments[0]);"
                                     "if (!b || b.disabled) return false; b.click(); return true",
                                     selector), selector


def page_fetch(driver: Any, path: str, body: Any, tab: str | None = None) -> tuple[int, str]:
    """(status, body) of a POST the page's own ``fetch`` sends."""
    status, text = driver.execute_async_script(FETCH_JS, path, body, tab)
    return int(status), text


def normalised(source: str, gid: str) -> str:
    """A page's source without what differs between two games of one server: the id, and the
    number in the title."""
    source = source.replace(gid, "ID")
    return re.sub(r": game -?\d+ · bluffsim</title>", ": game N · bluffsim</title>", source)


def log_entries(source: str) -> list[str]:
    """The entries of the page's log (``<li>`` of ``#history``)."""
    m = re.search(r'<ol id="history"[^>]*>(.*?)</ol>', source, re.S)
    return re.findall(r"<li\b.*?</li>", m.group(1), re.S) if m else []


def without_log(source: str) -> str:
    """A page's source with its log emptied."""
    return re.sub(r'(<ol id="history"[^>]*>).*?(</ol>)', r"\1\2", source, flags=re.S)


# ---------------------------------------------------------------- what is hidden
@dataclass
class Dealt:
    """A game of the server and the state it was dealt from (None: its seed's deal), replayed on
    an engine of the test's own."""

    game: WebGame
    start: Any = None
    replayed: list[Any] = field(default_factory=list)
    engine: Any = None

    def states(self) -> list[Any]:
        """Its reference states after 0, 1, ... of its actions (replayed from its deal)."""
        g, actions = self.game, list(self.game.actions)
        if self.engine is None:
            self.engine = SingleGame(g.setup.game, g.setup.players, **g.setup.rules)
            self.replayed = [self.engine.new_state(g.seed) if self.start is None
                             else self.engine.clone(self.start)]
        while len(self.replayed) <= len(actions):
            s = self.engine.clone(self.replayed[-1])
            self.engine.apply(s, actions[len(self.replayed) - 1])
            self.replayed.append(s)
        return self.replayed[:len(actions) + 1]

    def state_at(self, decision: int) -> Any:
        """Its state at decision ``decision``."""
        states = self.states()
        return states[decision - int(states[0].num_decisions)]


def hidden_in(text: str, dealt: Dealt, state: Any) -> tuple[list[str], int]:
    """What of ``dealt`` hidden from the human at ``state`` ``text`` names (the seed, the other
    hands: module docstring), and how many hands were looked for."""
    g = dealt.game
    found = [f"the seed {g.seed}"] if str(g.seed) in text else []
    hands = hidden_hands(g.setup.game, g.terminal.single.rules, state, g.seat)
    found += [f"a hidden hand {cards!r}" for cards in hands if names_a_whole_list(text, cards)]
    return found, len(hands)


def others_differ(a: Any, b: Any, seat: int) -> bool:
    """Some other seat holds other cards in state ``a`` than in state ``b``."""
    return any(list(a.hand_counts[q]) != list(b.hand_counts[q])
               for q in range(len(a.hand_counts)) if q != seat)


def redealt(game: WebGame, state: Any, seed: int, tries: int = 4) -> Any:
    """``state`` with every card ``game``'s human cannot see dealt again, by the first of
    ``tries`` seeds from ``seed`` that gives another seat other cards (None when none does:
    the human knows every hand, e.g. at a showdown)."""
    redeal, rules = bluffsim.spec(game.setup.game).redeal_hidden, game.terminal.single.rules
    for r in range(seed, seed + tries):
        out = redeal(state, game.seat, r, rules)
        if others_differ(out, state, game.seat):
            return out
    return None


@dataclass
class Twin:
    """A twin of the human's game (module docstring), shown in the second browser: dealt from
    the human's game's state after ``first`` of its actions (0: from the same deal, the whole
    log compared)."""

    dealt: Dealt
    first: int
    shown: int = -1      # the decision its page shows

    def comparable(self, main: Dealt) -> bool:
        """The human's observations and every action's public part agree in the two games since
        the twin was dealt."""
        g, t = main.game, self.dealt.game
        mine, theirs = g.actions[self.first:], t.actions
        if len(mine) != len(theirs) or t.over:
            return False
        return same_for_seat(g.setup.game, g.setup.players, g.setup.rules, g.seat,
                             main.states()[self.first:], self.dealt.states(),
                             g.terminal.single.action_names, (mine, theirs))


@dataclass
class Checks:
    """What the checks found (each list empty when nothing hidden was seen), and how much they
    looked at (so a pass is not vacuous)."""

    page: list[str] = field(default_factory=list)       # hidden things in the page source
    network: list[str] = field(default_factory=list)    # hidden things in response bodies
    twin: list[str] = field(default_factory=list)       # pages that differ from their twin's
    pages: int = 0             # page sources checked
    hands: int = 0             # hidden hands looked for in them
    views: dict[str, int] = field(default_factory=dict)   # JSON views checked, by game id
    bodies: int = 0            # response bodies checked
    twins: int = 0             # pages compared with their twin's
    hideable: int = 0          # ... where other hands could be dealt otherwise
    redealt: int = 0           # ... where the twin's other hands differ
    twins_dealt: int = 0


class Table:
    """The human's game in the first browser and its twin in the second, checked at every
    decision (module docstring)."""

    def __init__(self, driver: Any, twin_driver: Any, server: Any, gid: str):
        self.driver, self.twin_driver, self.server = driver, twin_driver, server
        self.tables = server.tables
        self.main = Dealt(self.tables.games[gid])
        self.games: dict[str, Dealt] = {gid: self.main}
        self.checks = Checks()
        self.twin: Twin | None = None
        self.redeals = 100

    # ---------------------------------------------------------------- the twin
    def deal_twin(self) -> Twin:
        """A new twin dealt from the human's game where it stands (the first from the deal at
        its start), opened in the second browser."""
        g = self.main.game
        single = g.terminal.single
        first = len(g.actions) if self.twin else 0
        here = single.new_state(g.seed) if first == 0 else single.clone(g.state)
        self.redeals += 10
        start = redealt(g, here, self.redeals)
        if start is None:      # nothing of the hands to deal again: the deck and the rest only
            start = bluffsim.spec(g.setup.game).redeal_hidden(here, g.seat, self.redeals,
                                                               single.rules)
        game = self.tables.new_game(state=start, seed=g.seed)
        assert not game.recorded
        dealt = Dealt(game, single.clone(start))
        self.games[game.gid] = dealt
        self.twin = Twin(dealt, first)
        self.twin_driver.get(f"{self.server.url}game/{game.gid}")
        self.checks.twins_dealt += 1
        assert self.twin.comparable(self.main), "a re-deal the human could tell apart"
        return self.twin

    def compare_twin(self, source: str, decision: int) -> Twin:
        """Compare the human's page at ``decision`` with its twin's (module docstring): a new
        twin when the last one parted from the human's game, or holds the same hands while
        some could be dealt otherwise."""
        main, twin = self.main.game, self.twin
        hidden = redealt(main, main.state, 0) is not None
        if twin is not None:
            _, twin.shown = wait_shown(self.twin_driver, after=twin.shown)
        if twin is None or not twin.comparable(self.main) or \
                (hidden and not others_differ(main.state, twin.dealt.game.state, main.seat)):
            twin = self.deal_twin()
            _, twin.shown = wait_shown(self.twin_driver)
        assert twin.shown == decision, (twin.shown, decision)
        theirs = self.twin_driver.page_source
        self.check_page(theirs, twin.dealt, decision)
        self.check_network(self.twin_driver)
        mine, theirs = (normalised(s, d.game.gid) for s, d in ((source, self.main),
                                                               (theirs, twin.dealt)))
        if twin.first:     # dealt later: its log is the end of the human's
            entries = [e for e in log_entries(theirs) if 'class="deal"' not in e]
            if log_entries(mine)[len(log_entries(mine)) - len(entries):] != entries:
                self.checks.twin.append(f"decision {decision}: the log differs from the twin's")
            mine, theirs = without_log(mine), without_log(theirs)
        if mine != theirs:
            self.checks.twin.append(f"decision {decision}: the page differs from the twin's "
                                    f"(dealt after {twin.first} actions)")
        self.checks.twins += 1
        self.checks.hideable += hidden
        self.checks.redealt += others_differ(main.state, twin.dealt.game.state, main.seat)
        return twin

    # ---------------------------------------------------------------- the checks
    def check_page(self, source: str, dealt: Dealt, decision: int) -> None:
        """The page of ``dealt`` at ``decision`` must not name what it hides."""
        state = dealt.game.state
        assert int(state.num_decisions) == decision
        found, hands = hidden_in(html.unescape(source), dealt, state)
        self.checks.page += [f"{dealt.game.gid} decision {decision}: {x}" for x in found]
        self.checks.pages += 1
        self.checks.hands += hands

    def check_network(self, driver: Any) -> None:
        """Every response ``driver`` received since the last call must not name what the game
        it shows hides at the decision it shows (a response of no game: the human's game now)."""
        for url, body in response_bodies(driver, self.server.url):
            try:
                view = json.loads(body)
            except ValueError:
                view = None
            dealt = self.games.get(view.get("id")) if isinstance(view, dict) else None
            if dealt is not None and view.get("over"):
                continue        # the end of a game shows every hand
            if dealt is not None:
                state = dealt.state_at(view["decision"])
                text = json.dumps(view, ensure_ascii=False)
                self.checks.views[dealt.game.gid] = self.checks.views.get(dealt.game.gid, 0) + 1
            else:
                dealt, state, text = self.main, self.main.game.state, body + html.unescape(body)
            self.checks.network += [f"{url}: {x}" for x in hidden_in(text, dealt, state)[0]]
            self.checks.bodies += 1

    # ---------------------------------------------------------------- playing
    def play(self, rng: random.Random, moves: int | None = None,
             before: Callable[[int, int], None] = lambda k, d: None) -> int:
        """Click moves (drawn by ``rng`` among the buttons) until the game's end, or ``moves``
        moves, the twin's page clicked alike; ``before(k, decision)`` runs before the k-th.
        The human's moves."""
        driver = self.driver
        state, decision = wait_shown(driver)
        k = 0
        while state != "over" and (moves is None or k < moves):
            source = driver.page_source
            self.check_page(source, self.main, decision)
            self.check_network(driver)
            before(k, decision)
            action = rng.choice(buttons(driver))
            self.compare_twin(source, decision)
            click(self.twin_driver, action, real=False)    # waited for at the next move
            click(driver, action)
            state, decision = wait_shown(driver, after=decision)
            k += 1
            assert k < 500, "the game does not end"
        self.check_network(driver)
        return k


def screenshot(driver: Any, path: Path, small: bool = False) -> None:
    """A PNG of the page from its top, 1280 x 900 (``tests.browser.WINDOW``); ``small``: in 128
    colours, for the docs (under 200 KB)."""
    width, height = WINDOW
    driver.execute_script("window.scrollTo(0, 0)")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    try:
        png = driver.get_screenshot_as_png()
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    if small:
        from PIL import Image

        image = Image.open(io.BytesIO(png)).convert("RGB").quantize(128)
        buffer = io.BytesIO()
        image.save(buffer, "PNG", optimize=True)
        png = buffer.getvalue()
        assert len(png) < 200_000, len(png)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)


@pytest.fixture(scope="module")
def browsers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """Two headless Chromiums with the performance log (``tests.browser``; skipped where
    Chromium is missing, failed under ``CI``), the human's and the twin's, shared by this
    module's tests (starting one takes a second)."""
    require_chromium()
    tmp = tmp_path_factory.mktemp("chromium")
    with contextlib.ExitStack() as stack:
        drivers = []
        for _ in range(2):
            driver = make_driver(tmp, performance_log=True)
            stack.callback(driver.quit)
            drivers.append(driver)
        yield drivers[0], drivers[1]


@pytest.fixture
def two(browsers: tuple[Any, Any]) -> tuple[Any, Any]:
    """The two browsers, on a blank page with their performance logs emptied."""
    for driver in browsers:
        driver.get("about:blank")
        driver.get_log("performance")
    return browsers


def open_new_game(driver: Any, server: Any) -> str:
    """Open the start page and click *New game*; the game's id."""
    from selenium.webdriver.common.by import By

    driver.get(server.url)
    assert driver.find_element(By.CSS_SELECTOR, "body").get_attribute("data-page") == "index"
    driver.find_element(By.ID, "new-game").click()
    wait_shown(driver)
    assert "/game/" in driver.current_url
    return driver.current_url.rsplit("/", 1)[1]


# ---------------------------------------------------------------- a full game
@pytest.mark.parametrize("game_id, flags, seed", GAMES, ids=[g for g, _, _ in GAMES])
def test_a_full_game_in_the_browser_shows_nothing_hidden(two, tmp_path, game_id, flags, seed):
    """Clicking the page's buttons plays a whole game to its end screen, the game is written to
    the results dir with the human as agent ``human``, bad moves are answered in words, and the
    page and the responses never show what the human cannot see (module docstring)."""
    from selenium.webdriver.common.by import By

    out = tmp_path / "results"
    driver, twin_driver = two
    with served(out, game_id, [*flags, *OPPONENTS], seed=seed) as server:
        gid = open_new_game(driver, server)
        table = Table(driver, twin_driver, server, gid)
        game = table.main.game
        api = f"/api/game/{gid}"
        garbage = "hmm, no idea"

        def before(k: int, decision: int) -> None:
            if k == SCREENSHOT_STEP:
                screenshot(driver, tmp_path / f"serve_{game_id}.png")
                docs = os.environ.get("BLUFFSIM_SCREENSHOTS")
                if docs and game_id == "qdv":
                    screenshot(driver, ROOT / docs / "serve.png", small=True)
            if k != BAD_MOVES_STEP:
                return
            legal = set(buttons(driver))
            illegal = next(a for a in range(1000) if a not in legal)
            for body, tab, status, words in [
                ({"decision": decision, "action": illegal}, None, 409, "is not a legal move now"),
                ({"decision": decision + 5, "action": min(legal)}, None, 409, "reload the page"),
                ({"decision": decision, "action": min(legal)}, "another-tab", 409,
                 "open in another tab"),
                ({"decision": decision, "action": "first"}, None, 400, "action must be an integer"),
            ]:
                got, text = page_fetch(driver, api + "/move", body, tab)
                assert got == status and words in json.loads(text)["error"], (got, text)
            assert int(game.state.num_decisions) == decision      # nothing was played
            driver.find_element(By.ID, "answer").send_keys(garbage)   # typed: said on the page
            driver.find_element(By.ID, "send").click()
            wait_shown(driver, message=True)
            state, shown, said = page_state(driver)
            assert (state, shown) == ("turn", decision) and "cannot be played" in said, said
            assert repr(garbage) in said

        moves = table.play(random.Random(seed), before=before)

        # the end screen
        assert page_state(driver) == ("over", int(game.state.num_decisions), "")
        assert not driver.find_element(By.ID, "end").get_attribute("hidden")
        assert driver.find_element(By.ID, "moves").get_attribute("hidden")
        result = driver.find_element(By.ID, "result").text
        assert result.startswith("Game over: you placed "), result
        assert "game over" in driver.find_element(By.ID, "final").text.lower()
        assert str(game.seed) in driver.find_element(By.ID, "seed").text
        assert "game 0 is saved in" in driver.find_element(By.ID, "saved").text
        # a move after the end, then the server still serves
        got, text = page_fetch(driver, api + "/move", {"decision": 0, "action": 0})
        assert got == 409 and "the game is over" in json.loads(text)["error"], text
        driver.get(server.url)
        assert driver.find_element(By.ID, "new-game").is_displayed()

    checks = table.checks
    assert checks.page == [], f"the page shows what is hidden: {checks.page[:3]}"
    assert checks.network == [], f"a response holds what is hidden: {checks.network[:3]}"
    assert checks.twin == [], f"the page depends on hidden cards: {checks.twin[:3]}"
    # not vacuous: every view the page got was checked, hidden hands were looked for, twins
    # with other cards were compared at every decision
    assert moves >= 8 and game.over
    assert checks.views[gid] == moves, (checks.views, moves)
    assert checks.pages >= 2 * moves and checks.hands >= moves
    assert checks.twins == moves and checks.redealt == checks.hideable >= moves // 2, checks
    assert checks.bodies > moves and checks.twins_dealt >= 2

    # the results dir holds the game, the human as agent human, the typed answer a rethink
    games = pd.read_parquet(out / "games.parquet")
    assert set(games["game"]) == {0} and len(games) == game.setup.players
    human = games[games["agent"] == "human"]
    assert human["seat"].tolist() == [game.seat]
    lines = [json.loads(x) for x in (out / "transcripts" / "000000.jsonl").read_text().splitlines()]
    decisions = [x for x in lines if x["type"] == "decision"]
    assert len(decisions) == moves and all(d["agent"] == "human" for d in decisions)
    assert [d["answers"][0] for d in decisions if d["outcome"] == "rethought"] == [garbage]
    movers = [int(s.current_player) for s in table.main.states()[:-1]]
    assert [d["action"] for d in decisions] == [a for q, a in zip(movers, game.actions, strict=True)
                                                if q == game.seat]


# ---------------------------------------------------------------- the checks are not vacuous
def leaky_view(where: str) -> Callable[[WebGame], dict[str, Any]]:
    """``WebGame.view`` that also sends the other seats' hands as the display writes them:
    into the text the page shows (``page``), or in a field the page never shows (``json``)."""
    view = WebGame.view

    def leak(self: WebGame) -> dict[str, Any]:
        out = view(self)
        if self.over:
            return out
        rules = self.terminal.single.rules
        display = display_for(self.setup.game, rules, ["x"] * rules.num_players, self.seat,
                              omniscient=True)
        hands = [f"seat {q} holds {display.cards(self.state.hand_counts[q])}"
                 for q in range(rules.num_players) if q != self.seat]
        if where == "page" and "view" in out:
            out["view"] += "\n" + "\n".join(hands)
        if where == "json":
            out["debug"] = hands
        return out

    return leak


@pytest.mark.parametrize("where", ["page", "json"])
def test_the_checks_see_a_server_that_leaks(two, tmp_path, monkeypatch, where):
    """A server that sends the other hands fails the checks: a leak into the page fails all
    three, a leak only into the JSON the page reads fails the network check."""
    monkeypatch.setattr(WebGame, "view", leaky_view(where))
    game_id, flags, seed = GAMES[1]
    with served(tmp_path / "results", game_id, [*flags, *OPPONENTS], seed=seed) as server:
        table = Table(*two, server, open_new_game(two[0], server))
        table.play(random.Random(seed), moves=3)
    checks = table.checks
    assert checks.network and any("a hidden hand" in x for x in checks.network), checks
    if where == "page":
        assert checks.page and any("a hidden hand" in x for x in checks.page), checks
        assert checks.twin, checks
    else:
        assert checks.page == [] and checks.twin == [], checks

