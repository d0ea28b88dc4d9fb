"""legumes ``counting``: card counting plus a per-seat behaviour model, decisions by expected cards.

Belief about the last face-down card (``claim_beliefs``).  Three outcomes of a
reveal: the called vegetable (true), another card (lie), the Bomb.  Their
probabilities are a multinomial logistic model (``CLAIM_WEIGHTS``, true is the
reference class) of public features of the claim (``claim_features``):

- card counting: the unseen pool is every card (the vegetable deck and each
  player's four action cards) minus my hand, my face-down cards (on the table or
  unrevealed in the discard pile), the face-up cards and the discard cards known
  to all; ``hold`` is the hypergeometric chance that the owner's hand before the
  card (a uniform subset of the pool) held the called vegetable
  (``truth_probability``), and ``bomb_held`` the same for a Bomb;
- the owner's behaviour, from the per-seat public tallies: the log-odds of
  truth among the owner's accused cards (``accused_tally``, prior one true and
  one false) and the capped counts of its true and false reveals (a type's
  log-likelihood ratio is linear in them), how many of its cards were accused,
  its own accusations per round (``accuser_tally``: random players accuse
  often, the heuristics rarely), the Choice and Reverse it played face up and
  the Double it showed (``shown_tally``: a random player shows them early),
  the cards it drew (``drawn_tally``), whether it has shown a Bomb, its earlier
  claims of this vegetable this round (``fd_claims``); and products of these
  with ``hold`` (a rule-based player is true when it holds the vegetable, a
  random one about one time in seven whatever it holds);
- the situation: an opening card (its owner chose the vegetable), a last card,
  the owner's hand size, the round's face-down cards, the rounds played;
- the duel: at 2 players the rule-based players keep their Bomb to the end (the
  heuristic's ``keeps``) and random ones do not, so ``duel``, ``duel*last_card``,
  ``duel*bomb_held`` (low once the owner's Bomb has been seen: the pool counts it
  out) and ``duel`` times the type evidence (accusations per round, Choice/Reverse
  shown, ``hold``) let the Bomb be rare mid-game from a rule-based owner and likely
  on its last card.

The weights are fitted by ``experiments/fit_legumes_counting.py`` on a mixture
of lineups (counting, random, heuristic and each parameter extreme, mixed
tables; 2–6 players; rotated seatings).  ``tests/legumes/test_counting_calibration.py``
checks the beliefs against the truth: calibrated within 0.12 per belief bin
pooled over owner types, within 0.25 per owner type.  The per-type gap is the
model's main limit: most claims come in a game's first two rounds, before the
tallies can tell a random owner from a rule-based one, so beliefs there sit
between the two types (against random owners 0.35 on average for a truth rate
of 0.14, where the old single hypergeometric term said 0.67).

Decisions by expected cards (positive = good for me), with the real stakes:

- accuse: truth makes me draw the card's number (the pool average of that
  vegetable), a lie makes the owner draw its penalty (pool average of the other
  non-Bomb cards), a Bomb hands me the discard pile, this round's cards and the
  Bomb (``bomb_cost``); the loser opens the next round (a free card, ``tempo``).
  Cards the owner draws count ``spite`` times mine (``spite2`` at 2 players,
  where the game is a duel), doubled against an owner down to ``urgent_at``
  cards or fewer (about to finish).  The Double accusation doubles the number
  drawn and sheds the Double card unless a Bomb sends it back.
- play: one card shed (1); the risk that my own play is accused is not
  modelled (a simplification: the accusation has to gain more than a shed card).
- accuse when its value exceeds the play's by ``margin``; double when doubling is
  worth more than a plain accusation and the card is true with a chance below
  ``double_below`` (default 1: the values alone decide).
- facing a player's last face-down card: accept only at 3+ players when sure to
  finish second (the heuristic's rule), unless a lie is at least
  ``accept_below`` likely (default 1: never); otherwise accuse (doubled when
  doubling is worth more).
- opening and playing: the heuristic's rules (truth first, Vegetable choice,
  Reverse shedding, action cards before vegetables as lies) with two changes
  (``lie_card``): against a next player whose accusations per round times P
  exceed ``trap_rate``, a lie goes down as the Bomb (the accuser takes the
  pile) when I hold another finisher or the pile holds ``trap_pile`` cards;
  and while my hand is at most the smallest other hand plus ``keep_margin``,
  my last finisher (Bomb, Choice, Reverse: a last card that ends the game
  whatever happens) is not spent as a lie while the Double or a vegetable can
  lie instead (it costs 10 points if another player finishes first, hence
  only when I am in the race).  At 2 players (the heuristic's ``keeps``) the Bomb and
  the Double are finishers: no Bomb trap, and the Double is never the replacement lie
  (a vegetable is), so they stay in hand to the end; with the Double as my last card I
  accuse double a player's last card, and any card that is a lie with a chance of 0.5 or
  more (a lie then empties my hand: I win).

Speed: ``act`` runs the heuristic's numpy play rules, then two numba loops
(``counting_kernel``: ``lie_kernel`` and ``judge_kernel``, the features, beliefs and
decision per row); ``lie_card``, ``claim_features``/``claim_beliefs`` and ``judge`` are
their numpy references (used by the fit and the tests,
``tests/legumes/test_counting_kernel.py`` checks that both agree on played games).

Floats.  Every float a decision depends on is computed with ``+ - * /`` and
``bluffsim.fmath`` (``exp``, ``log``, ``pow`` ... in plain IEEE arithmetic, never libm or numpy's
SIMD math) in a fixed order, by the kernel at every batch size, so the actions are the same on
every CPU and in any batch; the numpy reference calls the same functions as ufuncs, so the
two agree bit for bit on any machine (docs/float_contract.md).

Simplifications: beliefs concern the last face-down card only; the owner's
hand is a uniform subset of the pool (hands formed by earlier truthful plays are
not modelled beyond the tallies); stakes are in cards, not in points or places;
the expected number on a true card is the pool average (the heuristics play
their highest card first); ``spite``, ``tempo``, ``trap_*`` and ``keep_margin``
were set by hand on ladder runs (1,200 games per table), not fitted.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from agents.base import Agent, Traits, probability, real, register_agent
from agents.combinatorics import log_choose
from agents.legumes.counting_kernel import judge_kernel, lie_kernel
from agents.legumes.heuristic import LegumesHeuristic
from agents.linear import linear
from bluffsim import fmath as fm
from bluffsim.games.legumes import rules as R
from bluffsim.rng import AgentRNG

NUMBER = np.tile(np.arange(1, 4), R.NUM_VEG)
POINTS = np.asarray(R.CARD_POINTS, dtype=np.int64)

FEATURES = ("const", "hold", "log_hold", "seat_truth", "seat_accused", "seat_accuses", "bomb_held",
            "bomb_shown", "opening", "last_card", "prior_claims", "hand", "hold*seat_truth",
            "hold*seat_accuses", "log_hold*seat_truth", "seat_truth*seat_accused", "rounds", "true_n",
            "lie_n", "accuses_n", "hold*true_n", "hold*lie_n", "hold*accuses_n", "shown_free",
            "shown_double", "drawn", "hold*shown_free", "hold*drawn", "fd_count", "duel",
            "duel*last_card", "duel*bomb_held", "duel*seat_accuses", "duel*shown_free", "duel*hold")
# multinomial logit weights (rows: lie, bomb; the true outcome is the reference), columns as
# FEATURES; fitted by `python experiments/fit_legumes_counting.py --games 50` (mixture of lineups,
# 2-6 players, rotated seatings; 166,711 logged claims)
CLAIM_WEIGHTS = np.array([
    [-0.5799, -0.2701, -0.9113, -0.7108, 0.0006, 0.0278, 0.1375, 0.2618, -0.4865, -0.2085, 0.8510,
     0.2118, -0.7141, -0.0308, -0.3526, 0.0041, 0.0361, -0.1912, 0.0930, -0.0670, 0.3731, -0.4082,
     -0.4533, 0.7137, 0.6997, -0.3007, 0.0965, -0.0371, -0.5493, -0.3931, -0.1505, -0.0307, 0.1005,
     -0.0132, -0.0080],
    [-2.2457, -0.4726, 0.0172, -0.1062, -0.0584, 0.1743, 0.2068, -0.4916, -0.3370, 0.6250, 0.6525,
     0.0357, -0.4995, -0.0888, -0.3401, 0.0223, 0.0015, -0.0389, -0.0158, -0.0220, -0.0462, -0.1061,
     -0.2785, 1.1089, 0.2981, -0.4061, 0.0448, 0.0846, -0.1609, -0.0679, 0.0549, -0.1256, 0.0841,
     -0.2601, -0.6082],
])


@lru_cache(maxsize=64)
def _total_cards(rules: R.Rules) -> np.ndarray:
    """int64[T]: every card of the game by type (read-only)."""
    total = np.bincount(np.asarray(rules.deck), minlength=R.NUM_TYPES).astype(np.int64)
    total[list(R.ACTION_CARDS)] = rules.num_players
    total.flags.writeable = False
    return total


def unseen_pool(obs: dict[str, np.ndarray], rules: R.Rules) -> np.ndarray:
    """int64[B, T]: cards of each type I cannot place."""
    total = _total_cards(rules)
    known = (obs["hand"].astype(np.int64) + obs["my_face_down"] + obs["face_up"]
             + obs["discard_revealed"] + obs["my_discard"])
    return np.maximum(total[None, :] - known, 0)


def _held_probability(pool_size: np.ndarray, good: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """P(a uniform ``hand``-subset of a pool of ``pool_size`` holds one of ``good`` cards)."""
    h = np.minimum(hand, pool_size)
    p_none = fm.exp_u(log_choose(pool_size - good, h) - log_choose(pool_size, h))
    return np.clip(1.0 - p_none, 0.0, 1.0)


def truth_probability(obs: dict[str, np.ndarray], rules: R.Rules,
                      pool: np.ndarray | None = None) -> np.ndarray:
    """float[B]: probability the owner of the last face-down card held the vegetable called for
    it (its hand before the card being a uniform subset of the unseen pool); ``pool`` is
    ``unseen_pool(obs, rules)`` when the caller has it."""
    pool = unseen_pool(obs, rules) if pool is None else pool
    b = pool.shape[0]
    rows = np.arange(b)
    veg = np.maximum(obs["last_called"].astype(np.int64), 0)
    n_v = pool[:, :R.BOMB].reshape(b, R.NUM_VEG, 3).sum(axis=2)[rows, veg]
    owner = np.maximum(obs["last_owner"].astype(np.int64), 0)
    h = obs["hand_sizes"][rows, owner].astype(np.int64) + 1
    return _held_probability(pool.sum(axis=1), n_v, h)


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-3, 1 - 1e-3)
    return fm.log_u(p / (1 - p))


def claim_features(obs: dict[str, np.ndarray], rules: R.Rules,
                   pool: np.ndarray | None = None) -> np.ndarray:
    """float64[B, F]: the model's features of the last face-down card (``FEATURES``)."""
    pool = unseen_pool(obs, rules) if pool is None else pool
    b = pool.shape[0]
    rows = np.arange(b)
    owner = np.maximum(obs["last_owner"].astype(np.int64), 0)
    veg = np.maximum(obs["last_called"].astype(np.int64), 0)
    h = obs["hand_sizes"][rows, owner].astype(np.int64) + 1
    u = pool.sum(axis=1)
    accused = obs["accused_tally"][rows, owner].astype(np.float64)           # true, lie, bomb
    n_acc = accused.sum(axis=1)
    accuses = obs["accuser_tally"][rows, owner].astype(np.float64).sum(axis=1)
    rounds = obs["num_rounds"].astype(np.float64)
    prior = obs["fd_claims"][rows, owner, veg].astype(np.float64) - 1
    hold = truth_probability(obs, rules, pool)
    lhold = fm.log_u(np.maximum(hold, 1e-3))
    truth = fm.log_u((accused[:, 0] + 1) / (accused[:, 1] + accused[:, 2] + 1))
    acc_rate = fm.log_u((accuses + 0.5) / (rounds + 2))
    # linear evidence (a type's log-likelihood ratio is linear in these counts), capped
    t_n, l_n = np.minimum(accused[:, 0], 8) / 4, np.minimum(accused[:, 1] + accused[:, 2], 8) / 4
    a_n = np.minimum(accuses, 16) / 8
    # action cards the owner showed face up or revealed (Choice and Reverse played face up come
    # early from a random player, late from the rule-based ones), cards it drew from the pile
    shown = np.minimum(obs["shown_tally"][rows, owner].astype(np.float64), 4)
    free = shown[:, 1] + shown[:, 2]
    drawn = fm.log1p_u(obs["drawn_tally"][rows, owner].astype(np.float64))
    # 2 players: rule-based players keep the Bomb to the end (heuristic ``keeps``), so a Bomb
    # is rarer mid-game and likelier on a last card while its owner has not shown it
    duel = np.full(b, float(obs["hand_sizes"].shape[1] == 2))
    bomb_held = _logit(_held_probability(u, pool[:, R.BOMB], h))
    last = (obs["pending"] >= 0).astype(np.float64)
    return np.stack([
        np.ones(b),
        _logit(hold),
        lhold,
        truth,
        fm.log1p_u(n_acc),
        acc_rate,
        bomb_held,
        (obs["shown_tally"][rows, owner, 0] > 0).astype(np.float64),
        (obs["face_down_count"] == 1).astype(np.float64),
        (obs["pending"] >= 0).astype(np.float64),
        np.maximum(prior, 0),
        fm.log_u(h),
        _logit(hold) * truth,
        _logit(hold) * acc_rate,
        lhold * truth,
        truth * fm.log1p_u(n_acc),
        fm.log1p_u(rounds),
        t_n, l_n, a_n, _logit(hold) * t_n, _logit(hold) * l_n, _logit(hold) * a_n,
        free, shown[:, 3], drawn, _logit(hold) * free, _logit(hold) * drawn,
        fm.log_u(obs["face_down_count"].astype(np.float64) + 1),
        duel, duel * last, duel * bomb_held, duel * acc_rate, duel * free, duel * _logit(hold),
    ], axis=1)


