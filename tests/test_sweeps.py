"""--set overrides (issue 13 #7) and sweeps (#8, #12): grid and zip, one results dir per point,
sweep tables and plots, resume per point, determinism across workers, report, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bluffsim.cli import main
from bluffsim.tournament import ConfigError
from bluffsim.tournament.overrides import apply_sets
from bluffsim.tournament.sweep import Sweep, load_plan, parse_plan
from tests.console import bluffsim_here

ROOT = Path(__file__).resolve().parents[1]

BASE = """
[experiment]
name = "sw"
game = "veru"
players = 3
games = 24
seed = 4

[rules]
jokers = 2

[[seats]]
agent = "random"
[[seats]]
agent = "heuristic"
params = { bluff = 0.5 }
[[seats]]
agent = "counting"

[run]
batch = 8
shard_games = 12
plots = false
"""

SWEEP = BASE + """
[sweep]
"rules.jokers" = [0, 3]
"""


def cli(args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "bluffsim.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)})


def one_line_error(proc, message):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def one_line_error_here(args: list[str], capsys: pytest.CaptureFixture[str], message: str) -> None:
    """``one_line_error`` for ``bluffsim ARGS`` run in this process (``tests.console``)."""
    code, err = bluffsim_here(args, capsys)
    assert code == 2, err
    assert message in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------ --set
def test_set_overrides_any_key_as_a_toml_value(tmp_path):
    conf = tmp_path / "c.toml"
    conf.write_text(BASE)
    exp = load_plan(conf, ["rules.jokers=0", "seats.1.params.bluff=0.3", "experiment.games=30",
                           "run.permute=true", "seats.2.label=\"cnt\"", "experiment.name=smoke"])
    assert exp.rules["jokers"] == 0 and exp.seats[1].params == {"bluff": 0.3}
    assert exp.games == 30 and exp.permute is True and exp.labels[2] == "cnt"
    assert exp.name == "smoke"                          # not TOML: taken as a plain string
    raw = apply_sets({"a": 1}, ["rules.x=[1, 2]", "rules.y={ k = 1 }"])
    assert raw == {"a": 1, "rules": {"x": [1, 2], "y": {"k": 1}}}


def test_set_on_the_cli_changes_the_run(tmp_path):
    conf = tmp_path / "c.toml"
    conf.write_text(BASE)
    out = tmp_path / "o"
    assert main(["run", str(conf), "--out", str(out), "--quiet", "--set", "rules.jokers=0",
                 "--set", "experiment.games=12", "--set", "seats.1.params.bluff=0.25"]) == 0
    cfg = json.loads((out / "config.json").read_text())["config"]
    assert cfg["rules"] == {"jokers": 0} and cfg["games"] == 12
    assert cfg["seats"][1]["params"] == {"bluff": 0.25}
    assert pd.read_parquet(out / "games.parquet")["game"].nunique() == 12


BAD_SETS = [
    (["rules.jokers"], "--set 'rules.jokers': write KEY=VALUE"),
    (["rules..jokers=1"], "write a dotted key such as rules.jokers"),
    (["rules.jokers=-1"], "jokers"),                                  # validated like the file
    (["seats.5.agent=random"], "--set seats.5.agent: seats has 3 entries (0..2); 5 is not one"),
    (["experiment.games=0"], "experiment.games = 0 is invalid"),
    (["run.speed=2"], "unknown key in [run] 'speed'"),
    (["experiment.games.x=1"], "--set experiment.games.x: experiment.games is a value, not a table"),
]
"""Bad ``--set`` flags, with what the one-line error says."""


def bad_set_args(tmp_path: Path, sets: list[str]) -> list[str]:
    """The ``bluffsim run`` arguments of a config in ``tmp_path`` with ``--set`` for each of
    ``sets`` and ``--out tmp_path/o``."""
    conf = tmp_path / "c.toml"
    conf.write_text(BASE)
    args = ["run", str(conf), "--out", str(tmp_path / "o"), "--quiet"]
    for s in sets:
        args += ["--set", s]
    return args


def test_bad_set_is_a_one_line_error_and_writes_nothing_from_a_process(tmp_path):
    """One case as a real process (``tests.console``); the others in this process below."""
    sets, message = BAD_SETS[0]
    one_line_error(cli(bad_set_args(tmp_path, sets)), message)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("sets, message", BAD_SETS[1:])
def test_bad_set_is_a_one_line_error_and_writes_nothing(tmp_path, capsys, sets, message):
    one_line_error_here(bad_set_args(tmp_path, sets), capsys, message)
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------ sweeps
def test_a_grid_sweep_has_one_validated_point_per_combination():
    raw = __import__("tomllib").loads(BASE)
    raw["sweep"] = {"rules": {"jokers": [0, 1, 2]}, "seats.1.params.bluff": [0.1, 0.9]}
    sw = parse_plan(raw)
    assert isinstance(sw, Sweep) and sw.keys == ("rules.jokers", "seats.1.params.bluff")
    assert len(sw.points) == 6 and sw.points[5].rules["jokers"] == 2
    assert sw.points[5].seats[1].params["bluff"] == 0.9
    assert {p.seed for p in sw.points} == {4}                   # common random numbers
    assert sw.point_dir(3) == Path("results/sw/points/3") and sw.points[3].out_dir == sw.point_dir(3)
    raw["sweep"]["mode"] = "zip"
    raw["sweep"]["seats.1.params.bluff"] = [0.1, 0.5, 0.9]
    sw = parse_plan(raw)
    assert [p.seats[1].params["bluff"] for p in sw.points] == [0.1, 0.5, 0.9]
    assert [p.rules["jokers"] for p in sw.points] == [0, 1, 2]


@pytest.mark.parametrize("sweep, message", [
    ({"rules.jokers": [0, 99]}, "sweep point 1 (rules.jokers = 99): "),
    ({"rules.jokers": []}, "give a non-empty list of values"),
    ({"rules.jokers": 3}, "give a non-empty list of values"),
    ({"run.workers": [1, 2]}, "cannot be swept"),
    ({"colour": [1, 2]}, "give a config key such as rules.jokers"),
    ({"rules.jokers": [0, 1], "seats.1.params.bluff": [0.1], "mode": "zip"}, "lists of one length"),
    ({"rules.jokers": [0, 1], "mode": "diagonal"}, "sweep.mode = 'diagonal' is invalid"),
])
def test_bad_sweeps_are_config_errors(sweep, message):
    raw = __import__("tomllib").loads(BASE)
    raw["sweep"] = sweep
    with pytest.raises(ConfigError) as e:
        parse_plan(raw)
    assert message in str(e.value)


def test_a_bad_sweep_is_a_one_line_cli_error_and_writes_nothing(tmp_path):
    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP.replace("[0, 3]", "[0, 3, 77]"))
    one_line_error(cli(["run", str(conf), "--out", str(tmp_path / "o")]), "sweep point 2")
    assert not (tmp_path / "o").exists()
    one_line_error(cli(["run", str(conf), "--out", str(tmp_path / "o"), "--set",
                        "sweep.mode=spiral"]), "sweep.mode = 'spiral' is invalid")


def run(conf, out, *extra):
    return main(["run", str(conf), "--out", str(out), "--quiet", *extra])


def test_a_sweep_writes_points_tables_and_plots_and_is_deterministic_across_workers(tmp_path):
    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP)
    assert run(conf, tmp_path / "w1", "--workers", "1") == 0
    assert run(conf, tmp_path / "w2", "--workers", "2", "--set", "run.plots=true") == 0
    for i in (0, 1):
        one = pd.read_parquet(tmp_path / "w1" / "points" / str(i) / "games.parquet")
        two = pd.read_parquet(tmp_path / "w2" / "points" / str(i) / "games.parquet")
        pd.testing.assert_frame_equal(one, two)
        cfg = json.loads((tmp_path / "w1" / "points" / str(i) / "config.json").read_text())
        assert cfg["config"]["rules"]["jokers"] == [0, 3][i]
    table = pd.read_parquet(tmp_path / "w2" / "sweep.parquet")
    assert list(table.columns[:3]) == ["point", "rules.jokers", "agent"]
    for col in ("games", "wins", "win_rate", "ci_low", "ci_high", "mean_placement",
                "mean_decisions", "truncated_share"):
        assert col in table.columns
    assert len(table) == 6 and set(table["rules.jokers"]) == {0, 3}
    point1 = pd.read_csv(tmp_path / "w2" / "points" / "1" / "summary.csv", index_col="agent")
    row = table[(table["point"] == 1) & (table["agent"] == "counting")].iloc[0]
    assert row["wins"] == point1.loc["counting", "wins"] and row["games"] == 24
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "w1" / "sweep.csv"),
                                  pd.read_csv(tmp_path / "w2" / "sweep.csv"))
    seats = pd.read_csv(tmp_path / "w2" / "sweep_seats.csv")
    assert len(seats) == 6 and set(seats["seat"]) == {0, 1, 2}
    for name in ("sweep_rules.jokers.png", "sweep_seats_rules.jokers.png"):
        assert (tmp_path / "w2" / "plots" / name).stat().st_size > 5000
    assert not (tmp_path / "w1" / "plots").exists()       # plots = false in the file
    assert (tmp_path / "w2" / "points" / "0" / "plots" / "win_rates.png").is_file()


def test_a_sweep_resumes_per_point(tmp_path):
    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP)
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert run(conf, whole) == 0
    assert run(conf, cut) == 0
    # simulate a kill during point 1: its merged tables, manifest and one shard are gone
    p1 = cut / "points" / "1"
    for f in ("games.parquet", "rounds.parquet", "manifest.json"):
        (p1 / f).unlink()
    for f in (p1 / "shards").glob("games-00001.parquet"):
        f.unlink()
    (cut / "sweep.csv").unlink()
    before = (cut / "points" / "0" / "manifest.json").read_text()
    assert run(conf, cut) == 2                                    # not empty without --resume
    assert run(conf, cut, "--resume") == 0
    assert (cut / "points" / "0" / "manifest.json").read_text() == before  # point 0 not rerun
    for i in (0, 1):
        pd.testing.assert_frame_equal(pd.read_parquet(whole / "points" / str(i) / "games.parquet"),
                                      pd.read_parquet(cut / "points" / str(i) / "games.parquet"))
    pd.testing.assert_frame_equal(pd.read_csv(whole / "sweep.csv"), pd.read_csv(cut / "sweep.csv"))
    # another sweep config cannot resume this dir
    assert run(conf, cut, "--resume", "--set", "sweep.rules.jokers=[0, 4]") == 2


def test_the_sweep_echo_counts_points_from_one_of_n(tmp_path, capsys):
    """Each point's echo line counts 1..n and keeps the 0-based index of points/<i>/ and
    sweep.csv's point column: the last of 3 points is "3 of 3", not "2/2"."""
    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP.replace("[0, 3]", "[0, 1, 3]"))
    assert main(["run", str(conf), "--out", str(tmp_path / "o"), "--no-plots"]) == 0
    echo = [line for line in capsys.readouterr().out.splitlines() if line.startswith("# point ")]
    assert echo == ["# point 0 (1 of 3): rules.jokers = 0", "# point 1 (2 of 3): rules.jokers = 1",
                    "# point 2 (3 of 3): rules.jokers = 3"]


