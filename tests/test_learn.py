"""Learning interfaces: the Gymnasium envs on the fast engine, the `learned` agent, `bluffsim train`."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
import bluffsim
from agents.learned import LearnedAgent, forward, masked_probs, save_weights
from bluffsim import rng as brng
from bluffsim.api import BluffsimError
from bluffsim.rng import AgentRNG
from bluffsim.tournament.schedule import SCHEDULE_STREAM

gym = pytest.importorskip("gymnasium", reason="needs gymnasium (the 'adapters' or 'learn' extra)")
from bluffsim.adapters.gymnasium import env, placement_rewards, vector_env  # noqa: E402

# the games whose spec declares `settled` (the env's end_when_out)
SETTLED_GAMES = [g for g in bluffsim.list_games() if bluffsim.spec(g).settled is not None]


def learner_policy(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A deterministic learner that depends on the observation: legal action number hash(x) % n."""
    n = mask.sum(axis=1)
    k = (np.abs(x).sum(axis=1) * 7).astype(np.int64) % np.maximum(n, 1)
    order = np.cumsum(mask, axis=1) - 1
    return np.argmax(mask & (order == k[:, None]), axis=1)


def play_on_engine(game: bluffsim.Game, seed: int, learner: int, opponents: list) -> tuple[list, float]:
    """One game stepped directly on the engine: the learner's observations and its final reward."""
    st = game.init(np.array([seed], np.uint64))
    seen = []
    p = game.num_players
    while not st.done[0]:
        cp = int(st.current_player[0])
        if cp == learner:
            x = game.observation_tensor(st)
            seen.append((x[0].copy(), st.legal_action_mask[0].copy()))
            a = learner_policy(x, st.legal_action_mask)
        else:
            agent = opponents[(cp - learner) % p - 1]
            rng = AgentRNG(np.array([seed], np.uint64), np.array([cp]), st.num_decisions)
            a = agent.act(game.observe(st), st.legal_action_mask, rng)
        game.step(st, np.asarray(a, np.int64))
    return seen, float(placement_rewards(st.placements, np.array([learner]))[0])


def test_single_env_passes_gymnasium_check_env():
    from gymnasium.utils.env_checker import check_env

    for players, opp in ((2, "heuristic"), (3, ("random", "counting"))):
        e = env("qdv", opponents=opp, num_players=players)
        check_env(e, skip_render_check=True)
        obs, info = e.reset(seed=3)
        assert obs.shape == (bluffsim.make("qdv", players).observation_tensor(
            bluffsim.make("qdv", players).init(np.zeros(1, np.uint64))).shape[1],)
        assert info["action_mask"].dtype == bool and info["action_mask"].any()
    # an illegal action ends the episode with the worst reward; illegal="raise" raises
    e = env("qdv", opponents="random")
    _, info = e.reset(seed=1)
    bad = int(np.flatnonzero(~info["action_mask"])[0])
    _, r, term, trunc, info = e.step(bad)
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, True, False, True)
    e = env("qdv", opponents="random", illegal="raise")
    e.reset(seed=1)
    with pytest.raises(bluffsim.api.IllegalActionError):
        e.step(bad)


def test_vector_env_plays_the_engine_games_of_its_seed():
    """Same seeds, same policies: the env's observations and rewards are the engine's, game by game."""
    game = bluffsim.make("qdv", 3)
    names = ("heuristic", "random")
    opps = [agents.make(n, game) for n in names]
    n_envs, seed = 6, 5
    v = vector_env("qdv", n_envs, seat="rotate", opponents=names)
    obs, info = v.reset(seed=seed)
    want_seeds = brng.words(np.uint64(seed), SCHEDULE_STREAM, np.arange(n_envs, dtype=np.uint64), 0)
    np.testing.assert_array_equal(info["game_seed"], want_seeds)
    np.testing.assert_array_equal(info["seat"], np.arange(n_envs) % 3)
    expected = [play_on_engine(game, int(s), j % 3, opps) for j, s in enumerate(want_seeds)]
    got: list[list] = [[] for _ in range(n_envs)]
    rewards = np.full(n_envs, np.nan)
    open_ = np.ones(n_envs, bool)
    for _ in range(2000):
        for i in np.flatnonzero(open_):
            got[i].append((obs[i].copy(), info["action_mask"][i].copy()))
        obs, r, term, trunc, info = v.step(learner_policy(obs, info["action_mask"]))
        ended = (term | trunc) & open_
        rewards[ended] = r[ended]
        assert np.all(r[~(term | trunc)] == 0)
        open_ &= ~ended
        if not open_.any():
            break
    for i, (seen, reward) in enumerate(expected):
        assert len(got[i]) == len(seen), f"game {i}: decision count"
        for (x, m), (x2, m2) in zip(got[i], seen, strict=True):
            np.testing.assert_array_equal(x, x2)
            np.testing.assert_array_equal(m, m2)
        assert rewards[i] == pytest.approx(reward)


