"""``bluffsim replay``: every recorded game of every game and lineup kind (computed seats, a text
seat from its transcript, the fourth game) replays exactly; a record that was changed is a
one-line error; a seat's view holds nothing of the other hands before the end; the HTML viewer
is stepped through in headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from bluffsim.cli import main
from bluffsim.replay import ReplayError, open_source, replay_game
from bluffsim.replay.html import viewer_data, write_viewer
from bluffsim.replay.views import ViewBuilder
from tests.browser import browser, response_bodies  # noqa: F401
from tests.console import bluffsim_here
from tests.test_workflow import assert_one_line_error, cli

TEXT_AGENT = '''
def first_listed(prompt: str) -> str:
    """Answer the first legal action the prompt lists."""
    lines = prompt.splitlines()
    start = next(k for k, x in enumerate(lines) if "legal actions" in x)
    return lines[start + 1].removeprefix("- ").split(":")[0]
'''

# (game, players, seats, rules): every game, computed seats with parameters, a text seat
LINEUPS = [
    ("qdv", 3, ["counting", "heuristic", "random"], "starting_tokens = 3"),
    ("legumes", 2, ["heuristic", "text:replay_text_agent:first_listed"], "hand_size = 4"),
    ("veru", 4, ["counting", "heuristic", "random", "text-counting"], ""),
    ("liarsdice", 3, ["random", "text:replay_text_agent:first_listed", "random"], ""),
]
GAMES = 8


def run_lineup(tmp_path: Path, game: str, players: int, seats: list[str], rules: str) -> Path:
    """A ``bluffsim run`` of the lineup; returns its results dir."""
    body = "".join(f'[[seats]]\nagent = "{a}"\n' for a in seats)
    conf = tmp_path / f"{game}.toml"
    conf.write_text(f'[experiment]\nname = "r"\ngame = "{game}"\nplayers = {players}\n'
                    f'games = {GAMES}\nseed = 11\n[rules]\n{rules}\n{body}[run]\nplots = false\n',
                    encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(conf), "--out", str(out), "--quiet"]) == 0
    return out


@pytest.fixture
def text_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "replay_text_agent.py").write_text(TEXT_AGENT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.mark.parametrize(("game", "players", "seats", "rules"), LINEUPS,
                         ids=[x[0] for x in LINEUPS])
def test_every_recorded_game_replays_exactly(tmp_path, text_module, game, players, seats,
                                             rules) -> None:
    out = run_lineup(tmp_path, game, players, seats, rules)
    source = open_source(out)
    rows = pd.read_parquet(out / "games.parquet")
    rounds = pd.read_parquet(out / "rounds.parquet")
    for g in range(GAMES):
        r = replay_game(source, g, note=lambda _: None)
        mine = rows[rows["game"] == g].sort_values("seat")
        assert r.placements == mine["placement"].tolist()
        assert len(r.steps) == int(mine["decisions"].iloc[0])
        assert "rounds.parquet" in r.checked
        assert str(len(rounds[rounds["game"] == g])) in r.checked
        if any(s.startswith("text") for s in seats):
            assert "recorded" in r.kinds and all(
                s.text is not None for s in r.steps if r.kinds[s.seat] == "recorded")


def test_a_changed_record_is_a_one_line_error_naming_the_difference(tmp_path) -> None:
    out = run_lineup(tmp_path, "qdv", 2, ["counting", "random"], "")
    rows = pd.read_parquet(out / "games.parquet")
    first = rows.index[rows["game"] == 2][0]
    rows.loc[first, "placement"] = 3 - rows.loc[first, "placement"]
    rows.to_parquet(out / "games.parquet")
    with pytest.raises(ReplayError, match="game 2 of .* does not replay as recorded: seat 0's "
                                          "placement") as e:
        replay_game(open_source(out), 2, note=lambda _: None)
    assert "\n" not in str(e.value) and "git" in str(e.value)
    replay_game(open_source(out), 1, note=lambda _: None)   # the other games still replay


BAD_FLAGS = [
    (["--game", "99"], "has no game 99; it holds games 0..7"),
    ([], "give --game N"),
    (["--game", "1", "--seat", "5"], "--seat 5: game 1 has seats 0..1"),
    (["--game", "1", "--find", "winner=0"], "--find lists games and --game replays one"),
    (["--find", "colour=red"], "no column 'colour'"),
    (["--game", "1", "--html", "/nonexistent/dir/v.html"], "does not exist"),
]
"""Bad ``bluffsim replay`` flags on a results dir, with words of the one-line error."""


def test_bad_flags_are_one_line_errors_from_a_process(tmp_path, capsys) -> None:
    """One case as a real process (``tests.console``); the others in this process below."""
    argv, words = BAD_FLAGS[0]
    out = run_lineup(tmp_path, "qdv", 2, ["counting", "random"], "")
    capsys.readouterr()
    assert_one_line_error(*cli("replay", str(out), *argv), words)


@pytest.mark.parametrize(("argv", "words"), BAD_FLAGS[1:])
def test_bad_flags_are_one_line_errors(tmp_path, capsys, argv, words) -> None:
    out = run_lineup(tmp_path, "qdv", 2, ["counting", "random"], "")
    assert_one_line_error(*bluffsim_here(["replay", str(out), *argv], capsys), words)


def test_a_dir_without_config_is_a_one_line_error(tmp_path) -> None:
    assert_one_line_error(*cli("replay", str(tmp_path), "--game", "0"), "holds no config.json")


def test_find_lists_matching_games_and_the_command(tmp_path, capsys) -> None:
    out = run_lineup(tmp_path, "qdv", 2, ["counting", "random"], "")
    capsys.readouterr()
    assert main(["replay", str(out), "--find", "decisions=max"]) == 0
    text = capsys.readouterr().out
    rows = pd.read_parquet(out / "games.parquet")
    longest = int(rows.loc[rows["decisions"].idxmax(), "game"])
    assert f"replay one: bluffsim replay {out} --game {longest}" in text


def test_a_seats_frames_hold_no_other_seats_view_of_its_decisions(tmp_path) -> None:
    """Seat 1's frames show its own decisions from inside and none of seat 0's: seat 0's text
    view (its cards) at each of its decisions is nowhere in them."""
    out = run_lineup(tmp_path, "qdv", 2, ["counting", "random"], "")
    r = replay_game(open_source(out), 0, note=lambda _: None)
    frames = ViewBuilder(r, 1).frames()
    body = json.dumps(frames)
    b = ViewBuilder(r, 0)
    other = [b.protocol.view(b.obs(s.before, 0), _mask(r, s)) for s in r.steps if s.seat == 0]
    assert other and not any(v in body for v in other)
    assert all("decided" not in f for f in frames if f["actor"] == 0)
    assert any("decided" in f for f in frames if f["actor"] == 1)


def _mask(r, step):
    import numpy as np

    m = np.zeros(r.single.num_actions, bool)
    m[step.legal] = True
    return m


def test_the_terminal_replay_shows_every_decision_then_the_reveal(tmp_path, capsys) -> None:
    out = run_lineup(tmp_path, "veru", 3, ["counting", "heuristic", "random"], "")
    capsys.readouterr()
    assert main(["replay", str(out), "--game", "0", "--seat", "2"]) == 0
    text = capsys.readouterr().out
    rows = pd.read_parquet(out / "games.parquet")
    decisions = int(rows.loc[rows["game"] == 0, "decisions"].iloc[0])
    assert text.count("[decision ") == decisions
    assert text.index("=== the reveal") > text.rindex("[decision ")


def test_the_html_viewer_steps_through_the_game_from_a_file(tmp_path, browser) -> None:  # noqa: F811
    out = run_lineup(tmp_path, "veru", 3, ["counting", "heuristic", "random"], "")
    r = replay_game(open_source(out), 0, note=lambda _: None)
    page = write_viewer(r, 1, tmp_path / "v.html")
    data, reveal = viewer_data(r, 1)
    frames = data["views"][data["order"][0]]
    browser.get(page.as_uri())
    by_id = browser.find_element
    assert by_id("id", "frame-title").text == "the deal"
    assert not by_id("id", "reveal").is_displayed()
    for k in range(1, len(frames)):
        by_id("id", "next").click()
        assert by_id("id", "frame-title").text == frames[k]["title"]
    assert by_id("id", "reveal").is_displayed()
    assert reveal["lines"][0] in by_id("id", "reveal-body").text
    assert by_id("id", "next").get_attribute("disabled")
    assert not [x for x in browser.get_log("browser") if x["level"] == "SEVERE"]
    assert [u for u, _ in response_bodies(browser) if not u.startswith("file:")] == []
    browser.save_screenshot(str(tmp_path / "replay_viewer.png"))


def test_a_custom_agent_that_no_longer_imports_is_a_one_line_error(tmp_path, monkeypatch) -> None:
    root = Path(__file__).resolve().parents[1]
    module = tmp_path / "gone_agent.py"
    module.write_text((root / "experiments" / "my_agent.py").read_text(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    out = run_lineup(tmp_path, "qdv", 2, ["gone_agent:Skeptic", "random"], "")
    module.unlink()
    code, err = cli("replay", str(out), "--game", "0", cwd=tmp_path)
    assert_one_line_error(code, err, "seat 0", "gone_agent:Skeptic", "cannot be built again")