def test_force_replaces_a_sweep_and_keeps_foreign_files(tmp_path):
    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP)
    out = tmp_path / "o"
    assert run(conf, out, "--no-plots") == 0
    (out / "mine.txt").write_text("keep me")
    first = pd.read_csv(out / "sweep.csv")
    assert run(conf, out, "--no-plots", "--force", "--set", "sweep.rules.jokers=[1, 2, 4]") == 0
    table = pd.read_csv(out / "sweep.csv")
    assert sorted(table["rules.jokers"].unique()) == [1, 2, 4] and len(first) == 6
    assert (out / "mine.txt").read_text() == "keep me"
    assert not (out / "points" / "0" / "shards").exists()          # shards removed after merge
    assert run(conf, out, "--no-plots", "--force", "--keep-shards") == 0
    assert (out / "points" / "1" / "shards").is_dir()


def test_report_rebuilds_a_sweep(tmp_path, capsys):
    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP)
    out = tmp_path / "o"
    assert run(conf, out, "--no-plots") == 0
    (out / "sweep.parquet").unlink()
    (out / "points" / "1" / "seats.csv").unlink()
    assert main(["report", str(out)]) == 0
    assert "rules.jokers" in capsys.readouterr().out
    assert len(pd.read_parquet(out / "sweep.parquet")) == 6
    assert (out / "points" / "1" / "seats.csv").is_file()
    assert (out / "plots" / "sweep_rules.jokers.png").is_file()


