"""The text protocol over every game: the information set, the notation's round trip, the tolerant
parser (case, accents, plurals, numbers in words, French / Russian names, last action wins, JSON,
garbage, illegal moves with their reason), the rules prompt's options and the fourth game."""

from __future__ import annotations

import numpy as np
import pytest

import bluffsim
from bluffsim.text import ILLEGAL, OK, UNPARSEABLE, protocol_for
from bluffsim.text.protocol import TextProtocol
from tests.games import CASE_IDS, CASES, random_actions

# tables with every action the notation knows: the most players, gadgets on, the most salads
WIDE = {"qdv": (6, {"salads": 8}), "legumes": (6, {}),
        "veru": (6, {"joker_swap_seats": (0, 1, 2, 3, 4, 5)}), "liarsdice": (4, {"dice": 3})}


def all_legal(p) -> np.ndarray:
    return np.ones(p.num_actions, dtype=bool)


def position(game_id: str, players: int, want, options=None, tries: int = 400):
    """(protocol, obs row, legal row) at the first decision of random play (seeds 0, 1, ...)
    where ``want(obs, legal)`` holds."""
    game = bluffsim.make(game_id, players, **(options or {}))
    p = protocol_for(game)
    st = game.init(np.arange(64))
    for _ in range(tries):
        obs = game.observe(st)
        for b in np.flatnonzero(~st.done):
            row = {k: v[b] for k, v in obs.items()}
            if want(row, st.legal_action_mask[b]):
                return p, row, st.legal_action_mask[b]
        game.step(st, random_actions(game, st))
    raise AssertionError(f"no {game_id} position found")


def parsed(p, obs, legal, answer: str):
    return p.parse(answer, legal, obs)


def played(p, obs, legal, answer: str) -> str:
    """The notation of the action ``answer`` is read as (asserting it is legal)."""
    r = p.parse(answer, legal, obs)
    assert r.outcome == OK, (answer, r)
    return p.action_text(r.action)


# ------------------------------------------------------------------ the information set
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_redealing_what_the_player_cannot_see_leaves_the_prompt_unchanged(case) -> None:
    """The messages of a decision (rules, view, legal list with glosses) are the same after the
    cards the current player cannot see are dealt anew."""
    game = case.make()
    ref = case.reference.ReferenceGame(game.rules)
    p = protocol_for(game)
    checked = 0
    for seed, steps in enumerate((0, 1, 2, 3, 5, 8, 12, 18, 27, 40, 60, 90)):
        s = ref.new_game(seed)
        st = game.init([seed])
        for _ in range(steps):
            if s.done:
                break
            a = random_actions(game, st)
            ref.apply(s, int(a[0]))
            game.step(st, a)
        if s.done:
            continue
        seat = s.current_player
        legal = st.legal_action_mask[0]
        before = p.messages(ref.observe(s, seat), legal)
        for redeal in (1, 2):
            other = case.reference.redeal_hidden(s, seat, seed * 100 + redeal, game.rules)
            after = p.messages(ref.observe(other, seat), legal)
            assert after == before, (case, seed)
            checked += 1
    assert checked >= 12


# ------------------------------------------------------------------ notation
def positions(game_id: str, players: int, options: dict, games: int = 16, steps: int = 120):
    """(obs row, legal row) of every decision of random play in ``games`` games."""
    game = bluffsim.make(game_id, players, **options)
    st = game.init(np.arange(games))
    out = []
    for _ in range(steps):
        if st.done.all():
            break
        obs = game.observe(st)
        out += [({k: v[b].copy() for k, v in obs.items()}, st.legal_action_mask[b].copy())
                for b in np.flatnonzero(~st.done & st.legal_action_mask.any(axis=1))]
        game.step(st, random_actions(game, st))
    return out