@pytest.mark.parametrize("game_id", SETTLED_GAMES)
def test_end_when_out_stops_at_the_learners_exit_with_the_full_games_reward(game_id):
    """end_when_out: the episode is the engine game's learner decisions, and its reward and
    placement are those of the whole game played to the end (the learner's place is settled)."""
    game = bluffsim.make(game_id, 4)
    names = ("heuristic", "random", "random")
    opps = [agents.make(n, game) for n in names]
    n_envs, seed = 16, 3
    v = vector_env(game_id, n_envs, seat="rotate", opponents=names, end_when_out=True)
    obs, info = v.reset(seed=seed)
    expected = [play_on_engine(game, int(s), j % 4, opps) for j, s in enumerate(info["game_seed"])]
    got: list[list] = [[] for _ in range(n_envs)]
    rewards = np.full(n_envs, np.nan)
    open_ = np.ones(n_envs, bool)
    for _ in range(3000):
        for i in np.flatnonzero(open_):
            got[i].append(obs[i].copy())
        obs, r, term, trunc, info = v.step(learner_policy(obs, info["action_mask"]))
        ended = (term | trunc) & open_
        rewards[ended] = r[ended]
        open_ &= ~ended
        if not open_.any():
            break
    shorter = 0
    for i, (seen, reward) in enumerate(expected):
        assert 1 <= len(got[i]) <= len(seen), f"game {i}: decision count"
        for x, (x2, _) in zip(got[i], seen, strict=False):
            np.testing.assert_array_equal(x, x2)
        assert rewards[i] == pytest.approx(reward), f"game {i}"
        shorter += len(got[i]) < len(seen)
    assert shorter == 0  # the learner never decides again once it is out


def test_end_when_out_without_autoreset_never_moves_a_game_whose_episode_is_over():
    """end_when_out with autoreset off: once the learner is out, its game is left as it is (no
    learner action lands on an opponent's turn) while the other games play on."""
    v = vector_env("qdv", 16, seat=0, opponents="random", num_players=4, end_when_out=True,
                   autoreset=False)
    obs, info = v.reset(seed=1)
    pick = np.random.default_rng(0)
    frozen = 0
    for _ in range(60):
        over = v._over()
        before = v.state.num_decisions.copy()
        mask = info["action_mask"]
        obs, r, term, trunc, info = v.step((pick.random(mask.shape) * mask).argmax(axis=1))
        np.testing.assert_array_equal(v.state.num_decisions[over], before[over])
        frozen += int((over & ~v.state.done).sum())
    assert frozen > 0  # the case arose: settled games still running were left untouched


def test_settled_placements_match_the_final_ones_on_random_games():
    """qdv and veru: once a seat is settled, the pseudo placements order every seat against it as
    the final placements do (random games on the engine, every seat checked)."""
    from bluffsim.adapters.gymnasium import SETTLED, score_placements

    for game_id in SETTLED:
        game = bluffsim.make(game_id, 4)
        n = 64
        st = game.init(np.arange(n, dtype=np.uint64) + 100)
        pick = np.random.default_rng(0)
        first: dict[tuple[int, int], np.ndarray] = {}
        while not st.done.all():
            a = np.where(st.done, -1, (pick.random(st.legal_action_mask.shape)
                                       * st.legal_action_mask).argmax(axis=1))
            game.step(st, a)
            for seat in range(4):
                rows = np.arange(n)
                settled, score = SETTLED[game_id](st, rows, np.full(n, seat))
                for b in np.flatnonzero(settled & ~st.done):
                    first.setdefault((int(b), seat), score_placements(score[b:b + 1])[0])
        assert len(first) > n  # many seats leave before their game ends
        for (b, seat), pseudo in first.items():
            final = st.placements[b].astype(np.int64)
            assert pseudo[seat] == final[seat], (game_id, b, seat)
            np.testing.assert_array_equal(np.sign(pseudo - pseudo[seat]), np.sign(final - final[seat]))


def test_token_shaping_sums_to_the_change_of_the_token_share():
    """qdv shaping: per step c * (share after - share before), the share being the learner's part
    of the tokens in play; over an episode it adds up to c * (final share - share at the first
    decision): 1 for the winner, 0 once out.  Observations are those of the unshaped env."""
    c = 0.5
    kw = dict(seat="rotate", opponents="heuristic", num_players=4, end_when_out=True)
    v = vector_env("qdv", 8, shaping=c, **kw)
    base = vector_env("qdv", 8, **kw)
    obs, info = v.reset(seed=4)
    base.reset(seed=4)
    rows = np.arange(8)

    def share() -> np.ndarray:
        tok = v.state.tokens.astype(np.float64)
        return tok[rows, v.learner] / tok.sum(axis=1)

    start, total, checked = share(), np.zeros(8), 0
    for _ in range(400):
        a = learner_policy(obs, info["action_mask"])
        obs, r, term, trunc, info = v.step(a)
        obs_b, r_b, *_ = base.step(a)
        np.testing.assert_array_equal(obs, obs_b)
        total += r - r_b
        done = term | trunc
        live = ~done
        np.testing.assert_allclose(total[live], c * (share()[live] - start[live]), atol=1e-5)
        for i in np.flatnonzero(done & term):
            final = 1.0 if info["final_info"]["placement"][i] == 1 else 0.0
            assert total[i] == pytest.approx(c * (final - start[i]), abs=1e-5)
            checked += 1
        start[done], total[done] = share()[done], 0.0
    assert checked > 8