@pytest.mark.parametrize("damage", ["garbage", "[]"])
def test_report_and_resume_on_a_corrupt_sweep_json_are_one_line_errors(tmp_path, capsys, damage):
    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP)
    out = tmp_path / "o"
    assert run(conf, out, "--no-plots") == 0
    (out / "sweep.json").write_text(damage)
    capsys.readouterr()
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert "sweep.json" in err and len(err.strip().splitlines()) == 1, err
    assert run(conf, out, "--no-plots", "--resume") == 2
    err = capsys.readouterr().err
    assert "--force" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("name, key, values", [
    ("sweep_veru_jokers", "rules.jokers", [0, 1, 2, 3, 4]),
    ("sweep_legumes_hand_size", "rules.hand_size", [4, 6, 8, 10, 12]),
])
def test_the_example_sweeps_run_end_to_end(tmp_path, name, key, values):
    out = tmp_path / name
    proc = cli(["run", f"experiments/{name}.toml", "--games", "24", "--workers", "2", "--out",
                str(out), "--quiet", "--set", "run.shard_games=12"])
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(out / "sweep.csv")
    assert sorted(table[key].unique()) == values and (table["games"] == 24).all()
    assert (out / "plots" / f"sweep_{key}.png").is_file()
    assert (out / "plots" / f"sweep_seats_{key}.png").is_file()


