"""``bluffsim play``: full games through a pseudo-terminal, what the screen may and may not show,
``--watch`` and the input errors (issue 12, points 12-14; issue 13, the ``--seed`` bound)."""

from __future__ import annotations

import copy
import io
import re
import subprocess
import sys

import numpy as np
import pytest

import bluffsim
from bluffsim.api import BluffsimError
from bluffsim.games.display import Event
from bluffsim.play import SeatSpec, TerminalGame, display_for, parse_seats
from tests.console import bluffsim_here

PROMPT = r"your move \(0-\d+, name, q\): "

GAMES = [
    ("qdv", "human,random", {"starting_tokens": 2}),
    ("legumes", "human,counting", {"hand_size": 3}),
    ("veru", "human,heuristic,counting", {}),
]


def face_down_card(game_id: str, action: str) -> str | None:
    """The engine name of the card an action puts face down (None if it puts none)."""
    words = action.split()
    if game_id == "legumes" and (words[0] in ("open", "play") or (words[0] == "reverse"
                                                                  and len(words) > 1)):
        return words[1]
    if game_id == "veru" and words[0] == "put":
        return words[1]
    return None


def without_hidden_card(game_id: str, action: str) -> str:
    """An action name with the card it hides blanked (``play carrot-1`` -> ``play ?``); the
    test's own reading of the rules, independent of the display's ``public_action``."""
    words = action.split()
    if face_down_card(game_id, action) is not None or (game_id == "veru" and words[0] == "swap"):
        words[1] = "?"
    return " ".join(words)


def shown_names(game_id: str, engine_name: str) -> list[str]:
    """The names a display may use for a card (engine name and display name)."""
    if game_id == "legumes":
        from bluffsim.games.legumes.display import card_name
        from bluffsim.games.legumes.rules import CARD_NAMES
        return sorted({engine_name, card_name(CARD_NAMES.index(engine_name))})
    return [engine_name]