def test_vector_env_autoreset_is_same_step_and_seeding_reproduces():
    from gymnasium.vector import AutoresetMode

    v = vector_env("qdv", 4, seat=1, opponents="random", num_players=2, reward="win")
    assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert isinstance(v, gym.vector.VectorEnv)
    obs, info = v.reset(seed=11)
    assert obs.dtype == np.float32 and obs.shape == (4, v.obs_size)
    trace = []
    finished = 0
    for _ in range(400):
        a = learner_policy(obs, info["action_mask"])
        obs, r, term, trunc, info = v.step(a)
        trace.append((obs.copy(), r.copy()))
        done = term | trunc
        if done.any():
            # SAME_STEP: final observation in info, obs already the next game's first decision
            assert info["_final_obs"].tolist() == done.tolist()
            final = info["final_obs"]   # the finished games' tensors, zeros elsewhere
            assert final.shape == obs.shape and not final[~done].any()
            assert final[done].any(axis=1).all() and (final[done] != obs[done]).any(axis=1).all()
            assert set(np.unique(r[done])) <= {0.0, 1.0}
            fi = info["final_info"]
            assert np.all(fi["placement"][done] >= 1)
            assert np.all(r[done] == (fi["placement"][done] == 1))
            for i in np.flatnonzero(done):
                assert info["game_index"][i] >= 4 + finished
                want = brng.words(np.uint64(11), SCHEDULE_STREAM, np.uint64(info["game_index"][i]), 0)
                assert info["game_seed"][i] == want[0]
                assert info["action_mask"][i].any()  # a live decision of the new game
            finished += int(done.sum())
        assert np.all(v.state.current_player[~v.state.done] == 1)
    assert finished > 4
    # the same reset seed replays the same trajectory
    obs2, info2 = v.reset(seed=11)
    for x, r in trace[:50]:
        obs2, r2, *_, info2 = v.step(learner_policy(obs2, info2["action_mask"]))
        np.testing.assert_array_equal(obs2, x)
        np.testing.assert_array_equal(r2, r)
    # reset() without a seed continues the game sequence of the last seed
    before = v.next_game
    _, info3 = v.reset()
    assert info3["game_index"].min() >= before