@pytest.mark.parametrize("game_id", sorted(WIDE))
def test_the_context_key_covers_what_the_position_phrases_read(game_id) -> None:
    """Positions with the same ``context_key`` have the same position phrases, so the parser may
    reuse their index; and every parse reads as it does with the phrases built afresh."""
    players, options = WIDE[game_id]
    p = TextProtocol(bluffsim.make(game_id, players, **options))
    fresh = TextProtocol(bluffsim.make(game_id, players, **options))   # not the cached one
    fresh.text.context_key = lambda obs: None
    seen: dict = {}
    rows = positions(game_id, players, options)
    for obs, legal in rows:
        phrases = ([p.text.context_phrases(a, obs) for a in range(p.num_actions)],
                   p.text.impossible_phrases(obs), p.text.hint_phrases(obs))
        key = p.text.context_key(obs)
        if key is not None:
            assert seen.setdefault(key, phrases) == phrases, key
        texts = p.legal_texts(legal)
        for answer in (texts[0], texts[-1], f"I say {texts[len(texts) // 2]}", "bid 2 banana",
                       "8 grapes", "announce ace", "nothing at all"):
            assert p.parse(answer, legal, obs) == fresh.parse(answer, legal, obs), answer
    assert p.text is not fresh.text and len(rows) > 200
    assert game_id == "liarsdice" or 0 < len(seen) < len(rows)   # keys declared, some shared


@pytest.mark.parametrize("game_id", sorted(WIDE))
def test_every_action_reads_back_from_its_notation(game_id) -> None:
    players, options = WIDE[game_id]
    p = protocol_for(bluffsim.make(game_id, players, **options))
    texts = [p.action_text(a) for a in range(p.num_actions)]
    assert len(set(texts)) == len(texts)
    for a, text in enumerate(texts):
        assert p.parse(text, all_legal(p)).action == a, text
        only = np.zeros(p.num_actions, dtype=bool)
        only[a] = True
        assert p.parse(text.upper(), only).action == a, text
        assert p.parse(f"After thinking it over: {text}.", all_legal(p)).action == a, text


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_the_view_lists_the_legal_actions_only_when_asked(case) -> None:
    game = case.make()
    st = game.init(np.arange(3))
    for _ in range(5):
        game.step(st, random_actions(game, st))
    b = int(np.flatnonzero(~st.done)[0])
    obs, legal = {k: v[b] for k, v in game.observe(st).items()}, st.legal_action_mask[b]
    listed, bare = protocol_for(game), protocol_for(game, list_legal=False)
    assert protocol_for(game) is listed and bare is not listed
    text = listed.view(obs, legal)
    assert "Your legal actions:" in text
    for t in listed.legal_texts(legal):
        assert f"\n- {t}" in text
    assert "legal actions" not in bare.view(obs, legal)
    msgs = listed.messages(obs, legal, system_prompt="Play boldly.")
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert msgs[0]["content"].startswith(listed.rules_prompt()) and msgs[0]["content"].endswith(
        "Play boldly.")
    assert msgs[1]["content"].startswith(text)
    again = listed.rethink(listed.parse("no idea", legal, obs))
    assert again["role"] == "user" and "no action found" in again["content"]


@pytest.mark.parametrize("game_id, options, needle", [
    ("qdv", {"starting_tokens": 3}, "Each player starts with 3 tokens"),
    ("qdv", {"challenge_deck": ()}, "There are no challenge cards"),
    ("legumes", {"hand_size": 5}, "and 5 dealt vegetable cards"),
    ("legumes", {"action_lie_penalty": 3}, "another action card: its player draws 3"),
    ("veru", {"jokers": 5}, "5 random non-ace cards are replaced by Jokers"),
    ("veru", {"check_seats": (1,)}, "seats 1 have the Check gadget"),
    ("liarsdice", {"dice": 1}, "dice each player starts with (dice): 1"),
])
def test_the_rules_prompt_states_the_options_in_effect(game_id, options, needle) -> None:
    lo = bluffsim.spec(game_id).players[0]
    prompt = protocol_for(bluffsim.make(game_id, max(lo, 3), **options)).rules_prompt()
    assert needle in prompt
    assert "the last action you mention is the one played" in prompt