def mentions(line: str, name: str) -> bool:
    """``name`` appears in ``line`` as a whole token (``7`` is not in ``7s`` nor ``17``)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", line) is not None


def replay(game_id: str, seats: str, seed: int, options: dict) -> TerminalGame:
    """The same game in-process: the human always answers 0 (as the pexpect test does)."""
    out = io.StringIO()
    game = TerminalGame(game_id, parse_seats(seats), seed, options, read=lambda _: "0", out=out)
    assert game.play()
    return game


# ---------------------------------------------------------------- full games in a terminal
@pytest.mark.parametrize("game_id, seats, options", GAMES)
def test_a_person_plays_a_full_game_without_seeing_face_down_cards(game_id, seats, options):
    """Points 12 and 13: a full game through a pty; no opponent face-down card is named when
    it is played, each round ends in one sentence, a final screen lists every seat."""
    pexpect = pytest.importorskip("pexpect")
    rules = [x for k, v in options.items() for x in ("--rule", f"{k}={v}")]
    log = io.StringIO()
    child = pexpect.spawn(sys.executable, ["-m", "bluffsim.cli", "play", game_id, "--seats", seats,
                                           "--seed", "4", *rules],
                          encoding="utf-8", timeout=60, maxread=100_000)
    child.logfile_read = log
    child.expect(f"{game_id}, seed 4: seat 0 human")
    turns = 0
    while True:
        i = child.expect([PROMPT, "=== game over"])
        if i == 1:
            break
        if turns == 0:  # a typo re-prompts and loses nothing
            child.sendline("not-an-action")
            child.expect("is not a legal choice")
            child.expect(PROMPT)
        child.sendline("0")
        turns += 1
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert turns > 0
    screen = log.getvalue().replace("\r\n", "\n")
    assert "round 1 over: " in screen
    p = len(seats.split(","))
    for seat in range(p):
        assert re.search(rf"^  seat {seat} \([^)]*\): place \d+ · ", screen, re.M), seat

    # the same game replayed in-process tells which card each opponent put face down
    game = replay(game_id, seats, 4, options)
    for record in game.log:
        for line in record.lines:
            assert line in screen, line
    hidden_plays = 0
    for record in game.log:
        card = face_down_card(game_id, record.action)
        if record.seat == 0 or card is None:
            continue
        hidden_plays += 1
        for line in record.lines:
            said = re.sub(r"^seat \d+ \([^)]*\): ", "", line)  # "seat 2 (…):" names a seat, not card 2
            assert not any(mentions(said, n) for n in shown_names(game_id, card)), (record, line)
        if record.lines:  # a veru claim is one line, printed with its last card
            assert "face down, claiming " in record.lines[0], record.lines
    assert game_id == "qdv" or hidden_plays > 0
    if game_id == "qdv":  # hands are hidden until a call shows them all
        for record in game.log:
            if record.seat != 0 and record.action.startswith("+"):
                assert re.fullmatch(r"seat \d \(\w+\): bids \d+ × \w+( \(the marker moves to \w+\))?",
                                    record.lines[0]), record.lines


@pytest.mark.parametrize("game_id, seats, options", [
    *GAMES, ("veru", "human,random,random,random", {"joker_swap_seats": (1, 2), "check_seats": (3,)}),
    ("legumes", "human,random,random", {"hand_size": 4, "reverse_alone": True})])
def test_what_a_human_reads_depends_only_on_their_information_set(game_id, seats, options):
    """Point 12, by construction: re-dealing every card seat 0 cannot see (and swapping the
    opponent's face-down card for another one) changes neither the line describing an
    opponent's decision nor seat 0's table."""
    from bluffsim.adapters.single import SingleGame

    p = len(seats.split(","))
    single = SingleGame(game_id, p, **options)
    reference = bluffsim.spec(game_id).reference
    display = display_for(game_id, single.rules, ["human"] + ["agent"] * (p - 1), viewer=0)
    agents = __import__("agents")
    bots = {i: agents.make("random", single.vectorised()) for i in range(p)}
    reveals = {"qdv": ("vrai", "menteur"), "legumes": ("accuse",),
               "veru": ("believe", "disbelieve", "timeout")}[game_id]
    compared = 0
    for seed in range(30):
        if compared >= 40:
            break
        s = single.new_state(seed)
        while not s.done:
            seat = s.current_player
            action = single.agent_action(bots[seat], s, seed)
            name = single.action_names[action]
            if seat != 0 and name.split()[0] not in reveals:
                lines = describe_for(single, copy.deepcopy(display), s, seat, name)
                other = reference.redeal_hidden(s, 0, seed + 100, single.rules)
                twins = sorted((n == name, n) for n in map(single.action_names.__getitem__,
                                                            single.legal_actions(other))
                               if without_hidden_card(game_id, n) == without_hidden_card(game_id, name))
                twins = [n for _, n in twins]  # another card first, when the re-deal allows one
                # (a re-deal may take away the very card: then there is nothing to compare)
                if twins and not _drew_challenge(game_id, single, s, name):
                    twin_lines = describe_for(single, copy.deepcopy(display), other, seat, twins[0])
                    assert lines == twin_lines, (name, twins[0])
                    compared += 1
                assert (display.status(single.observation(s, 0))
                        == display.status(single.observation(other, 0)))
            single.apply(s, action)
    assert compared >= 40


def describe_for(single, display, s, seat, name):
    """The lines seat 0 reads when ``seat`` plays ``name`` in ``s`` (``s`` is not changed)."""
    s2 = single.clone(s)
    before = single.observation(s2, 0)
    single.apply(s2, name)
    ev = Event(actor=seat, name=display.public_action(name), viewer=0, before=before,
               after=single.observation(s2, 0))
    return display.describe(ev)


def _drew_challenge(game_id, single, s, name) -> bool:
    """A qdv bid that draws a challenge: its effect is chance (a redeal reshuffles that deck)."""
    if game_id != "qdv":
        return False
    s2 = single.clone(s)
    single.apply(s2, name)
    return s2.chal_ptr != s.chal_ptr or s2.num_rounds != s.num_rounds


def test_q_leaves_the_game_with_status_0():
    """Point 13: ``q`` exits with status 0."""
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "bluffsim.cli", "play", "legumes", "--seats",
                                           "human,random", "--seed", "1"],
                          encoding="utf-8", timeout=60)
    child.expect("your cards: ")
    child.expect(r"\[0\] ")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("you left the game")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_table_is_in_words():
    """Point 13: the qdv circle with its markers, bids as ``seat k: n × fruit``, phases as
    words, ``punish`` by seat; veru closed ranks and the last check in words."""
    from bluffsim.games.qdv.observe import observation_fields as qdv_obs
    from bluffsim.games.qdv.reference import scenario as qdv_scenario
    from bluffsim.games.veru.observe import observation_fields as veru_obs
    from bluffsim.games.veru.reference import scenario as veru_scenario

    game, s = qdv_scenario([["grape"], ["cherry"], ["banana"]], centre="watermelon",
                           tokens=[3, 3, 3])
    game.apply(s, "+1 apricot")
    d = display_for("qdv", game.rules, ["human", "random", "random"], viewer=2)
    text = "\n".join(d.status(qdv_obs(game.rules, s, 2)))
    assert "[watermelon: start] → [apricot: marker]" in text
    assert "bids this round: initial 1 × watermelon · seat 1: 2 × apricot" in text
    assert "phase: bidding" in text
    assert d.action_label("punish 1", qdv_obs(game.rules, s, 2)) == "make seat 0 (human) lose a token"

    game, s = veru_scenario([["7", "7", "8"], ["9", "9"], ["10", "2", "2", "2", "2"]],
                            opener=0, jokers=0)
    for a in ("announce 7", "put 8", "done", "disbelieve"):
        game.apply(s, a)
    d = display_for("veru", game.rules, ["human", "random", "random"], viewer=2)
    text = "\n".join(d.status(veru_obs(game.rules, s, 2)))
    assert "closed ranks: 2s" in text
    assert "last check: seat 1 disbelieved seat 0's claim: it was false; seat 0 takes" in text


@pytest.mark.parametrize("game_id", ["qdv", "legumes", "veru"])
def test_watch_shows_every_hand_as_a_spectator(game_id):
    """Point 14: an all-agent game, decision by decision, every hand labelled spectator view,
    agent parameters in --seats."""
    seats = {"qdv": "heuristic:bluff=0.3,counting,random",
             "legumes": "heuristic:accuse_rate=0.3,counting,random",
             "veru": "heuristic:bluff=0.3:trust=0.5,counting,random"}[game_id]
    rules = {"qdv": ["--rule", "starting_tokens=2"], "legumes": ["--rule", "hand_size=3"],
             "veru": []}[game_id]
    r = subprocess.run([sys.executable, "-m", "bluffsim.cli", "play", game_id, "--watch",
                        "--seats", seats, "--seed", "3", *rules],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert re.search(r"^\[spectator view\] every hand and every face-down card is shown", out, re.M)
    assert re.search(r"\[spectator view\] hands: seat 0: .+ \| seat 1: .+ \| seat 2: ", out)
    assert f"seat 0 ({seats.split(',')[0]}): " in out
    assert "=== game over" in out
    if game_id == "legumes":
        assert re.search(r"plays [a-z]+-\d face down, claiming", out)
    if game_id == "veru":
        assert re.search(r"puts \w+ cards? face down, claiming \w+ \([\w, ]+\)", out)


def test_a_custom_agent_takes_a_seat_with_its_parameters():
    """Issue 13 point 10: ``package.module:ClassName[:key=value]`` seats a custom agent in play."""
    seats = parse_seats("experiments.my_agent:Skeptic:p_call=0.9,random", watch=True)
    assert [(s.name, s.params) for s in seats] == [("experiments.my_agent:Skeptic", {"p_call": 0.9}),
                                                    ("random", {})]
    r = subprocess.run([sys.executable, "-m", "bluffsim.cli", "play", "qdv", "--watch", "--seats",
                        "experiments.my_agent:Skeptic:p_call=0.9,random", "--seed", "3",
                        "--rule", "starting_tokens=2"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "seat 0 (experiments.my_agent:Skeptic" in r.stdout
    assert "=== game over" in r.stdout
    bad = subprocess.run([sys.executable, "-m", "bluffsim.cli", "play", "qdv", "--watch", "--seats",
                          "experiments.nowhere:Nobody,random"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2
    lines = bad.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown seat 'experiments.nowhere:Nobody'" in lines[0]


def test_seats_take_agent_parameters():
    """Point 14: ``name:key=value:key=value`` seats; a human takes none."""
    seats = parse_seats("heuristic:bluff=0.3:trust=0.5,counting,random", watch=True)
    assert seats[0] == SeatSpec("heuristic", {"bluff": 0.3, "trust": 0.5})
    assert seats[0].label == "heuristic:bluff=0.3:trust=0.5"
    with pytest.raises(BluffsimError, match="every seat must be an agent"):
        parse_seats("human,random", watch=True)
    with pytest.raises(BluffsimError, match="NAME=VALUE"):
        parse_seats("human,heuristic:bluff")


def test_the_display_words_reverse_with_a_card_and_accept():
    """The revised legumes actions (``reverse <card>``, ``accept``) are worded without the card."""
    d = display_for("legumes", __import__("bluffsim").game_module("legumes").Rules(num_players=3),
                    ["human", "random", "random"], viewer=0)
    assert d.public_action("reverse carrot-2") == "reverse card"
    obs = {"last_owner": np.int8(1), "called": np.int8(0), "num_rounds": np.int32(0),
           "hand_sizes": np.array([3, 0, 4], np.int8), "phase": np.int8(2),
           "direction": np.int8(1)}
    ev = Event(actor=2, name="reverse card", viewer=0, before=obs,
               after=dict(obs, phase=np.int8(1), direction=np.int8(-1)))
    (line,) = d.describe(ev)
    assert "plays Reverse face up with a card face down, claiming carrot" in line
    assert "carrot-" not in line
    ev = Event(actor=2, name="accept", viewer=0, before=obs, after=obs)
    assert d.describe(ev) == ["seat 2 (random): accepts seat 1's last card",
                              "the game is over: seat 1's last card was accepted"]


@pytest.mark.parametrize("args, message", [
    (["play", "qdv", "--seats", "human,wizard"], "unknown seat 'wizard'"),
    (["play", "qdv", "--seats", "random,random"], "name at least one 'human' seat"),
    (["play", "chess"], "unknown game 'chess'"),
    (["play", "qdv", "--rule", "starting_tokens"], "write NAME=VALUE"),
    (["play", "qdv", "--seats", "human,random", "--rule", "starting_tokens=0"], "starting_tokens"),
    (["play", "qdv", "--seats", "human,random", "--seed", str(2**64)], "--seed 18446744073709551616"),
    (["play", "qdv", "--seats", "human,random", "--seed", "-1"], "0..18446744073709551615"),
    (["play", "qdv", "--watch", "--rule", "num_players=3"], "number of --seats"),
    (["play", "qdv", "--watch", "--seats", "human,random"], "every seat must be an agent"),
    (["play", "qdv", "--watch", "--seats", "heuristic:zzz=1,random"], "unknown parameter(s) zzz"),
    (["play", "qdv", "--seats", "human"], "--seats: 1 seat; qdv is played by 2..6 players"),
    (["play", "veru", "--watch", "--seats", "random,random"], "veru is played by 3..6 players"),
    (["play", "qdv", "--watch", "--delay", "-1"], "--delay -1: give a finite number of seconds >= 0"),
    (["play", "qdv", "--watch", "--delay", "inf"], "--delay inf: give a finite number"),
    (["play", "qdv", "--watch", "--delay", "nan"], "--delay nan: give a finite number"),
    (["play", "qdv", "--seats", "human,random", "--delay", "1"], "--delay 1 paces --watch only"),
])
def test_bad_play_arguments_are_one_line_errors(args, message, capsys):
    """Bad arguments (a seed beyond 2**64-1 included) print one line and exit 2."""
    code, err = bluffsim_here(args, capsys)
    assert code == 2
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_bad_play_argument_in_a_real_process_is_one_line():
    r = subprocess.run([sys.executable, "-m", "bluffsim.cli", "play", "qdv", "--seats",
                        "human,wizard"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.startswith("bluffsim: error: ")
    assert "unknown seat 'wizard'" in r.stderr and r.stderr.count("\n") == 1


def test_a_token_challenge_that_ends_the_game_is_one_sentence():
    """Point 13 with qdv's immediate elimination: a bid whose ``token`` challenge takes the
    bidder to 0 in a two-player game ends the game at once, said in words."""
    from bluffsim.games.qdv.observe import observation_fields
    from bluffsim.games.qdv.reference import scenario

    game, s = scenario([["grape"], ["cherry"]], centre="watermelon", tokens=[3, 1], dealer=1,
                       challenges=["token"])
    d = display_for("qdv", game.rules, ["human", "random"], viewer=0)
    lines = []
    for actor, name in ((0, "+1 banana"), (1, "+1 watermelon")):
        before = observation_fields(game.rules, s, 0)
        game.apply(s, name)
        lines += d.describe(Event(actor=actor, name=name, viewer=0, before=before,
                                  after=observation_fields(game.rules, s, 0)))
    assert s.done
    assert lines[-2] == "  challenge card drawn: token — the bidder loses a token (0 left: out of the game)"
    assert lines[-1] == ("round 1 ends the game, no call: seat 1 loses a token (0 left: out of the "
                         "game); only you hold tokens now.")


@pytest.mark.parametrize("gadget", [False, True])
def test_checked_cards_are_named_only_to_whom_the_rules_show_them(gadget):
    """Point 12, veru (docs/rules.md#veru-checks): a disbelieved bluff goes to the claimant's hand shown to
    nobody — a bystander reads no card name unless they hold the ``check`` gadget."""
    from bluffsim.games.veru.observe import observation_fields
    from bluffsim.games.veru.reference import scenario

    options = {"check_seats": (2,)} if gadget else {}
    game, s = scenario([["7", "K", "9"], ["9", "10"], ["5", "6", "J"]], opener=0, jokers=0,
                       **options)
    d = display_for("veru", game.rules, ["random", "random", "human"], viewer=2)
    lines = []
    for actor, name in ((0, "announce 7"), (0, "put K"), (0, "done"), (1, "disbelieve")):
        before = observation_fields(game.rules, s, 2)
        game.apply(s, name)
        ev = Event(actor=actor, name=d.public_action(name), viewer=2, before=before,
                   after=observation_fields(game.rules, s, 2))
        lines += d.describe(ev)
    assert lines[1] == "seat 0 (random): puts a card face down, claiming 7s"
    end = lines[-1]
    assert end.startswith("round 1 over: seat 1 disbelieved seat 0's claim of a card as 7s: it was "
                          "false, so seat 1 guessed right")
    assert "seat 0 takes the table and the Bank (a card)" in end
    assert mentions(end, "K") == gadget


def test_a_drawn_challenge_card_is_named_to_the_bidder_only():
    """Point 12/13, qdv: the ``draw`` challenge is named for all; the card drawn only to the bidder."""
    from bluffsim.games.qdv.observe import observation_fields
    from bluffsim.games.qdv.reference import scenario

    def lines_for(viewer: int) -> list[str]:
        game, s = scenario([["grape"], ["cherry"], ["banana"]], centre="watermelon",
                           tokens=[3, 3, 3], dealer=2, challenges=["draw"], undealt=["apricot x3"])
        d = display_for("qdv", game.rules, ["random"] * 3, viewer=viewer)
        out = []
        for actor, name in ((0, "+1 banana"), (1, "+1 watermelon")):
            before = observation_fields(game.rules, s, viewer)
            game.apply(s, name)
            out += d.describe(Event(actor=actor, name=name, viewer=viewer, before=before,
                                    after=observation_fields(game.rules, s, viewer)))
        return out

    head = "  challenge card drawn: draw — the bidder draws a card secretly"
    assert lines_for(1)[-1] == head + ": you drew apricot (worth 3)"
    assert lines_for(0)[-1] == head
    assert lines_for(2)[-1] == head



# ---------------------------------------------------------------- wording (a new user's list)
def qdv_lines(game, s, viewer, moves, labels=None):
    """What ``viewer`` reads as ``moves`` ((seat, action name), ...) are applied to ``s``."""
    from bluffsim.games.qdv.observe import observation_fields

    d = display_for("qdv", game.rules, labels or ["random"] * game.rules.num_players, viewer=viewer)
    lines = []
    for actor, name in moves:
        assert s.current_player == actor, (actor, name, s.current_player)
        before = observation_fields(game.rules, s, viewer)
        game.apply(s, name)
        lines += d.describe(Event(actor=actor, name=name, viewer=viewer, before=before,
                                  after=observation_fields(game.rules, s, viewer)))
    return lines


def test_a_skipped_human_reads_you_are_skipped():
    """qdv's ``skip`` challenge: "you are skipped", not "you is skipped"; others read "seat 2 is"."""
    from bluffsim.games.qdv.reference import scenario

    def lines_for(viewer):
        game, s = scenario([["grape"], ["cherry"], ["banana"]], centre="watermelon",
                           tokens=[3, 3, 3], dealer=2, challenges=["skip"])
        return qdv_lines(game, s, viewer, [(0, "+1 banana"), (1, "+1 watermelon")],
                         ["random", "random", "human"])

    head = "  challenge card drawn: skip — the next player loses their turn: "
    assert lines_for(2)[-1] == head + "you are skipped"
    assert lines_for(0)[-1] == head + "seat 2 is skipped"


def test_every_fruit_count_is_plural_in_the_round_end():
    """"there were 4 cherries" (not "4 cherry"); every fruit's plural; one is "was 1"."""
    from bluffsim.games.qdv import rules as R
    from bluffsim.games.qdv.display import fruits
    from bluffsim.games.qdv.reference import scenario

    assert [fruits(2, f) for f in R.FRUITS] == ["2 strawberries", "2 grapes", "2 watermelons",
                                               "2 apricots", "2 cherries", "2 bananas"]
    assert fruits(1, "cherry") == "1 cherry" and fruits(0, "grape") == "0 grapes"
    game, s = scenario([["cherry x2"], ["cherry"], ["banana"]], centre="cherry", tokens=[3, 3, 3],
                       dealer=2)
    end = qdv_lines(game, s, 0, [(0, "+1 cherry"), (1, "menteur")])[-2]
    assert "; there were 4 cherries; " in end, end


def test_salad_holders_are_listed_in_declaring_order_without_the_eliminated():
    """After a call the salad holders declare clockwise from the caller; a holder knocked out by
    a ``token`` challenge this round shows a hand but never declares, so is not listed."""
    from bluffsim.games.qdv.reference import scenario

    game, s = scenario([["salad"], ["grape"], ["salad"], ["salad"]], centre="watermelon",
                       tokens=[3, 3, 3, 1], dealer=1, challenges=["token"])
    lines = qdv_lines(game, s, 0, [(2, "+1 banana"), (3, "+1 watermelon"), (0, "+1 watermelon"),
                                   (1, "menteur")], ["human", "random", "random", "random"])
    assert "(0 left: out of the game)" in lines[2]
    counted = next(line for line in lines if "counted (centre card included" in line)
    assert counted.endswith("; salad holders declare next, in this order: seat 2, you"), counted
    assert s.current_player == 2                                      # the engine agrees
    game.apply(s, "salads 0")
    assert s.current_player == 0


@pytest.mark.parametrize("game_id, seats, options", [
    ("qdv", "random,random", {"starting_tokens": 1}), ("qdv", "random,random,random", {}),
    ("legumes", "random,random,random", {"hand_size": 3}), ("veru", "random,random,random", {})])
def test_game_over_counts_the_round_that_ended_the_game(game_id, seats, options):
    """"game over after N rounds" counts the round the game ended in, also when it ended
    mid-round (a ``token`` challenge, an emptied hand, an accepted card): N is the last round
    the log names; never "after 0 rounds"."""
    for seed in range(12):
        out = io.StringIO()
        TerminalGame(game_id, parse_seats(seats, watch=True), seed, options, out=out,
                     watch=True).play()
        text = out.getvalue()
        over = re.search(r"=== game over after (\d+) rounds? ", text)
        named = [int(n) for n in re.findall(r"\bround (\d+)\b", text[:over.start()])]
        assert int(over.group(1)) == max(named), (seed, text[-600:])
        assert (over.group(0) == "=== game over after 1 round ") == (max(named) == 1)


def test_the_legumes_reverse_says_who_may_not_accuse():
    """Only the next player (after the reversal) is barred from accusing; the card itself may be
    accused later (after a Vegetable choice it is still the last face-down card)."""
    d = display_for("legumes", bluffsim.game_module("legumes").Rules(num_players=3),
                    ["human", "random", "random"], viewer=0)
    obs = {"last_owner": np.int8(1), "called": np.int8(0), "seat": np.int8(0),
           "direction": np.int8(1)}
    label = d.action_label("reverse carrot-2", obs)
    assert label.endswith("turn order reverses; the next player (seat 2) may not accuse it"), label
    assert "cannot be accused" not in label
    assert d.action_label("reverse", obs).endswith("the next player (seat 2) may not accuse")
    before = dict(obs, num_rounds=np.int32(0), hand_sizes=np.array([3, 2, 4], np.int8),
                  phase=np.int8(1))
    ev = Event(actor=1, name="reverse card", viewer=0, before=before,
               after=dict(before, direction=np.int8(-1)))
    assert d.describe(ev)[0].endswith("turn order reverses; the next player (you) may not accuse it")
    # the rules agree: after seat 0 reverses with a card, seat 2 may not accuse it; after
    # seat 2's Vegetable choice it is still the last face-down card, and seat 1 may
    from bluffsim.games.legumes.reference import scenario

    game, s = scenario([["carrot-1", "reverse", "pea-1"], ["carrot-3", "leek-3"],
                        ["leek-1", "choice", "pea-2"]], draw_pile=["leek-2"] * 6, opener=2)

    def legal():
        return [game.action_names[a] for a in game.legal_actions(s)]

    game.apply(s, "open leek-1 carrot")
    game.apply(s, "reverse pea-1")
    assert s.current_player == 2 and "accuse" not in legal()
    game.apply(s, "choice tomato")
    assert s.current_player == 1 and "accuse" in legal()


def parse_hands(text):
    """``seat 0: … | seat 1: … || face down: …`` as {what: cards}."""
    out = {}
    for group in text.split(" || "):
        for part in group.split(" | ") if group.startswith("seat ") else [group]:
            key, _, value = part.partition(": ")
            out[key] = value
    return out


@pytest.mark.parametrize("game_id, options", [("qdv", {"starting_tokens": 2}),
                                              ("legumes", {"hand_size": 3}), ("veru", {})])
def test_watch_prints_a_hand_only_when_it_changed(game_id, options):
    """--watch: after the opening line, a decision's spectator line lists only what changed
    (never a hand as it was last shown), and a qdv bid that moves no card prints none."""
    out = io.StringIO()
    game = TerminalGame(game_id, parse_seats("counting,heuristic,random", watch=True), 3, options,
                        out=out, watch=True)
    game.play()
    first = re.search(r"^\[spectator view\] hands: (.+)$", out.getvalue(), re.M)
    shown = parse_hands(first.group(1))
    printed, parts_printed = 0, 0
    for record in game.log:
        spect = [line for line in record.lines if "[spectator view]" in line]
        assert len(spect) <= 1
        for line in spect:
            assert line.startswith("  [spectator view] changed: "), line
            parts = parse_hands(line.removeprefix("  [spectator view] changed: "))
            for key, value in parts.items():
                assert shown.get(key) != value, (record, key, value)
            shown.update(parts)
            printed += 1
            parts_printed += len(parts)
        if game_id == "qdv" and record.action.startswith("+") and len(record.lines) == 1:
            assert not spect, record            # a plain bid changes no hand
    assert printed > 0
    if game_id == "qdv":                    # hands change at a deal (and a challenge card)
        assert printed < len(game.log) / 2
    else:                                   # a card played: its owner's hand and the pile
        assert parts_printed < printed * len(parse_hands(first.group(1)))


def test_the_human_is_addressed_as_you_with_the_plain_verb():
    """"you lose a token" (an exact-call punishment), "you show …" (a revealed card), and a legumes
    game ending on the human's empty hand: "your hand is empty" (not "the hand of you")."""
    from bluffsim.games.qdv.observe import observation_fields
    from bluffsim.games.qdv.reference import scenario

    game, s = scenario([["grape"], ["cherry"], ["banana"]], centre="watermelon", tokens=[3, 3, 3],
                       dealer=2)
    lines = qdv_lines(game, s, 1, [(0, "vrai"), (0, "punish 1")], ["random", "human", "random"])
    assert "seat 0 (random): takes the exact-call reward: you lose a token" in lines
    game, s = scenario([["grape"], ["cherry"], ["banana"]], centre="watermelon", tokens=[3, 3, 3],
                       dealer=2, challenges=["reveal"])
    qdv_lines(game, s, 1, [(0, "+1 banana"), (1, "+1 watermelon")])
    d = display_for("qdv", game.rules, ["random", "human", "random"], viewer=1)
    assert "face-up cards: you show cherry" in d.status(observation_fields(game.rules, s, 1))
    d = display_for("legumes", bluffsim.game_module("legumes").Rules(num_players=3),
                    ["human", "random", "random"], viewer=0)
    obs = {"hand_sizes": np.array([0, 2, 4], np.int8), "draw_size": np.int8(5),
           "last_owner": np.int8(0)}
    ev = Event(actor=0, name="play carrot-1", viewer=0, before=obs, after=obs)
    assert d.end_reason(ev) == "the game is over: your hand is empty"
    obs["hand_sizes"] = np.array([0, 0, 4], np.int8)
    assert d.end_reason(ev) == "the game is over: your and seat 1's hands are empty"


@pytest.mark.parametrize("seat", ["wizard", "experiments.nowhere:Nobody"])
def test_an_unknown_seat_is_named_once(seat):
    """The one-line error names the unknown seat once (not "unknown seat 'x': unknown agent 'x'")
    and says what is allowed."""
    r = subprocess.run([sys.executable, "-m", "bluffsim.cli", "play", "qdv", "--seats",
                        f"human,{seat}"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.count(seat) == 1, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert ("available: human, counting" if ":" not in seat else "cannot import module") in r.stderr


def test_a_first_play_says_it_compiles_and_then_plays_the_same_game(tmp_path):
    """With numba's cache empty the agents' kernels compile before the game (the note on stderr,
    ahead of the first line of the game); the second run prints no note, and both games are
    the same (the warm-up leaves the game unchanged)."""
    import os

    from bluffsim.kernel_cache import COMPILING

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-m", "bluffsim.cli", "play", "qdv", "--watch",
                            "--seats", "random,random", "--seed", "1", "--rule",
                            "starting_tokens=2"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=300, env=env) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stdout[-500:]
    first, second = (r.stdout for r in runs)
    assert first.startswith(COMPILING + "\nqdv, seed 1: "), first[:300]
    assert first.count(COMPILING) == 1 and COMPILING not in second
    assert first.removeprefix(COMPILING + "\n") == second


def test_the_warm_up_compiles_every_agent_kernel_and_leaves_the_game_unchanged(monkeypatch):
    """A cold cache (simulated) prints the note to ``err`` and warms the agents up on a throwaway
    game; the game played afterwards is decision for decision the one played without it."""
    import bluffsim.play as play_module
    from bluffsim.kernel_cache import COMPILING

    seats = parse_seats("counting,heuristic,random", watch=True)
    plain = TerminalGame("legumes", seats, 5, {"hand_size": 3}, out=io.StringIO(), watch=True)
    plain.play()
    calls, warm_up = [], TerminalGame.warm_up
    monkeypatch.setattr(play_module, "agents_cold", lambda vec, names: bool(names))
    monkeypatch.setattr(TerminalGame, "warm_up",
                        lambda self: calls.append(len(self.agents)) or warm_up(self))
    err, out = io.StringIO(), io.StringIO()
    warmed = TerminalGame("legumes", seats, 5, {"hand_size": 3}, out=out, watch=True, err=err)
    assert err.getvalue() == COMPILING + "\n" and calls == [3] and out.getvalue() == ""
    warmed.play()
    assert [(r.seat, r.action, r.lines) for r in warmed.log] == \
        [(r.seat, r.action, r.lines) for r in plain.log]


def test_a_qdv_card_worth_several_reads_as_one_card():
    """``grape x2`` (one card counting as two grapes) reads like two cards: the screen says
    ``grape (worth 2)`` in hands, the centre card and the final screen, explained once at the
    start; with every multiplier 1 there is nothing to explain."""
    from bluffsim.games.qdv.observe import observation_fields
    from bluffsim.games.qdv.reference import scenario

    game, s = scenario([["grape x2", "cherry"], ["apricot x3"], ["banana"]], centre="grape x2",
                       tokens=[3, 3, 3], dealer=2)
    d = display_for("qdv", game.rules, ["human", "random", "random"], viewer=0)
    obs = observation_fields(game.rules, s, 0)
    text = "\n".join(d.status(obs))
    assert "your cards: grape (worth 2), cherry" in text and "centre card: grape (worth 2)" in text
    (legend, deal) = d.opening(obs)
    assert legend.startswith('cards: "grape (worth 2)" is one card that counts as two grapes')
    assert "centre card grape (worth 2): the circle starts at grape, initial bid 2 × grape" in deal
    plain = display_for("qdv", type(game.rules)(num_players=3, fruit_multipliers=(1, 1)),
                        ["human", "random", "random"], viewer=0)
    assert len(plain.opening(obs)) == 1
    out = io.StringIO()
    TerminalGame("qdv", parse_seats("counting,heuristic,random", watch=True), 5, {}, out=out,
                 watch=True).play()
    assert "(worth 2)" in out.getvalue() and "(worth 3)" in out.getvalue()
    assert not re.search(r"\b(strawberry|grape|watermelon|apricot|cherry|banana) x\d", out.getvalue())


def test_a_text_agent_takes_a_seat(tmp_path, monkeypatch):
    """``text:package.module:function`` keeps its two colons in ``--seats`` (parameters after
    them) and plays; a function that is not there is a one-line error naming the seat once."""
    (tmp_path / "mytext.py").write_text("def doubt(prompt):\n    return 'menteur'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seats = parse_seats("text:mytext:doubt:rethinks=0,random", watch=True)
    assert [(s.name, s.params) for s in seats] == [("text:mytext:doubt", {"rethinks": 0}),
                                                    ("random", {})]
    run = [sys.executable, "-m", "bluffsim.cli", "play", "qdv", "--watch", "--seed", "1", "--rule",
           "starting_tokens=2", "--seats"]
    r = subprocess.run([*run, "text:mytext:doubt,random"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  seat 0 \(text:mytext:doubt\): place \d", r.stdout, re.M)
    bad = subprocess.run([*run, "text:mytext:nothing,random"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("text:mytext:nothing") == 1, bad.stderr
    assert "module 'mytext' has no function 'nothing'" in bad.stderr