def test_vector_env_dict_observation_callable_opponent_and_validation():
    game = bluffsim.make("qdv", 2)
    calls = []

    def frozen(x, mask, rng):  # a tensor policy (e.g. a frozen copy of the learner)
        calls.append(x.shape)
        return learner_policy(x, mask)

    v = vector_env("qdv", 3, opponents=[frozen], dict_obs=True)
    obs, info = v.reset(seed=2)
    assert set(obs) == {"observation", "action_mask"}
    assert obs["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(obs["action_mask"].astype(bool), info["action_mask"])
    v.step(learner_policy(obs["observation"], info["action_mask"]))
    assert calls and all(s[1] == v.obs_size for s in calls)
    assert v.observation_space.contains(obs) or obs["observation"].shape == (3, v.obs_size)
    with pytest.raises(ValueError, match="opponents"):
        vector_env("qdv", 2, opponents=("random",), num_players=3)
    with pytest.raises(ValueError, match="rotate"):
        vector_env("qdv", 2, seat=5)
    assert game.num_players == 2


@pytest.mark.parametrize("game_id", bluffsim.list_games())
def test_envs_without_a_player_count_play_the_games_default_count(game_id):
    """env(game) and vector_env(game, N) with one opponent name and no num_players seat the game's
    declared default player count (veru has no 2-player game); a list of opponents still sets it."""
    default = bluffsim.spec(game_id).players[2]
    v = vector_env(game_id, 4)
    obs, info = v.reset(seed=1)
    assert v.num_players == default and obs.shape == (4, v.obs_size)
    # one opponent name other than the default when the game has one (a game need not have
    # heuristic agents: which agents play it is the registry's answer)
    name = "heuristic" if game_id in agents.REGISTRY.get("heuristic", {}) else "random"
    e = env(game_id, opponents=name)
    obs, info = e.reset(seed=1)
    assert e.venv.num_players == default and info["action_mask"].any()
    low = bluffsim.spec(game_id).players[0]
    assert vector_env(game_id, 2, opponents=["random"] * (low - 1)).num_players == low


def test_placement_rewards_are_zero_sum_and_win_is_first_place():
    place = np.array([[2, 1, 4, 3], [1, 1, 3, 3]], np.int8)
    zs = np.stack([placement_rewards(place, np.full(2, s)) for s in range(4)], axis=1)
    np.testing.assert_allclose(zs.sum(axis=1), 0.0, atol=1e-6)
    np.testing.assert_allclose(zs[0], [1 / 3, 1.0, -1.0, -1 / 3], atol=1e-6)
    np.testing.assert_allclose(zs[1], [2 / 3, 2 / 3, -2 / 3, -2 / 3], atol=1e-6)
    np.testing.assert_array_equal(placement_rewards(place, np.array([1, 1]), "win"), [1.0, 1.0])


def random_layers(d: int, a: int, hidden=(16, 8), seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    dims = [d, *hidden, a]
    return [(rng.normal(0, 1 / np.sqrt(i), (i, o)).astype(np.float32),
             rng.normal(0, 0.1, o).astype(np.float32)) for i, o in zip(dims[:-1], dims[1:], strict=True)]


@pytest.mark.parametrize("players", [2, 4])
def test_learned_agent_only_picks_legal_actions(tmp_path, players):
    game = bluffsim.make("qdv", players)
    d = game.observation_tensor(game.init(np.zeros(1, np.uint64))).shape[1]
    path = tmp_path / "w.npz"
    save_weights(path, random_layers(d, game.num_actions),
                 {"game": "qdv", "num_players": players})
    agent = agents.make("learned", game, weights=str(path))
    st = game.init(np.arange(64, dtype=np.uint64))
    seeds = np.arange(64, dtype=np.uint64)
    decisions = 0
    while not st.done.all() and decisions < 3000:
        live = np.flatnonzero(~st.done)
        obs = {k: v[live] for k, v in game.observe(st).items()}
        mask = st.legal_action_mask[live]
        a = agent.act(obs, mask, AgentRNG(seeds[live], st.current_player[live], st.num_decisions[live]))
        assert mask[np.arange(live.size), a].all()
        acts = np.full(64, -1, np.int64)
        acts[live] = a
        game.step(st, acts)
        decisions += 1
    assert st.done.all()
    # the agent's probabilities are a masked softmax: zero off the mask, rows sum to one
    x = game.observation_tensor(st.take(np.arange(4)))
    m = np.zeros((4, game.num_actions), bool)
    m[:, [0, 3]] = True
    p = agent.probs(x, m)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (p[:, ~m[0]] == 0).all()


def test_learned_weights_errors_are_clear(tmp_path):
    game3 = bluffsim.make("qdv", 3)
    with pytest.raises(BluffsimError, match="no shipped weights for qdv with 3 players"):
        agents.make("learned", game3)
    with pytest.raises(BluffsimError, match="not found"):
        agents.make("learned", game3, weights=str(tmp_path / "nope.npz"))
    path = tmp_path / "w2.npz"
    save_weights(path, random_layers(280, 27), {"game": "qdv", "num_players": 2})
    with pytest.raises(BluffsimError, match="trained for qdv with 2 players"):
        agents.make("learned", game3, weights=str(path))


def _npz_bytes(tmp_path, **arrays) -> bytes:
    path = tmp_path / "made.npz"
    np.savez(path, **arrays)
    return path.read_bytes()


@pytest.mark.parametrize("kind", ["text", "npy", "no meta", "meta not json", "no layers",
                                  "truncated zip"])
def test_a_weights_file_that_is_not_one_bluffsim_train_writes_is_named_clearly(tmp_path, kind):
    """`learned` with a file that is not a weights .npz says so (the path, and that it expects an
    .npz written by `bluffsim train`), not numpy's allow_pickle message or a KeyError."""
    w = random_layers(280, 27)
    meta = np.array(json.dumps({"game": "qdv", "num_players": 2}))
    content = {
        "text": lambda: b"weights = 3\n",
        "npy": lambda: (np.save(tmp_path / "a.npy", np.zeros(3)), (tmp_path / "a.npy").read_bytes())[1],
        "no meta": lambda: _npz_bytes(tmp_path, w0=w[0][0], b0=w[0][1]),
        "meta not json": lambda: _npz_bytes(tmp_path, meta=np.array("{oops"), w0=w[0][0], b0=w[0][1]),
        "no layers": lambda: _npz_bytes(tmp_path, meta=meta),
        "truncated zip": lambda: _npz_bytes(tmp_path, meta=meta, w0=w[0][0], b0=w[0][1])[:300],
    }[kind]()
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(BluffsimError) as info:
        agents.make("learned", bluffsim.make("qdv", 2), weights=str(path))
    msg = str(info.value)
    assert str(path) in msg and "bluffsim train" in msg and ".npz" in msg, msg
    assert "allow_pickle" not in msg and len(msg.splitlines()) == 1


def test_a_bad_weights_file_in_a_run_config_is_a_one_line_error(tmp_path, capsys):
    from bluffsim.cli import main

    bad = tmp_path / "w.npz"
    bad.write_text("not weights")
    (tmp_path / "c.toml").write_text(
        '[experiment]\ngame = "qdv"\nplayers = 2\ngames = 4\n[[seats]]\nagent = "learned"\n'
        f'params = {{ weights = "{bad}" }}\n[[seats]]\nagent = "random"\n')
    assert main(["run", str(tmp_path / "c.toml"), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(bad) in err and "bluffsim train" in err, err
    assert not (tmp_path / "o").exists()


def test_the_no_shipped_weights_message_shows_the_params_line_to_write():
    with pytest.raises(BluffsimError) as info:
        agents.make("learned", bluffsim.make("qdv", 3))
    assert 'params = { weights = "PATH" }' in str(info.value), str(info.value)


# the usual table sizes, each with a shipped agent (issue 26)
TABLES = [("qdv", 2), ("qdv", 4), ("legumes", 2), ("legumes", 4), ("veru", 3), ("veru", 4)]


def shipped_files() -> list[tuple[str, int, str]]:
    """(game, players, training config) of every shipped weights file made by ``bluffsim train``
    for default rules (a preset's file, e.g. qdv_small_2p, carries its rules and is not a
    default agent)."""
    from agents.learned import WEIGHTS_DIR, load_weights

    out = []
    for path in sorted(WEIGHTS_DIR.glob("*.npz")):
        _, meta = load_weights(path)
        if not meta.get("rules"):
            out.append((meta["game"], int(meta["num_players"]), f"train_{path.stem}.toml"))
    return out


SHIPPED = shipped_files()


def test_every_usual_table_has_a_shipped_learned_agent():
    assert sorted((g, p) for g, p, _ in SHIPPED) == sorted(TABLES)


@pytest.mark.parametrize("game_id, players, config", SHIPPED, ids=[f"{g}{p}" for g, p, _ in SHIPPED])
def test_shipped_weights_load_and_play_legal_games(game_id, players, config):
    """Every shipped weights file loads by default, records the command and config that made it,
    and plays whole games at every seat picking only legal actions."""
    from pathlib import Path

    from bluffsim.learn import load_train_config

    game = bluffsim.make(game_id, players)
    agent = agents.make("learned", game)
    assert agent.meta["command"] == f"bluffsim train experiments/{config}" or \
        agent.meta["command"].startswith(f"bluffsim train experiments/{config} ")
    path = Path(__file__).resolve().parents[1] / "experiments" / config
    cfg = load_train_config(path)
    assert cfg.weights == f"agents/weights/{game_id}_{players}p.npz"
    import tomllib

    assert tomllib.loads(agent.meta["config"]) == tomllib.loads(path.read_text())  # comments aside
    n = 16
    seeds = np.arange(n, dtype=np.uint64) + 7
    st = game.init(seeds)
    for _ in range(20000):
        if st.done.all():
            break
        live = np.flatnonzero(~st.done)
        mask = st.legal_action_mask[live]
        obs = {k: v[live] for k, v in game.observe(st).items()}
        a = agent.act(obs, mask, AgentRNG(seeds[live], st.current_player[live], st.num_decisions[live]))
        assert mask[np.arange(live.size), a].all()
        acts = np.full(n, -1, np.int64)
        acts[live] = a
        game.step(st, acts)
    assert st.done.all()


def test_numpy_inference_equals_the_jax_forward_pass():
    jax = pytest.importorskip("jax", reason="needs the 'learn' extra")
    from bluffsim.learn.ppo import init_params, masked_logits, mlp, numpy_layers

    params = init_params(jax.random.PRNGKey(3), 280, (64, 32), 27)
    # make the policy far from uniform so the comparison means something
    (w0, b0), (w1, b1), (w2, b2) = params["pi"]
    params["pi"] = [(w0 * 3, b0 + 0.1), (w1 * 3, b1), (w2 * 1000, b2)]
    rng = np.random.default_rng(0)
    x = np.abs(rng.normal(0, 5, (50, 280))).astype(np.float32) * (rng.random((50, 280)) < 0.3)
    mask = rng.random((50, 27)) < 0.4
    mask[:, 0] = True
    want = np.asarray(mlp(params["pi"], x))
    got = forward(numpy_layers(params["pi"]), x)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    want_p = np.asarray(jax.nn.softmax(masked_logits(params, x, mask)))
    np.testing.assert_allclose(masked_probs(got, mask), want_p, rtol=1e-4, atol=1e-6)
    assert want_p.max() > 0.5  # not a near-uniform policy
    # decisions: two implementations (float32 JAX, float64 numba) meet here, so the greedy action
    # is compared exactly wherever the best two legal logits are further apart than the stated
    # tolerance; rows within it could go either way and are counted, not compared
    band = 2 * (1e-4 + 1e-4 * np.abs(want).max())
    z_want, z_got = np.where(mask, want, -np.inf), np.where(mask, got, -np.inf)
    top2 = np.sort(z_want, axis=1)[:, -2:]
    near = (top2[:, 1] - top2[:, 0]) <= band
    assert near.sum() <= 1, f"{near.sum()} of {len(near)} rows within {band:.2g} of a tie"
    np.testing.assert_array_equal(z_got.argmax(axis=1)[~near], z_want.argmax(axis=1)[~near])


TINY = """
[train]
game = "qdv"
players = 2
seed = 4
envs = 8
rollout = 4
iterations = 4
hidden = [8]
anneal = false
epochs = 1
minibatches = 2
checkpoint_every = 2
snapshot_every = 2
out = "{out}"
weights = "{out}/w.npz"
[opponents]
agents = ["random", "heuristic"]
weights = [1, 1]
snapshots = 0.5
"""


def test_bluffsim_train_tiny_config_writes_loadable_weights_and_resumes(tmp_path, capsys):
    pytest.importorskip("jax", reason="needs the 'learn' extra")
    from bluffsim.cli import main

    full, part = tmp_path / "full", tmp_path / "part"
    for d in (full, part):
        (tmp_path / f"{d.name}.toml").write_text(TINY.format(out=d))
    assert main(["train", str(tmp_path / "full.toml"), "--quiet"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert main(["train", str(tmp_path / "part.toml"), "--quiet", "--iterations", "2"]) == 0
    assert main(["train", str(tmp_path / "part.toml"), "--quiet", "--resume"]) == 0
    game = bluffsim.make("qdv", 2)
    a = agents.make("learned", game, weights=str(full / "w.npz"))
    b = agents.make("learned", game, weights=str(part / "w.npz"))
    assert a.meta["iterations"] == 4 and "bluffsim train" in a.meta["command"]
    for (w1, b1), (w2, b2) in zip(a.layers, b.layers, strict=True):
        np.testing.assert_allclose(w1, w2, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b1, b2, rtol=1e-5, atol=1e-6)
    log = (full / "log.csv").read_text().splitlines()
    assert len(log) == 5 and log[0].startswith("iteration")
    bad = tmp_path / "bad.toml"
    bad.write_text("[train]\nnope = 1\n")
    assert main(["train", str(bad)]) == 2
    assert "unknown [train] key" in capsys.readouterr().err


def test_anneal_iterations_makes_a_run_the_prefix_of_a_longer_one(tmp_path):
    """``anneal_iterations`` = a longer run's length: the first iterations are that run's (same
    log), while a run annealed over its own length differs; end_when_out/shaping train too."""
    pytest.importorskip("jax", reason="needs the 'learn' extra")
    import csv

    from bluffsim.cli import main

    def run(name: str, iterations: int, extra: str) -> list[list[str]]:
        text = TINY.format(out=tmp_path / name).replace("anneal = false", "anneal = true")
        text = text.replace("iterations = 4", f"iterations = {iterations}\n{extra}")
        text = text.replace("players = 2", "players = 2\nend_when_out = true\nshaping = 0.5")
        (tmp_path / f"{name}.toml").write_text(text)
        assert main(["train", str(tmp_path / f"{name}.toml"), "--quiet"]) == 0
        rows = list(csv.reader((tmp_path / name / "log.csv").open()))
        keep = [i for i, c in enumerate(rows[0]) if c not in ("seconds", "sps")]
        return [[r[i] for i in keep] for r in rows[1:]]

    long = run("long", 4, "")
    short = run("short", 2, "anneal_iterations = 4")
    own = run("own", 2, "")
    assert short == long[:2]
    assert own[0] == long[0] and own[1] != long[1]  # the step size differs from the 2nd update on


def test_learned_agent_is_registered():
    assert "learned" in agents.list_agents()
    assert isinstance(agents.REGISTRY["learned"]["qdv"](bluffsim.make("qdv", 2), layers=random_layers(
        280, 27)), LearnedAgent)


FAST_CASES = [("qdv", 2), ("qdv", 4), ("veru", 3), ("legumes", 2)]


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
@pytest.mark.parametrize("game_id, players", FAST_CASES)
def test_pettingzoo_fast_backend_passes_api_and_seed_tests(game_id, players):
    pytest.importorskip("pettingzoo", reason="needs the 'adapters' extra")
    from pettingzoo.test import api_test, seed_test

    from bluffsim.adapters.pettingzoo import env as aec_env

    api_test(aec_env(game_id, players, render_mode="ansi", backend="fast"), num_cycles=100)
    seed_test(lambda: aec_env(game_id, players, backend="fast"), num_cycles=100)


@pytest.mark.parametrize("game_id, players", FAST_CASES)
def test_pettingzoo_fast_backend_plays_the_reference_backend_game(game_id, players):
    pytest.importorskip("pettingzoo", reason="needs the 'adapters' extra")
    from bluffsim.adapters.pettingzoo import env as aec_env

    ref, fast = aec_env(game_id, players), aec_env(game_id, players, backend="fast")
    ref.reset(seed=9)
    fast.reset(seed=9)
    rng = np.random.default_rng(0)
    for agent in ref.agent_iter(max_iter=3000):
        assert fast.agent_selection == agent
        o1, r1, t1, u1, _ = ref.last()
        o2, r2, t2, u2, _ = fast.last()
        assert (r1, t1, u1) == (r2, t2, u2)
        np.testing.assert_array_equal(o1["action_mask"], o2["action_mask"])
        if t1 or u1:
            action = None
        else:
            np.testing.assert_array_equal(o1["observation"], o2["observation"])
            action = int(rng.choice(np.flatnonzero(o1["action_mask"])))
        ref.step(action)
        fast.step(action)
    assert not ref.agents and not fast.agents
    with pytest.raises(ValueError, match="backend"):
        aec_env("qdv", 2, backend="gpu")


def test_shipped_training_configs_load():
    from pathlib import Path

    from bluffsim.learn import load_train_config

    paths = sorted((Path(__file__).resolve().parents[1] / "experiments").glob("train_*.toml"))
    assert paths
    for p in paths:
        cfg = load_train_config(p)
        assert cfg.weights.startswith("agents/weights/") and cfg.iterations > 0


def test_learned_same_actions_alone_or_in_a_batch(tmp_path):
    game = bluffsim.make("qdv", 4)
    d = game.observation_tensor(game.init(np.zeros(1, np.uint64))).shape[1]
    path = tmp_path / "w.npz"
    save_weights(path, random_layers(d, game.num_actions, seed=5), {"game": "qdv", "num_players": 4})
    agent = agents.make("learned", game, weights=str(path))
    greedy = agents.make("learned", game, weights=str(path), greedy=True)
    seeds = np.arange(100, dtype=np.uint64)
    st = game.init(seeds)
    for _ in range(30):  # advance by random play
        m = st.legal_action_mask
        game.step(st, np.where(st.done, -1, np.argmax(m * np.random.default_rng(1).random(m.shape), axis=1)))
    live = np.flatnonzero(~st.done)
    obs = {k: v[live] for k, v in game.observe(st).items()}
    mask = st.legal_action_mask[live]
    rng = AgentRNG(seeds[live], st.current_player[live], st.num_decisions[live])
    batch = agent.act(obs, mask, rng)
    for b in (0, live.size // 2, live.size - 1):
        one = {k: v[b:b + 1] for k, v in obs.items()}
        r1 = AgentRNG(seeds[live][b:b + 1], st.current_player[live][b:b + 1],
                      st.num_decisions[live][b:b + 1])
        assert agent.act(one, mask[b:b + 1], r1)[0] == batch[b]
    g = greedy.act(obs, mask, rng)
    x = game.observation_tensor(st)[live]
    np.testing.assert_array_equal(g, greedy.probs(x, mask).argmax(axis=1))


def test_learned_refuses_weights_trained_for_other_rules(tmp_path):
    game = bluffsim.make("qdv", 2)
    path = tmp_path / "w.npz"
    save_weights(path, random_layers(280, 27), {"game": "qdv", "num_players": 2,
                                                "rules": {"starting_tokens": 1}})
    with pytest.raises(BluffsimError, match="rules options"):
        agents.make("learned", game, weights=str(path))
    assert agents.make("learned", bluffsim.make("qdv", 2, starting_tokens=1), weights=str(path))


def test_bluffsim_train_keeps_a_copy_of_the_weights_file_it_replaces(tmp_path, capsys):
    """Training onto an existing weights file (e.g. a shipped one) keeps the old file as
    ``OUT/replaced_<name>`` and says so in one line; the new weights load."""
    pytest.importorskip("jax", reason="needs the 'learn' extra")
    from bluffsim.cli import main

    (tmp_path / "t.toml").write_text(TINY.format(out=tmp_path / "run"))
    weights = tmp_path / "run" / "w.npz"
    weights.parent.mkdir()
    weights.write_bytes(b"shipped")
    assert main(["train", str(tmp_path / "t.toml"), "--quiet"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert any("replaces" in line and "replaced_w.npz" in line for line in err)
    assert (tmp_path / "run" / "replaced_w.npz").read_bytes() == b"shipped"
    agent = agents.make("learned", bluffsim.make("qdv", 2), weights=str(weights))
    assert agent.meta["iterations"] == 4
    first = weights.read_bytes()
    assert main(["train", str(tmp_path / "t.toml"), "--quiet"]) == 0  # again: a second copy
    assert (tmp_path / "run" / "replaced_w.npz").read_bytes() == b"shipped"
    assert (tmp_path / "run" / "replaced_w_1.npz").read_bytes() == first


def test_anneal_iterations_below_iterations_is_refused_in_one_line(tmp_path, capsys):
    """anneal_iterations < iterations (in the config, or after --iterations) is a config error:
    one line naming both values and what is allowed, exit 2, nothing written."""
    from bluffsim.cli import main

    text = TINY.format(out=tmp_path / "run").replace("anneal = false", "anneal = true\nanneal_iterations = 6")
    (tmp_path / "t.toml").write_text(text)
    assert main(["train", str(tmp_path / "t.toml"), "--iterations", "8", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "anneal_iterations (6)" in err and "iterations (8)" in err
    (tmp_path / "bad.toml").write_text(text.replace("anneal_iterations = 6", "anneal_iterations = 3"))
    assert main(["train", str(tmp_path / "bad.toml"), "--quiet"]) == 2
    assert "anneal_iterations (3)" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("line, key", [
    ("lr = nan", "train.lr"), ("lr = inf", "train.lr"), ("lr = -0.001", "train.lr"),
    ("lr = 0.0", "train.lr"), ("lr = \"fast\"", "train.lr"), ("gamma = 1.5", "train.gamma"),
    ("gae_lambda = nan", "train.gae_lambda"), ("clip = -inf", "train.clip"),
    ("ent_coef = -1.0", "train.ent_coef"), ("max_grad_norm = 0", "train.max_grad_norm"),
    ("envs = 0", "train.envs"), ("rollout = 2.5", "train.rollout"),
    ("hidden = [\"a\"]", "train.hidden"), ("hidden = [0]", "train.hidden"),
    ("hidden = 8", "train.hidden"), ("epochs = true", "train.epochs"),
    ("reward = \"money\"", "train.reward"), ("seat = 5", "train.seat"),
    ("seed = -1", "train.seed"), ("seed = 4294967296", "train.seed"),
    ("checkpoint_every = 0", "train.checkpoint_every"), ("anneal = 1", "train.anneal"),
    ("weights = \"{out}/w\"", "train.weights"), ("minibatches = 64", "train.minibatches"),
    ("shaping = nan", "train.shaping"),
])
def test_every_training_key_is_validated_in_one_line_before_anything_is_written(tmp_path, capsys,
                                                                               line, key):
    """A bad [train] value (NaN, infinite, negative, wrong type, out of range) is refused like a
    bad experiment key: one line naming the key, the value and what is allowed; exit 2; nothing
    written."""
    from bluffsim.cli import main

    name = line.split(" = ")[0]
    text = TINY.format(out=tmp_path / "run")
    lines = [ln for ln in text.splitlines() if not ln.startswith(f"{name} = ")]
    lines.insert(lines.index("[train]") + 1, line.format(out=tmp_path / "run"))
    (tmp_path / "t.toml").write_text("\n".join(lines) + "\n")
    assert main(["train", str(tmp_path / "t.toml"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{key} = " in err and "allowed" in err, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("line, key", [
    ("weights = [1, \"x\"]", "opponents.weights"), ("weights = [1, -1]", "opponents.weights"),
    ("weights = [0, 0]", "opponents.weights"), ("snapshots = nan", "opponents.snapshots"),
    ("max_snapshots = 0", "opponents.max_snapshots"), ("agents = \"random\"", "opponents.agents"),
    ("responses = 0.5", "opponents.responses"), ("responses = -0.1", "opponents.responses"),
    ("max_responses = 0", "opponents.max_responses"),
    ("response_iterations = 0", "opponents.response_iterations"),
])
def test_every_opponents_key_is_validated_in_one_line(tmp_path, capsys, line, key):
    from bluffsim.cli import main

    name = line.split(" = ")[0]
    text = TINY.format(out=tmp_path / "run")
    head, _, opp = text.partition("[opponents]\n")
    opp = "\n".join(ln for ln in opp.splitlines() if not ln.startswith(f"{name} = "))
    (tmp_path / "t.toml").write_text(f"{head}[opponents]\n{line}\n{opp}\n")
    assert main(["train", str(tmp_path / "t.toml"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and key in err and "Traceback" not in err, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("iterations", ["0", "-3"])
def test_train_refuses_no_iterations_instead_of_writing_untrained_weights(tmp_path, capsys,
                                                                         iterations):
    from bluffsim.cli import main

    (tmp_path / "t.toml").write_text(TINY.format(out=tmp_path / "run"))
    assert main(["train", str(tmp_path / "t.toml"), "--quiet", "--iterations", iterations]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"train.iterations = {iterations}" in err, err
    assert not (tmp_path / "run").exists()


def test_a_nan_loss_stops_training_without_writing_nan_weights(tmp_path, capsys, monkeypatch):
    """Training whose loss turns NaN stops at that iteration with one line (exit 2) and writes
    no weights file and no checkpoint of NaN parameters."""
    pytest.importorskip("jax", reason="needs the 'learn' extra")
    from bluffsim.cli import main
    from bluffsim.learn import ppo

    real_gae = ppo.gae
    calls = []

    def poisoned(*args, **kw):
        adv, ret = real_gae(*args, **kw)
        calls.append(1)
        if len(calls) >= 3:              # iterations 1 and 2 are fine (a checkpoint at 2)
            ret = ret * np.nan
        return adv, ret

    monkeypatch.setattr(ppo, "gae", poisoned)
    (tmp_path / "t.toml").write_text(TINY.format(out=tmp_path / "run"))
    assert main(["train", str(tmp_path / "t.toml"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "iteration 3" in err and "nan" in err.lower(), err
    assert not (tmp_path / "run" / "w.npz").exists()
    with np.load(tmp_path / "run" / "checkpoint.npz") as z:   # the last good one stays
        assert int(z["iteration"]) == 2
        assert all(np.isfinite(z[k]).all() for k in z.files if k.startswith("leaf"))


def test_best_responses_to_snapshots_join_the_mixture_and_resume_alike(tmp_path):
    """``[opponents] responses``: at each snapshot a short PPO run trains a response to it (files
    ``responses/br_<iteration>.npz``, loadable as ``learned``), the mixture gives the responses
    their share, and a resumed run finds them and ends with the same weights."""
    pytest.importorskip("jax", reason="needs the 'learn' extra")
    from bluffsim.cli import main
    from bluffsim.learn import MixedOpponent, load_train_config
    from bluffsim.learn.ppo import kept_responses, mixture

    extra = "responses = 0.25\nmax_responses = 1\nresponse_iterations = 1\n"
    for name in ("full", "part"):
        (tmp_path / f"{name}.toml").write_text(TINY.format(out=tmp_path / name) + extra)
    assert main(["train", str(tmp_path / "full.toml"), "--quiet"]) == 0
    written = sorted(p.name for p in (tmp_path / "full" / "responses").glob("br_*.npz"))
    assert written == ["br_000002.npz", "br_000004.npz"]
    game = bluffsim.make("qdv", 2)
    br = agents.make("learned", game, weights=str(tmp_path / "full" / "responses" / written[0]))
    assert "best response to the snapshot after iteration 2" in br.meta["command"]
    assert kept_responses(tmp_path / "full", 3, 1) == [tmp_path / "full" / "responses" / written[0]]
    cfg = load_train_config(tmp_path / "full.toml")
    members, weights = mixture(cfg, ["random", "heuristic"], ["snap"], ["br"])
    assert members == ["random", "heuristic", "snap", "br"]
    np.testing.assert_allclose(weights, [0.125, 0.125, 0.5, 0.25])
    assert isinstance(MixedOpponent(members, weights), MixedOpponent)
    assert main(["train", str(tmp_path / "part.toml"), "--quiet", "--iterations", "2"]) == 0
    assert main(["train", str(tmp_path / "part.toml"), "--quiet", "--resume"]) == 0
    a = agents.make("learned", game, weights=str(tmp_path / "full" / "w.npz"))
    b = agents.make("learned", game, weights=str(tmp_path / "part" / "w.npz"))
    for (w1, b1), (w2, b2) in zip(a.layers, b.layers, strict=True):
        np.testing.assert_allclose(w1, w2, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b1, b2, rtol=1e-5, atol=1e-6)


def test_a_training_config_without_a_game_is_a_one_line_error(tmp_path, capsys):
    from bluffsim.cli import main

    text = "\n".join(ln for ln in TINY.format(out=tmp_path / "run").splitlines()
                     if not ln.startswith("game = "))
    (tmp_path / "t.toml").write_text(text + "\n")
    assert main(["train", str(tmp_path / "t.toml"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "[train] has no game" in err and "qdv" in err, err
    assert not (tmp_path / "run").exists()