# ------------------------------------------------------------------ the tolerant parser
def test_qdv_answers_in_words_french_and_absolute_bids() -> None:
    p, obs, legal = position("qdv", 4, lambda o, m: o["phase"] == 1 and o["num_bids"] > 0
                             and m[13] and int(o["bid_count"]) <= 10)
    c = int(obs["bid_count"])
    fr = {v: k for k, v in {"un": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6,
                            "sept": 7, "huit": 8, "neuf": 9, "dix": 10, "onze": 11,
                            "douze": 12}.items()}
    en = {v: k for k, v in {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
                            "twelve": 12}.items()}
    assert played(p, obs, legal, "MENTEUR !") == "menteur"
    assert played(p, obs, legal, "I call « Vrai »") == "vrai"
    assert played(p, obs, legal, "+2 Cerises") == "+2 cherry"
    assert played(p, obs, legal, f"bid {c + 1} strawberries") == "+1 strawberry"
    assert played(p, obs, legal, f"J'annonce {fr[c + 2]} pastèques") == "+2 watermelon"
    assert played(p, obs, legal, f"I'll say {en[c + 1]} Bananas.") == "+1 banana"
    assert played(p, obs, legal, "liar!") == "menteur"
    # the last action mentioned wins
    assert played(p, obs, legal, f"Not menteur: bid {c + 1} grapes") == "+1 grape"
    assert played(p, obs, legal, f"bid {c + 1} grapes? No — menteur.") == "menteur"
    # JSON: the action value wins over anything else in the answer
    assert played(p, obs, legal, '{"thought": "menteur is risky", "action": "+1 apricot"}') \
        == "+1 apricot"
    assert played(p, obs, legal, 'Sure.\n```json\n{"action": "vrai"}\n```') == "vrai"
    # garbage and illegal moves, with the reason
    assert parsed(p, obs, legal, "").outcome == UNPARSEABLE
    r = parsed(p, obs, legal, "Hmm, hard to say.")
    assert r.outcome == UNPARSEABLE and r.action is None and "no action found" in r.reason
    r = parsed(p, obs, legal, f"bid {c} grapes")
    assert r.outcome == ILLEGAL and r.reason == f"'bid {c} grapes' is illegal: the bid must exceed " \
        f"{c} x {('strawberry grape watermelon apricot cherry banana'.split())[int(obs['bid_fruit'])]}"
    r = parsed(p, obs, legal, f"bid {c + 4} grape")
    assert r.outcome == ILLEGAL and "raises the count by 1 or 2" in r.reason
    r = parsed(p, obs, legal, f"{c + 5} grapes")
    assert r.outcome == ILLEGAL and "raises the count by 1 or 2" in r.reason
    r = parsed(p, obs, legal, "gain")
    assert r.outcome == ILLEGAL and "follow your exact Vrai only" in r.reason