def claim_beliefs(obs: dict[str, np.ndarray], rules: R.Rules,
                  weights: np.ndarray | None = None, pool: np.ndarray | None = None) -> np.ndarray:
    """float64[B, 3]: P(true), P(lie), P(Bomb) of the last face-down card."""
    w = CLAIM_WEIGHTS if weights is None else weights
    z = linear(claim_features(obs, rules, pool), w)   # [B, 2], the kernel's order of additions
    z = np.concatenate([np.zeros((z.shape[0], 1)), z], axis=1)
    z -= z.max(axis=1, keepdims=True)
    e = fm.exp_u(z)
    return e / e.sum(axis=1, keepdims=True)


@register_agent("legumes")
class LegumesCounting(Agent):
    """Counting plus a fitted per-seat behaviour model, expected-cards decisions (module
    docstring)."""

    name = "counting"
    traits = Traits(stochastic=True, uses_history=True)
    params = {"spite": 0.6, "spite2": 1.0, "urgent_at": 2, "tempo": 0.5,
              "margin": 0.0, "double_below": 1.0, "accept_below": 1.0, "trap_rate": 1.5, "trap_pile": 8.0,
              "keep_margin": 2.0}
    spec = {
        "spite": real(0, doc="weight of a card the accused draws, against one I draw (3+ players)"),
        "spite2": real(0, doc="the same at 2 players"),
        "urgent_at": real(0, doc="double the spite against an owner with this many cards or fewer"),
        "tempo": real(0, doc="value of opening the next round (a free card)"),
        "margin": real(doc="accuse when its expected gain exceeds playing's by this"),
        "double_below": probability("double only when the card is true with a chance below this"),
        "accept_below": probability("accept a last card (sure second) when a lie is less likely"),
        "trap_rate": real(0, doc="lie with the Bomb when the next player's accusations per round "
                          "times P exceed this"),
        "trap_pile": real(0, doc="... even my last finisher when the pile holds this many cards"),
        "keep_margin": real(doc="keep my last finisher when my hand is at most the smallest other "
                            "hand plus this"),
    }

    def __init__(self, game: Any, **params: Any):
        super().__init__(game, **params)
        # opening and playing start from the heuristic's rules; it never accuses by itself
        self._base = LegumesHeuristic(game, accuse_rate=0.0, accuse_at=99)
        lie = game.rules.action_lie_penalty
        self._penalty = np.concatenate([NUMBER, [0, lie, lie, lie]]).astype(np.float64)

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """Accusations by expected cards with the fitted beliefs; opening and playing as the
        heuristic (module docstring)."""
        out = self._base.act(obs, legal_mask, rng)
        self.lie_rows(obs, legal_mask, out)
        can = np.flatnonzero(legal_mask[:, R.ACCUSE])
        if can.size:
            self.judge_rows(obs, legal_mask, can, out)
        return out

    def judge_rows(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rows: np.ndarray,
                   out: np.ndarray) -> np.ndarray:
        """The compiled ``judge`` on ``rows`` of the batch, in place in ``out`` (which holds the
        plays); returns the beliefs float64[B, 3] (zero outside ``rows``)."""
        c, rules = self.config, self.game.rules
        beliefs = np.zeros((out.size, 3))
        spite = c["spite2"] if rules.num_players == 2 else c["spite"]
        judge_kernel(_total_cards(rules), CLAIM_WEIGHTS, self._penalty, POINTS, obs["hand"],
                     obs["my_face_down"], obs["face_up"], obs["discard_revealed"],
                     obs["my_discard"], obs["hand_sizes"], obs["last_owner"], obs["last_called"],
                     obs["accused_tally"], obs["accuser_tally"], obs["shown_tally"],
                     obs["drawn_tally"], obs["fd_claims"], obs["num_rounds"],
                     obs["face_down_count"], obs["pending"], obs["discard_size"], obs["seat"],
                     legal_mask[:, R.ACCUSE_DOUBLE], legal_mask[:, R.ACCEPT],
                     rows.astype(np.int64), float(spite), float(c["urgent_at"]), float(c["tempo"]),
                     float(c["margin"]), float(c["double_below"]), float(c["accept_below"]), out,
                     beliefs)
        return beliefs

    def lie_rows(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray,
                 out: np.ndarray) -> None:
        """The compiled ``lie_card``, in place in ``out`` (the planned actions)."""
        c = self.config
        lie_kernel(obs["hand"], obs["phase"], obs["called"], obs["seat"], obs["direction"],
                   obs["accuser_tally"], obs["num_rounds"], obs["discard_size"],
                   obs["face_down_count"], obs["face_up"], obs["hand_sizes"], legal_mask,
                   float(c["trap_rate"]), float(c["trap_pile"]), float(c["keep_margin"]),
                   self._base.keeps(obs, obs["hand"].astype(np.int64).sum(axis=1)), out)

    def lie_card(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray,
                 planned: np.ndarray) -> np.ndarray:
        """Rework the heuristic's face-down lies: a Bomb trap for a next player who accuses often,
        and never my last finisher (Bomb, Choice, Reverse) while another card can lie (the
        numpy reference of ``lie_rows``)."""
        c = self.config
        b = planned.size
        rows = np.arange(b)
        hand = obs["hand"].astype(np.int64)
        size = hand.sum(axis=1)
        card = planned - R.PLAY0
        called = np.maximum(obs["called"].astype(np.int64), 0)
        is_play = (obs["phase"] == R.PHASE_PLAY) & (card >= 0) & (card < R.NUM_TYPES)
        lie = is_play & ~((card < R.BOMB) & (card // 3 == called))
        p = self.game.rules.num_players
        nxt = (np.maximum(obs["seat"].astype(np.int64), 0) + obs["direction"].astype(np.int64)) % p
        accuses = obs["accuser_tally"][rows, nxt].astype(np.float64).sum(axis=1)
        rate = (accuses + 0.5) / (obs["num_rounds"].astype(np.float64) + 2) * p
        pile = (obs["discard_size"].astype(np.float64) + obs["face_down_count"]
                + obs["face_up"].sum(axis=1))
        finishers = hand[:, R.BOMB] + hand[:, R.CHOICE] + hand[:, R.REVERSE]
        keep = self._base.keeps(obs, size)
        trap = (lie & ~keep & (hand[:, R.BOMB] > 0) & (rate > c["trap_rate"])
                & ((finishers >= 2) | (pile >= c["trap_pile"])) & legal_mask[:, R.PLAY0 + R.BOMB])
        out = np.where(trap, R.PLAY0 + R.BOMB, planned)
        # keep the last finisher: lie with the Double, else the cheapest vegetable
        veg_score = np.where(hand[:, :R.BOMB] > 0, NUMBER[None, :], 99)
        dbl = (hand[:, R.DOUBLE] > 0) & ~keep
        cheapest = np.where(dbl, R.DOUBLE, veg_score.argmin(axis=1))
        has_other = dbl | (veg_score.min(axis=1) < 99)
        sizes = obs["hand_sizes"].astype(np.int64)
        me = np.arange(p)[None, :] == np.maximum(obs["seat"].astype(np.int64), 0)[:, None]
        leading = size <= np.where(me, 10**6, sizes).min(axis=1) + c["keep_margin"]
        spend = (lie & ~trap & ((card == R.BOMB) | (card == R.CHOICE)) & (finishers == 1)
                 & has_other & (size >= 2) & leading)
        alt = R.PLAY0 + cheapest
        ok = legal_mask[rows, np.clip(alt, 0, legal_mask.shape[1] - 1)]
        return np.where(spend & ok, alt, out)

    def judge(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, fallback: np.ndarray,
              belief: np.ndarray | None = None) -> np.ndarray:
        """Accuse, accuse double, accept or ``fallback`` (the play) where accusing is legal
        (every row): the numpy reference of ``judge_rows``; ``belief`` (P(true), P(lie), P(Bomb)
        per row) defaults to ``claim_beliefs``."""
        c, rules = self.config, self.game.rules
        n = fallback.size
        rows = np.arange(n)
        pool_i = unseen_pool(obs, rules)
        belief = claim_beliefs(obs, rules, pool=pool_i) if belief is None else belief
        p_t, p_l, p_b = belief[:, 0], belief[:, 1], belief[:, 2]
        pool = pool_i.astype(np.float64)
        veg = np.maximum(obs["last_called"].astype(np.int64), 0)
        mine = pool[:, :R.BOMB].reshape(n, R.NUM_VEG, 3)[rows, veg]
        k_true = (mine * np.arange(1, 4)).sum(axis=1) / np.maximum(mine.sum(axis=1), 1)
        k_true = np.where(mine.sum(axis=1) > 0, k_true, 2.0)
        lie = rules.action_lie_penalty
        penalty = np.concatenate([NUMBER, [0, lie, lie, lie]]).astype(np.float64)
        others = pool.copy()
        others[rows[:, None], veg[:, None] * 3 + np.arange(3)] = 0
        others[:, R.BOMB] = 0
        k_lie = (others * penalty).sum(axis=1) / np.maximum(others.sum(axis=1), 1)
        bomb_cost = (obs["discard_size"].astype(np.float64) + obs["face_down_count"]
                     + obs["face_up"].sum(axis=1))
        owner = np.maximum(obs["last_owner"].astype(np.int64), 0)
        owner_hand = obs["hand_sizes"][rows, owner].astype(np.float64)
        spite = c["spite2"] if rules.num_players == 2 else c["spite"]
        spite = spite * np.where(owner_hand <= c["urgent_at"], 2.0, 1.0)
        tempo = c["tempo"]
        # expected cards, positive = good for me
        base = -p_t * k_true - p_b * bomb_cost + spite * p_l * k_lie
        turn = tempo * (p_t + p_b) - spite * tempo * p_l
        v_acc = base + turn
        v_dbl = (-p_t * 2 * k_true - p_b * (bomb_cost + 1) + spite * p_l * 2 * k_lie
                 + (p_t + p_l)) + turn
        v_play = np.ones(n)          # one card shed (the play's own risk is not modelled yet)
        can_double = legal_mask[:, R.ACCUSE_DOUBLE]
        use_double = can_double & (v_dbl > v_acc) & (p_t < c["double_below"])
        v_best = np.where(use_double, v_dbl, v_acc)
        accuse = v_best > v_play + c["margin"]
        act = np.where(use_double, R.ACCUSE_DOUBLE, R.ACCUSE)
        decision = np.where(accuse, act, fallback)
        # a player's last face-down card: accept only when sure second and a lie is unlikely
        facing = legal_mask[:, R.ACCEPT]
        if facing.any():
            sizes = obs["hand_sizes"].astype(np.int64)
            p = sizes.shape[1]
            seats = np.arange(p)[None, :]
            me = np.maximum(obs["seat"].astype(np.int64), 0)[:, None]
            pend = obs["pending"].astype(np.int64)[:, None]
            rival = np.where((seats == me) | (seats == pend), np.iinfo(np.int64).max, sizes)
            my_score = obs["hand"].astype(np.int64) @ POINTS
            sure_second = (p >= 3) & (my_score <= rival.min(axis=1))
            accept = sure_second & (p_l < c["accept_below"])
            last_dbl = use_double
            decision = np.where(facing, np.where(accept, R.ACCEPT,
                                                 np.where(last_dbl, R.ACCUSE_DOUBLE, R.ACCUSE)),
                                decision)
        # 2 players, the Double my last card: a Double accusation of a lie wins the game
        hand = obs["hand"].astype(np.int64)
        last_double = (rules.num_players == 2) & can_double & (hand.sum(axis=1) == hand[:, R.DOUBLE])
        decision = np.where(last_double & (facing | (p_l >= 0.5)), R.ACCUSE_DOUBLE, decision)
        return decision
