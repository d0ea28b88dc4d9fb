"""``[opponents] agents`` of a training config: agents with parameters, classes of your own,
trained policies and inline tables train; a bad entry is one line naming it, before anything
is written; the no-shipped-weights error suggests a form ``[opponents]`` accepts."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax", reason="needs the 'learn' extra")

import bluffsim  # noqa: E402
from agents.learned import save_weights, shipped_weights  # noqa: E402
from bluffsim.cli import main  # noqa: E402

TINY = """
[train]
game = "qdv"
players = {players}
seed = 4
envs = 8
rollout = 4
iterations = 2
hidden = [8]
anneal = false
epochs = 1
minibatches = 2
checkpoint_every = 2
snapshot_every = 2
out = "{out}"
weights = "{out}/w.npz"
[opponents]
agents = [{agents}]
"""

DOUBTER = '''
import numpy as np


class Doubter:
    """Plays the legal action with the highest id whenever it may, else the first."""

    name = "doubter"
    traits = {}

    def __init__(self, game, last=True):
        self.last = last

    def act(self, obs, mask, rng):
        if self.last:
            return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)
        return np.argmax(mask, axis=1)
'''


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """A working directory holding ``mine/doubter.py`` (a class of your own), made current."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "__init__.py").write_text("")
    (tmp_path / "mine" / "doubter.py").write_text(DOUBTER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))   # agents.custom puts the cwd on it
    for name in [m for m in sys.modules if m == "mine" or m.startswith("mine.")]:
        monkeypatch.delitem(sys.modules, name)         # this test's mine/, not an earlier one's
    return tmp_path


def config(where: Path, agents: str, name: str = "t", players: int = 2) -> Path:
    path = where / f"{name}.toml"
    path.write_text(TINY.format(out=where / name, agents=agents, players=players))
    return path


def log_rows(out: Path) -> list[list[str]]:
    """log.csv without its time columns."""
    rows = list(csv.reader((out / "log.csv").open()))
    keep = [i for i, c in enumerate(rows[0]) if c not in ("seconds", "sps")]
    return [[r[i] for i in keep] for r in rows[1:]]


def test_parameters_classes_of_your_own_and_weights_files_train(workdir, capsys):
    """Each form of entry trains, and a parameter reaches the agent: ``bluff`` at its default
    trains the very run ``heuristic`` does, another value another one."""
    weights = shipped_weights("qdv", 2)
    agents = ('"heuristic:bluff=0.3", "mine.doubter:Doubter:last=false", "learned:weights='
              f'{weights}", {{ agent = "counting", params = {{ spite = 0.2 }} }}')
    assert main(["train", str(config(workdir, agents)), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "mine.doubter:Doubter:last=false has no compiled policy" in err, err
    from agents.learned import load_weights

    assert load_weights(workdir / "t" / "w.npz")[1]["iterations"] == 2
    runs = {}
    for name, entry in (("plain", '"heuristic"'), ("default", '"heuristic:bluff=0.1"'),
                        ("other", '"heuristic:bluff=1.0"')):
        assert main(["train", str(config(workdir, entry, name)), "--quiet"]) == 0
        runs[name] = log_rows(workdir / name)
    assert runs["plain"] == runs["default"] != runs["other"]


@pytest.mark.parametrize("entry, needle", [
    ('"heuristic:bluf=2"', "'heuristic:bluf=2': agent 'heuristic' (qdv): unknown parameter(s) bluf"),
    ('"heuristic:bluff"', "parameter 'bluff': write NAME=VALUE"),
    ('"nosuch"', "'nosuch': unknown agent 'nosuch'"),
    ('"mine.nope:Doubter"', "cannot import module 'mine.nope'"),
    ('"mine.doubter:Doubter:q=1"', "unexpected keyword argument 'q'"),
    ('{ agent = "heuristic", parms = {} }', "unknown key(s) parms"),
    ('{ agent = "learned", params = { weights = "nope.npz" } }', "'nope.npz' not found"),
])
def test_a_bad_opponent_is_one_line_naming_it_before_anything_is_written(workdir, capsys, entry,
                                                                          needle):
    assert main(["train", str(config(workdir, f'"random", {entry}')), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("bluffsim: error: opponents.agents: "), err
    assert needle in err and "is invalid" not in err, err
    assert not (workdir / "t").exists()


def test_the_no_shipped_weights_error_suggests_forms_that_train(workdir, capsys):
    """``learned`` for a table without shipped weights: the message's two forms, with PATH
    replaced by a weights file for that table, both train."""
    assert main(["train", str(config(workdir, '"learned"', players=3)), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no shipped weights for qdv with 3 players" in err, err
    assert "pass params" not in err    # the experiment-config line [opponents] has no place for
    forms = ['"learned:weights=PATH"', '{ agent = "learned", params = { weights = "PATH" } }']
    assert all(f in err for f in forms), err
    game = bluffsim.make("qdv", 3)
    d = game.observation_tensor(game.init(np.zeros(1, np.uint64))).shape[1]
    rng = np.random.default_rng(0)
    layers = [(rng.normal(0, 0.1, (d, 8)).astype(np.float32), np.zeros(8, np.float32)),
              (rng.normal(0, 0.1, (8, game.num_actions)).astype(np.float32),
               np.zeros(game.num_actions, np.float32))]
    save_weights(workdir / "q3.npz", layers, {"game": "qdv", "num_players": 3})
    for k, form in enumerate(forms):
        entry = form.replace("PATH", str(workdir / "q3.npz"))
        assert main(["train", str(config(workdir, entry, f"form{k}", players=3)), "--quiet"]) == 0
        assert (workdir / f"form{k}" / "w.npz").is_file()
