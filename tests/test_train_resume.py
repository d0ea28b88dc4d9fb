"""``bluffsim train --resume`` and Ctrl-C: a checkpoint that cannot be continued (damaged, written
by another network, a best response or the log it needs missing or changed) is a one-line error
before anything is written; an interrupted run says what its checkpoint keeps and how to resume,
and the resumed log holds each iteration once."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("jax", reason="needs the 'learn' extra")

from bluffsim.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

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
"""
RESPONSES = "responses = 0.25\nmax_responses = 1\nresponse_iterations = 1\n"


def written(out: Path) -> dict[str, bytes]:
    """Every file under ``out`` with its bytes."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def half_run(tmp_path: Path, extra: str = "") -> tuple[Path, Path]:
    """(config, out) of a run stopped after its first checkpoint (iteration 2 of 4)."""
    out = tmp_path / "run"
    config = tmp_path / "t.toml"
    config.write_text(TINY.format(out=out) + extra)
    assert main(["train", str(config), "--quiet", "--iterations", "2"]) == 0
    return config, out


def refused(config: Path, capsys, *flags: str) -> str:
    """The one error line of ``bluffsim train CONFIG --resume`` (exit 2)."""
    capsys.readouterr()
    assert main(["train", str(config), "--quiet", "--resume", *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("bluffsim: error:"), err
    assert "Traceback" not in err
    return err


def test_a_missing_or_changed_best_response_stops_the_resume_before_it_writes(tmp_path, capsys):
    """The checkpoint records the best responses of its mixture: resuming without one (or with
    other bytes in it) would train other weights, so it is refused naming the file."""
    config, out = half_run(tmp_path, RESPONSES)
    br = out / "responses" / "br_000002.npz"
    assert br.is_file()
    kept = br.read_bytes()
    br.unlink()
    before = written(out)
    err = refused(config, capsys)
    assert f"{br} is missing" in err and "start over without --resume" in err, err
    assert written(out) == before
    br.write_bytes(kept[:-8] + b"\0" * 8)
    err = refused(config, capsys)
    assert f"{br} changed" in err, err
    br.write_bytes(kept)
    assert main(["train", str(config), "--quiet", "--resume", "--iterations", "3"]) == 0
    assert resumed_iterations(out) == [1, 2, 3]


def test_a_checkpoint_without_the_record_needs_the_responses_its_settings_imply(tmp_path, capsys):
    """A checkpoint written before the record existed: the files its settings imply are needed."""
    import numpy as np

    config, out = half_run(tmp_path, RESPONSES)
    ckpt = out / "checkpoint.npz"
    with np.load(ckpt) as z:
        arrays = {k: z[k] for k in z.files if k != "responses"}
    np.savez(ckpt, **arrays)
    (out / "responses" / "br_000002.npz").unlink()
    assert "br_000002.npz is missing" in refused(config, capsys)


@pytest.mark.parametrize("damage", ["truncated", "empty", "text"])
def test_a_damaged_checkpoint_is_one_line_naming_it_and_the_way_out(tmp_path, capsys, damage):
    config, out = half_run(tmp_path)
    ckpt = out / "checkpoint.npz"
    data = ckpt.read_bytes()
    ckpt.write_bytes({"truncated": data[:len(data) // 2], "empty": b"", "text": b"not a zip\n"}[damage])
    before = written(out)
    err = refused(config, capsys)
    assert f"{ckpt} is damaged or incomplete" in err and "cannot be resumed" in err, err
    assert "start over without --resume" in err and "fresh --out" in err, err
    assert written(out) == before
    assert main(["train", str(config), "--quiet"]) == 0   # starting over works


def test_a_checkpoint_of_another_network_or_without_its_log_is_refused(tmp_path, capsys):
    config, out = half_run(tmp_path)
    other = tmp_path / "other.toml"
    other.write_text(config.read_text().replace("hidden = [8]", "hidden = [16]"))
    before = written(out)
    assert "another network" in refused(other, capsys)
    (out / "log.csv").unlink()
    assert f"{out / 'log.csv'} is missing" in refused(config, capsys)
    assert written(out) == {k: v for k, v in before.items() if k != "log.csv"}


def test_resume_without_a_checkpoint_starts_over_and_says_so(tmp_path, capsys):
    out = tmp_path / "run"
    config = tmp_path / "t.toml"
    config.write_text(TINY.format(out=out).replace("iterations = 4", "iterations = 2"))
    out.mkdir()
    (out / "log.csv").write_text("iteration,decisions\n1,32\n2,64\n")  # a log of another run
    assert main(["train", str(config), "--quiet", "--resume"]) == 0
    assert "no checkpoint" in capsys.readouterr().err
    rows = list(csv.reader((out / "log.csv").open()))
    assert [r[0] for r in rows] == ["iteration", "1", "2"] and len(rows[0]) > 2


def test_interrupted_message_names_the_checkpoint_and_the_resume_command(tmp_path):
    from bluffsim.learn import load_train_config
    from bluffsim.learn.ppo import interrupted_message

    config, out = half_run(tmp_path)
    cfg = load_train_config(config)
    line = interrupted_message(cfg, f"bluffsim train {config} --resume")
    assert "keeps iteration 2 of 4" in line and f"`bluffsim train {config} --resume`" in line
    assert "shard" not in line
    (out / "checkpoint.npz").unlink()
    assert "before its first checkpoint" in interrupted_message(cfg, "x")


def resumed_iterations(out: Path) -> list[int]:
    return [int(r[0]) for r in list(csv.reader((out / "log.csv").open()))[1:]]


@pytest.mark.slow
def test_ctrl_c_prints_one_training_line_and_resume_logs_each_iteration_once(tmp_path):
    """A real SIGINT after the first checkpoint: exit 130 and one line in training's terms (no
    shards, no traceback); ``--resume`` then continues and the log has each iteration once."""
    out = tmp_path / "run"
    config = tmp_path / "t.toml"
    config.write_text(TINY.format(out=out).replace("iterations = 4", "iterations = 100000"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "bluffsim.cli", "train", str(config), "--quiet"],
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                            cwd=tmp_path)
    deadline = time.monotonic() + 120
    while not (out / "checkpoint.npz").is_file() and proc.poll() is None:
        assert time.monotonic() < deadline, "no checkpoint within 120 s"
        time.sleep(0.05)
    time.sleep(0.3)   # mid-way between two checkpoints, most likely
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bluffsim: training interrupted;") and "--resume" in lines[0], err
    assert "shard" not in err and "Traceback" not in err
    from bluffsim.learn.ppo import _checkpoint_iteration

    kept = _checkpoint_iteration(out / "checkpoint.npz")
    assert f"keeps iteration {kept} of 100000" in lines[0]
    assert main(["train", str(config), "--quiet", "--resume", "--iterations", str(kept + 1)]) == 0
    assert resumed_iterations(out) == list(range(1, kept + 2))


def test_train_on_a_directory_says_it_is_a_directory(tmp_path, capsys):
    from bluffsim.cli import main

    assert main(["train", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is a directory; give a training TOML file" in err and len(err.splitlines()) == 1