def test_legumes_answers_with_card_names_french_and_action_cards() -> None:
    def want(o, m):
        return o["phase"] == 1 and m[154] and m[155] and np.asarray(o["hand"])[:18].sum() > 0

    p, obs, legal = position("legumes", 4, want)
    hand = np.asarray(obs["hand"])
    t = int(np.flatnonzero(hand[:18])[0])
    veg, n = ("carrot tomato leek cabbage radish pea".split())[t // 3], t % 3 + 1
    fr_veg = dict(zip("carrot tomato leek cabbage radish pea".split(),
                      "carotte tomate poireau chou radis pois".split(), strict=True))[veg]
    fr_n = ("un", "deux", "trois")[n - 1]
    assert played(p, obs, legal, "J'accuse : Menteur !") == "accuse"
    assert played(p, obs, legal, "I accuse with my Double Accusation") == "accuse double"
    assert played(p, obs, legal, "I play my Double Accusation face down") == "play double"
    assert played(p, obs, legal, f"Je pose le {fr_veg} {fr_n}") == f"play {veg}-{n}"
    assert played(p, obs, legal, f"play the {n} {veg}") == f"play {veg}-{n}"
    assert played(p, obs, legal, "Vegetable choice: TOMATOES") == "choice tomato"
    assert played(p, obs, legal, f"Reverse face up with {veg}-{n} face down") == f"reverse {veg}-{n}"
    missing = int(np.flatnonzero(hand[:18] == 0)[0])
    name = f"{('carrot tomato leek cabbage radish pea'.split())[missing // 3]}-{missing % 3 + 1}"
    r = parsed(p, obs, legal, f"play {name}")
    assert r.outcome == ILLEGAL and r.reason.endswith(f"you hold no {name}")
    r = parsed(p, obs, legal, "open carrot-1 leek")
    assert r.outcome == ILLEGAL and "already open" in r.reason


def test_veru_answers_in_russian_english_and_letters() -> None:
    def want(o, m):
        hand = np.asarray(o["hand"])
        return o["phase"] == 2 and hand[10] > 0 and hand[5] > 0     # holds a queen and a 7

    p, obs, legal = position("veru", 4, want)
    assert played(p, obs, legal, "Не верю!") == "disbelieve"
    assert played(p, obs, legal, "ВЕРЮ") == "believe"
    assert played(p, obs, legal, "I don't believe it.") == "disbelieve"
    assert played(p, obs, legal, "I believe it") == "believe"
    assert played(p, obs, legal, "кладу даму") == "put queen"
    assert played(p, obs, legal, "put a Q") == "put queen"
    assert played(p, obs, legal, "put a 7") == "put 7"
    assert played(p, obs, legal, "I'll add two sevens") == "put 7"     # one card per answer
    assert played(p, obs, legal, "Кладу семёрку") == "put 7"
    r = parsed(p, obs, legal, "announce 7")
    assert r.outcome == ILLEGAL and "already announced" in r.reason
    p, obs, legal = position("veru", 4, lambda o, m: o["phase"] == 0)
    r = parsed(p, obs, legal, "announce aces")
    assert r.outcome == ILLEGAL and "aces cannot be announced" in r.reason
    assert legal[5] and played(p, obs, legal, "Объявляю семёрки") == "announce 7"


# ------------------------------------------------------------------ the fourth game
def test_the_fourth_game_gets_a_protocol_from_its_spec_display_and_names_alone() -> None:
    """liarsdice (tests/extra_games) has no text module: rules from its rules document, the
    view from its display and observation fields, the notation from its action names."""
    from bluffsim.text.base import GameText

    p, obs, legal = position("liarsdice", 3, lambda o, m: o["bid_quantity"] > 0 and m[-1])
    assert type(p.text) is GameText
    assert "`bid 1x1` … `bid 6x6` (36 actions of this form)" in p.rules_prompt()
    assert "calls `liar`" in p.rules_prompt()             # its rules_doc section
    view = p.view(obs, legal)
    assert "your dice:" in view and "last call: caller, bidder, quantity" in view
    assert played(p, obs, legal, "LIAR!") == "liar"
    bid = p.legal_texts(legal)[0]                          # e.g. "bid 5x4"
    q, f = bid.split()[1].split("x")
    words = "zero one two three four five six seven eight nine ten eleven twelve".split()
    assert played(p, obs, legal, f"bid {words[int(q)]} x {words[int(f)]}") == bid
    assert played(p, obs, legal, f"bid {q} × {f}") == bid    # the display's wording
    r = parsed(p, obs, legal, "bid 1x1")
    assert r.outcome == ILLEGAL and r.reason == "'bid 1 x 1' is illegal: it is not one of your " \
                                                "legal actions now"
