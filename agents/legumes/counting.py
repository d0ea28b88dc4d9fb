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
  (``held_probability``), and ``bomb_held`` the same for a Bomb;
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

One compiled implementation (``counting_policy``, ``agents.policy``'s contract): the base
heuristic's play (``heuristic_policy`` with ``accuse_at=99, accuse_rate=0``), ``lie_card`` on a
face-down play, and where accusing is legal the unseen pool, the features, the beliefs
(``claim_beliefs``) and ``judge``; ``act`` and the fused loop both run it.  ``claim_model``
(features and beliefs of a batch: the fit and the calibration tests) and ``judge`` with given
beliefs (the decision tests) call the same functions.

Floats.  Every float a decision depends on is computed with ``+ - * /`` and
``bluffsim.fmath`` (``exp``, ``log``, ``pow`` ... in plain IEEE arithmetic, never libm or numpy's
SIMD math) in a fixed order, one row at a time, so the actions are the same on every CPU and in
any batch (docs/float_contract.md).

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
from numba import njit

from agents.base import Traits, probability, real, register_agent
from agents.combinatorics import LOG_CHOOSE, log_choose_at
from agents.legumes import heuristic as H
from agents.legumes.heuristic import LegumesHeuristic, heuristic_policy, keeps, sure_second
from agents.policy import CompiledAgent, act_loop, observation_records
from bluffsim import fmath as fm
from bluffsim.games.legumes import rules as R

T, BOMB, CHOICE, REVERSE, DOUBLE = R.NUM_TYPES, R.BOMB, R.CHOICE, R.REVERSE, R.DOUBLE
POINTS = H.POINTS

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
# the policy's ``params`` row: the base heuristic's (``heuristic.PARAMS``), then these (``spite``
# is ``spite2`` at 2 players)
PARAMS = ("spite", "urgent_at", "tempo", "margin", "double_below", "accept_below", "trap_rate",
          "trap_pile", "keep_margin")
(SPITE, URGENT_AT, TEMPO, MARGIN, DOUBLE_BELOW, ACCEPT_BELOW, TRAP_RATE, TRAP_PILE,
 LIE_KEEP_MARGIN) = range(len(H.PARAMS), len(H.PARAMS) + len(PARAMS))


def params_row(agent: Any) -> list[float]:
    """The ``params`` row of a ``LegumesCounting`` (``PARAMS`` after its base heuristic's)."""
    c = agent.config
    spite = c["spite2"] if agent.game.rules.num_players == 2 else c["spite"]
    return H.params_row(agent._base) + [float(spite)] + [float(c[n]) for n in PARAMS[1:]]


@lru_cache(maxsize=64)
def _tables(rules: R.Rules) -> tuple[np.ndarray, np.ndarray]:
    """Every card of the game by type (int64[T]) and the cards an accused lie makes its owner
    draw, per type (float64[T]: a vegetable's number, the ``action_lie_penalty``, 0 for the
    Bomb); read-only."""
    total = np.bincount(np.asarray(rules.deck), minlength=T).astype(np.int64)
    total[list(R.ACTION_CARDS)] = rules.num_players
    lie = rules.action_lie_penalty
    penalty = np.asarray([1, 2, 3] * R.NUM_VEG + [0, lie, lie, lie], np.float64)
    for a in (total, penalty):
        a.flags.writeable = False
    return total, penalty


def context(rules: R.Rules) -> tuple:
    """The policy's ``ctx``: card totals, claim weights, lie penalties (``_tables``), then
    scratch for the features (float64[F]) and the unseen pool (int64[T])."""
    total, penalty = _tables(rules)
    return total, CLAIM_WEIGHTS, penalty, np.empty(len(FEATURES)), np.empty(T, np.int64)


@njit(cache=True)
def unseen_pool(obs, total, pool):
    """``pool``: the cards of each type I cannot place (every card minus my hand, my face-down
    cards, the face-up cards, the discards known to all and mine); returns their number."""
    u = 0
    for t in range(T):
        v = total[t] - (np.int64(obs.hand[t]) + np.int64(obs.my_face_down[t])
                        + np.int64(obs.face_up[t]) + np.int64(obs.discard_revealed[t])
                        + np.int64(obs.my_discard[t]))
        pool[t] = v if v > 0 else 0
        u += pool[t]
    return u


@njit(cache=True)
def held_probability(pool_size, good, hand):
    """P(a uniform ``hand``-subset of a pool of ``pool_size`` holds one of ``good`` cards)."""
    h = min(hand, pool_size)
    p_none = fm.exp(log_choose_at(LOG_CHOOSE, pool_size - good, h)
                    - log_choose_at(LOG_CHOOSE, pool_size, h))
    return min(max(1.0 - p_none, 0.0), 1.0)


@njit(cache=True)
def _logit(p):
    p = min(max(p, 1e-3), 1 - 1e-3)
    return fm.log(p / (1 - p))


@njit(cache=True)
def claim_features(obs, r, pool, u, x):
    """``x`` (float64[F]): the model's features of the last face-down card (``FEATURES``),
    from the unseen ``pool`` of ``u`` cards."""
    owner = max(np.int64(obs.last_owner), 0)
    veg = max(np.int64(obs.last_called), 0)
    rounds = np.float64(obs.num_rounds)
    fd_count = np.int64(obs.face_down_count)
    accused, shown = obs.accused_tally[owner], obs.shown_tally[owner]
    n_v = pool[veg * 3] + pool[veg * 3 + 1] + pool[veg * 3 + 2]
    h = np.int64(obs.hand_sizes[owner]) + 1
    hold = held_probability(u, n_v, h)   # the owner held the called vegetable
    lh = _logit(hold)
    lhold = fm.log(max(hold, 1e-3))
    t_true, t_lie, t_bomb = np.int64(accused[0]), np.int64(accused[1]), np.int64(accused[2])
    n_acc = t_true + t_lie + t_bomb
    accuses = (np.int64(obs.accuser_tally[owner, 0]) + np.int64(obs.accuser_tally[owner, 1])
               + np.int64(obs.accuser_tally[owner, 2]))
    truth = fm.log((t_true + 1.0) / (t_lie + t_bomb + 1.0))
    acc_rate = fm.log((accuses + 0.5) / (rounds + 2.0))
    # linear evidence (a type's log-likelihood ratio is linear in these counts), capped
    t_n = min(t_true, 8) / 4.0
    l_n = min(t_lie + t_bomb, 8) / 4.0
    a_n = min(accuses, 16) / 8.0
    # action cards the owner showed face up or revealed (Choice and Reverse played face up come
    # early from a random player, late from the rule-based ones), cards it drew from the pile
    free = min(np.int64(shown[1]), 4) + min(np.int64(shown[2]), 4)
    drawn = fm.log1p(np.float64(obs.drawn_tally[owner]))
    l1n = fm.log1p(n_acc)
    x[0] = 1.0
    x[1] = lh
    x[2] = lhold
    x[3] = truth
    x[4] = l1n
    x[5] = acc_rate
    bomb_held = _logit(held_probability(u, pool[BOMB], h))
    x[6] = bomb_held
    x[7] = 1.0 if shown[0] > 0 else 0.0
    x[8] = 1.0 if fd_count == 1 else 0.0
    x[9] = 1.0 if obs.pending >= 0 else 0.0
    x[10] = max(np.float64(obs.fd_claims[owner, veg]) - 1.0, 0.0)
    x[11] = fm.log(h)
    x[12] = lh * truth
    x[13] = lh * acc_rate
    x[14] = lhold * truth
    x[15] = truth * l1n
    x[16] = fm.log1p(rounds)
    x[17] = t_n
    x[18] = l_n
    x[19] = a_n
    x[20] = lh * t_n
    x[21] = lh * l_n
    x[22] = lh * a_n
    x[23] = free
    x[24] = min(np.int64(shown[3]), 4)
    x[25] = drawn
    x[26] = lh * free
    x[27] = lh * drawn
    x[28] = fm.log(fd_count + 1.0)
    # 2 players: rule-based players keep the Bomb to the end (heuristic ``keeps``), so a Bomb
    # is rarer mid-game and likelier on a last card while its owner has not shown it
    duel = 1.0 if r.num_players == 2 else 0.0
    x[29] = duel
    x[30] = duel * x[9]
    x[31] = duel * bomb_held
    x[32] = duel * acc_rate
    x[33] = duel * free
    x[34] = duel * lh


@njit(cache=True)
def claim_beliefs(obs, r, pool, u, weights, x):
    """(P(true), P(lie), P(Bomb)) of the last face-down card: the multinomial logit of
    ``claim_features`` (left in ``x``)."""
    claim_features(obs, r, pool, u, x)
    z1 = 0.0
    z2 = 0.0
    for f in range(weights.shape[1]):
        z1 += x[f] * weights[0, f]
        z2 += x[f] * weights[1, f]
    zm = max(0.0, max(z1, z2))
    e0, e1, e2 = fm.exp(-zm), fm.exp(z1 - zm), fm.exp(z2 - zm)
    s = e0 + e1 + e2
    return e0 / s, e1 / s, e2 / s


@njit(cache=True)
def judge(obs, mask, r, params, pool, penalty, p_t, p_l, p_b, play):
    """Accuse, accuse double, accept or ``play`` where accusing is legal, by expected cards
    with the beliefs ``p_t, p_l, p_b`` (module docstring)."""
    veg = max(np.int64(obs.last_called), 0)
    owner = max(np.int64(obs.last_owner), 0)
    cnt = 0.0
    num = 0.0
    for j in range(3):
        cnt += pool[veg * 3 + j]
        num += pool[veg * 3 + j] * (j + 1.0)
    k_true = num / max(cnt, 1.0) if cnt > 0 else 2.0
    o_cnt = 0.0
    o_num = 0.0
    for t in range(T):
        if t == BOMB or (t < BOMB and t // 3 == veg):
            continue
        o_cnt += pool[t]
        o_num += pool[t] * penalty[t]
    k_lie = o_num / max(o_cnt, 1.0)
    up = 0
    for t in range(T):
        up += np.int64(obs.face_up[t])
    bomb_cost = np.float64(obs.discard_size) + np.float64(obs.face_down_count) + up
    spite = params[SPITE] * (2.0 if obs.hand_sizes[owner] <= params[URGENT_AT] else 1.0)
    tempo = params[TEMPO]
    # expected cards, positive = good for me
    turn = tempo * (p_t + p_b) - spite * tempo * p_l
    v_acc = -p_t * k_true - p_b * bomb_cost + spite * p_l * k_lie + turn
    v_dbl = (-p_t * 2 * k_true - p_b * (bomb_cost + 1) + spite * p_l * 2 * k_lie
             + (p_t + p_l)) + turn
    can_double = mask[R.ACCUSE_DOUBLE] != 0
    facing = mask[R.ACCEPT] != 0
    use_double = can_double and v_dbl > v_acc and p_t < params[DOUBLE_BELOW]
    v_best = v_dbl if use_double else v_acc
    size = 0
    for t in range(T):
        size += np.int64(obs.hand[t])
    # 2 players, the Double my last card: a Double accusation of a lie wins the game
    if r.num_players == 2 and can_double and size == obs.hand[DOUBLE] and (facing or p_l >= 0.5):
        return np.int64(R.ACCUSE_DOUBLE)
    if facing:  # a player's last card: accept only when sure second and a lie is unlikely
        if sure_second(obs, r) and p_l < params[ACCEPT_BELOW]:
            return np.int64(R.ACCEPT)
        return np.int64(R.ACCUSE_DOUBLE if use_double else R.ACCUSE)
    if v_best > 1.0 + params[MARGIN]:  # the play: one card shed (its own risk not modelled)
        return np.int64(R.ACCUSE_DOUBLE if use_double else R.ACCUSE)
    return play


@njit(cache=True)
def lie_card(obs, mask, r, params, a):
    """Rework the heuristic's face-down play ``a``: a lie goes down as the Bomb trap for a next
    player who accuses often, and never as my last finisher (Bomb, Choice, Reverse) while
    another card can lie, when I am in the race (module docstring)."""
    hand = obs.hand
    card = a - R.PLAY0
    if card < BOMB and card // 3 == max(np.int64(obs.called), 0):
        return a                                    # a true play
    size = 0
    up = 0
    for t in range(T):
        size += np.int64(hand[t])
        up += np.int64(obs.face_up[t])
    p = r.num_players
    me = max(np.int64(obs.seat), 0)
    nxt = (me + np.int64(obs.direction)) % p
    accuses = (np.int64(obs.accuser_tally[nxt, 0]) + np.int64(obs.accuser_tally[nxt, 1])
               + np.int64(obs.accuser_tally[nxt, 2]))
    rate = (accuses + 0.5) / (np.float64(obs.num_rounds) + 2.0) * p
    pile = np.float64(obs.discard_size) + np.float64(obs.face_down_count) + up
    finishers = np.int64(hand[BOMB]) + np.int64(hand[CHOICE]) + np.int64(hand[REVERSE])
    keep = keeps(obs, r, size, params[H.KEEP_MARGIN])   # the Bomb and the Double are finishers
    if (not keep and hand[BOMB] > 0 and rate > params[TRAP_RATE]
            and (finishers >= 2 or pile >= params[TRAP_PILE]) and mask[R.PLAY0 + BOMB]):
        return np.int64(R.PLAY0 + BOMB)
    if not (card == BOMB or card == CHOICE) or finishers != 1 or size < 2:
        return a
    smallest = 10 ** 6
    for s in range(p):
        if s != me and obs.hand_sizes[s] < smallest:
            smallest = np.int64(obs.hand_sizes[s])
    if size > smallest + params[LIE_KEEP_MARGIN]:
        return a
    # keep the last finisher: lie with the Double, else the cheapest vegetable
    alt = -1
    if hand[DOUBLE] > 0 and not keep:
        alt = DOUBLE
    else:
        best = 99
        for t in range(BOMB):
            if hand[t] > 0 and t % 3 + 1 < best:
                best = t % 3 + 1
                alt = t
    if alt >= 0 and mask[R.PLAY0 + alt]:
        return np.int64(R.PLAY0 + alt)
    return a


@njit(cache=True)
def counting_policy(obs, mask, key, r, params, ctx):
    """The ``counting`` policy (``agents.policy``; ``params``: ``params_row``, ``ctx``:
    ``context``): the base heuristic's action, ``lie_card`` on a face-down play, ``judge`` with
    ``claim_beliefs`` where accusing is legal."""
    total, weights, penalty, x, pool = ctx
    a = heuristic_policy(obs, mask, key, r, params, ctx)
    if obs.phase == R.PHASE_PLAY and a >= R.PLAY0 and a < R.PLAY0 + T:
        a = lie_card(obs, mask, r, params, a)
    if not mask[R.ACCUSE]:
        return a
    u = unseen_pool(obs, total, pool)
    p_t, p_l, p_b = claim_beliefs(obs, r, pool, u, weights, x)
    return judge(obs, mask, r, params, pool, penalty, p_t, p_l, p_b, a)


@njit(cache=True)
def act_kernel(records, mask, keys, rules, params, ctx, out):
    act_loop(counting_policy, records, mask, keys, rules, params, ctx, out)


@njit(cache=True)
def claim_model_rows(records, rules, ctx, features, beliefs):
    """``features[b]`` and ``beliefs[b]``: ``claim_beliefs`` of row ``b``."""
    total, weights, _, x, pool = ctx
    for b in range(records.shape[0]):
        u = unseen_pool(records[b], total, pool)
        beliefs[b, 0], beliefs[b, 1], beliefs[b, 2] = claim_beliefs(records[b], rules[0], pool,
                                                                    u, weights, x)
        features[b, :] = x


@njit(cache=True)
def judge_kernel(records, mask, rules, params, ctx, beliefs, plays, out):
    """``out[b]``: ``judge`` of row ``b`` with the beliefs ``beliefs[b]``."""
    total, _, penalty, _, pool = ctx
    for b in range(records.shape[0]):
        unseen_pool(records[b], total, pool)
        out[b] = judge(records[b], mask[b], rules[0], params, pool, penalty, beliefs[b, 0],
                       beliefs[b, 1], beliefs[b, 2], plays[b])


def claim_model(game: Any, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(features float64[B, F], beliefs float64[B, 3]: P(true), P(lie), P(Bomb)) of the last
    face-down card on every row of ``obs`` (rows where accusing is legal: the fit, the tests)."""
    records = observation_records(game, obs)
    features = np.empty((records.shape[0], len(FEATURES)))
    beliefs = np.empty((records.shape[0], 3))
    claim_model_rows(records, game._rec, context(game.rules), features, beliefs)
    return features, beliefs


@register_agent("legumes")
class LegumesCounting(CompiledAgent):
    """Counting plus a fitted per-seat behaviour model, expected-cards decisions (module
    docstring): ``counting_policy``."""

    policy, act_kernel, params_row = counting_policy, act_kernel, params_row

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

    def context(self) -> tuple:
        """The policy's ``ctx`` (``context``)."""
        return context(self.game.rules)

    def judge(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, plays: np.ndarray,
              beliefs: np.ndarray) -> np.ndarray:
        """``judge`` on every row (accusing legal) with the given beliefs (P(true), P(lie),
        P(Bomb) per row) and ``plays`` the fallback actions."""
        out = np.empty(len(plays), np.int64)
        judge_kernel(observation_records(self.game, obs), np.ascontiguousarray(legal_mask),
                     self.game._rec, np.asarray(params_row(self)), context(self.game.rules),
                     np.asarray(beliefs, np.float64), np.asarray(plays, np.int64), out)
        return out