def test_the_sweep_notebook_executes_and_shows_its_figures(tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP)
    assert run(conf, tmp_path / "sw", "--no-plots") == 0
    monkeypatch.setenv("BLUFFSIM_SWEEP", str(tmp_path / "sw"))
    monkeypatch.delenv("MPLBACKEND", raising=False)   # the kernel's own (inline) backend
    nb = nbformat.read(ROOT / "notebooks" / "sweeps.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("2 points over rules.jokers" in "".join(o.get("text", "")) for o in outputs)
    # agents, seats and lengths against the swept key: three figures
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) >= 3
    assert any("text/html" in o.get("data", {}) for o in outputs)      # the tables
    assert "(default\n`results/sweep_veru_jokers`" in "".join(nb.cells[0].source).replace(" `", "\n`")
    assert '"BLUFFSIM_SWEEP", "results/sweep_veru_jokers"' in "".join(nb.cells[1].source)


def test_sweep_output_errors_are_one_line(tmp_path, capsys):
    conf = tmp_path / "s.toml"
    conf.write_text(SWEEP)
    out = tmp_path / "o"
    assert run(conf, out, "--no-plots") == 0
    # the first as a real process (tests.console), the others in this process
    one_line_error(cli(["run", str(conf), "--out", str(out), "--quiet", "--resume", "--set",
                        "sweep.rules.jokers=[1, 2]"]), "was made by a different sweep config")
    one_line_error_here(["run", str(conf), "--out", str(out), "--quiet"], capsys,
                        "is not empty: it holds a previous sweep; pass --resume to finish it, --force")
    one_line_error_here(["run", str(conf), "--out", str(out), "--quiet", "--resume", "--force"],
                        capsys, "--resume and --force exclude each other")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line_error_here(["run", str(conf), "--out", str(blocker), "--quiet"], capsys, "is a file")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    one_line_error_here(["run", str(conf), "--out", str(other), "--quiet"], capsys,
                        "holds no bluffsim sweep (no sweep.json)")
    (out / "points" / "1" / "games.parquet").unlink()
    one_line_error_here(["report", str(out)], capsys,
                        "the sweep is unfinished; rerun it with --resume")


def test_a_sweep_over_a_pool(tmp_path):
    text = BASE.replace("[[seats]]", "[[pool]]") + """
[[pool]]
agent = "random"
label = "random-2"

[sweep]
"run.lineups" = ["combinations", 2]
"""
    text = text.replace("[run]\n", "[run]\nlineups = \"combinations\"\n")
    conf = tmp_path / "sp.toml"
    conf.write_text(text)
    sw = load_plan(conf)
    assert isinstance(sw, Sweep) and [p.lineups for p in sw.points] == ["combinations", 2]
    assert run(conf, tmp_path / "o", "--no-plots") == 0
    table = pd.read_csv(tmp_path / "o" / "sweep.csv")
    assert set(table[table["point"] == 0]["agent"]) == {"random-0", "heuristic", "counting", "random-2"}


def test_the_docs_legumes_hand_size_table_is_what_its_command_gives(tmp_path):
    """The legumes seat table of docs/sweeps.md (its section "Sweeps: legumes seat advantage")
    is what the command written above it gives: every seat's outright win rate and the share
    of games whose first place was shared, to the printed digits (a run does not depend on the
    workers, the batch or the output dir)."""
    import re

    page = (ROOT / "docs" / "sweeps.md").read_text(encoding="utf-8")
    section = page[page.index("## Sweeps: legumes seat advantage"):]
    command = re.search(r"```bash\n(bluffsim run [^\n]+)\n```", section).group(1)
    assert command == "bluffsim run experiments/sweep_legumes_hand_size.toml"
    rows = re.findall(r"^\| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$",
                      section[:section.index("## Sweeps: veru jokers")],
                      re.M)
    assert [int(r[0]) for r in rows] == [4, 6, 8, 10, 12]
    out = tmp_path / "sweep"
    proc = cli([*command.split()[1:], "--out", str(out), "--quiet", "--no-plots"])
    assert proc.returncode == 0, proc.stderr
    seats = pd.read_csv(out / "sweep_seats.csv")
    for i, (size, *printed) in enumerate(rows):
        mine = seats[seats["rules.hand_size"] == int(size)].sort_values("seat")
        assert [f"{r:.3f}" for r in mine["win_rate"]] == printed[:4], size
        games = pd.read_parquet(out / "points" / str(i) / "games.parquet")
        firsts = (games["placement"] == 1).groupby(games["game"]).sum()
        assert f"{(firsts > 1).mean():.3f}" == printed[4], size
