"""The observation is declared once (``games.obsspec``): the compiled ``observe_row``,
``tensor_row`` and their batch loops are generated from each game's ``observe.SPEC``
(``games.obscompile``) into its committed ``kernels_generated.py``, which must equal what the
generator writes; a changed block changes the numpy and the compiled tensor alike; a field
source or a size the records cannot serve is refused when the kernels are generated."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import bluffsim
from bluffsim.cli import main
from bluffsim.games import obscompile
from bluffsim.games.compiled import CompiledGame
from bluffsim.games.obsspec import Copy, Field, ObservationSpec, Seats

COMPILED = [g for g in bluffsim.list_games() if issubclass(bluffsim.spec(g).engine, CompiledGame)]


@pytest.mark.parametrize("game_id", COMPILED)
def test_the_committed_generated_kernels_are_what_the_generator_writes(game_id: str) -> None:
    """Each game's ``kernels_generated.py`` equals what ``bluffsim games --generate``
    writes from its spec, sizes and rule functions today, and the engine runs those kernels."""
    game = bluffsim.make(game_id)
    kn = game.kernels
    path = obscompile.generated_path(kn)
    assert path.read_text(encoding="utf-8") == obscompile.generated_source(kn), (
        f"{path} is out of date: run bluffsim games {game_id} --generate")
    for name in obscompile.GENERATED_NAMES:
        fn = getattr(kn, name)
        assert fn.py_func.__code__.co_filename == str(path), name
        assert fn.py_func.__module__ == kn.__name__ + "_generated"


def test_the_generator_writes_a_stale_file_again_and_leaves_a_current_one(tmp_path: Path,
                                                                          monkeypatch,
                                                                          capsys) -> None:
    kn = bluffsim.make("liarsdice").kernels
    copy = tmp_path / "kernels_generated.py"
    monkeypatch.setattr(obscompile, "generated_path", lambda kernels: copy)
    copy.write_text("stale\n", encoding="utf-8")
    assert main(["games", "liarsdice", "--generate"]) == 0
    assert f"{copy}: written" in capsys.readouterr().out
    assert copy.read_text(encoding="utf-8") == obscompile.generated_source(kn)
    assert obscompile.write_generated(kn) is False


def _changed(spec: ObservationSpec) -> ObservationSpec:
    """``spec`` with two blocks re-declared: the bid quantity floored at 0, dice left + 1."""
    new = {"bid_quantity": Copy("bid_quantity", floor=0), "dice_left": Seats("dice_left", add=1)}
    blocks = tuple(dataclasses.replace(b, encode=new.get(b.name, b.encode)) for b in spec.blocks)
    return dataclasses.replace(spec, blocks=blocks)


def test_a_block_changed_in_the_spec_changes_both_tensors(tmp_path: Path) -> None:
    """Re-declaring two blocks of the test game changes ``to_tensor`` and the generated kernel
    the same way (compiled into a copy of its kernels namespace, written under ``tmp_path``)."""
    game = bluffsim.make("liarsdice", 3)
    kn, spec = game.kernels, game.observation.SPEC
    changed = _changed(spec)
    module = obscompile.import_generated(obscompile.generated_source(kn, changed),
                                         tmp_path / "changed_kernels.py", "changed_kernels")
    tensor_kernel = module.tensor_kernel
    st = game.init(np.arange(64))
    rng = np.random.default_rng(0)
    for _ in range(12):
        obs = game.observe(st)
        got = np.zeros((st.batch_size, game.observation_size), np.float32)
        tensor_kernel(st.data, st.hot, game._rec, game.observation_record(), got)
        np.testing.assert_array_equal(got, changed.to_tensor(game.rules, obs))
        old = spec.to_tensor(game.rules, obs)
        assert (got != old).any() and (got[:, :5] == old[:, :5]).all()
        m = st.legal_action_mask
        game.step(st, np.argmax(m * rng.random(m.shape), axis=1))


def test_sources_and_sizes_the_records_cannot_serve_are_refused(tmp_path: Path) -> None:
    kn, spec = bluffsim.make("liarsdice").kernels, bluffsim.make("liarsdice").observation.SPEC
    ns = {**vars(kn), "__file__": str(tmp_path / "kernels.py")}

    def with_field(i: int, field: Field) -> ObservationSpec:
        return dataclasses.replace(spec, fields=spec.fields[:i] + (field,) + spec.fields[i + 1:])

    i = [f.name for f in spec.fields].index("num_rounds")
    for bad, why in ((Field("num_rounds", "int32", (), "", "hot.rounds"), "no field"),
                     (Field("num_rounds", "int8", (), "", "hot.num_rounds"), "read from"),
                     (Field("num_rounds", "int32", (), ""), "obs_num_rounds")):
        with pytest.raises(ValueError, match=why):
            obscompile.source(with_field(i, bad), ns, kn.OBS_SIZES)
    with pytest.raises(ValueError, match="is not 'data.<field>'"):   # refused when declared
        Field("num_rounds", "int32", (), "", "hot num_rounds")
    with pytest.raises(ValueError, match="lacks"):
        obscompile.source(spec, ns, {"P": "r.num_players"})
    game = bluffsim.make("liarsdice", 4)
    with pytest.raises(ValueError, match="OBS_SIZES"):
        obscompile.check_sizes(spec, {"P": "r.num_players - 1", "F": 6}, {"P": 4}, game.rules,
                               game._rec)
    with pytest.raises(ValueError, match="OBS_BOUNDS lack"):
        obscompile.check_sizes(spec, kn.OBS_SIZES, {}, game.rules, game._rec)
    with pytest.raises(ValueError, match="exceed the kernels' OBS_BOUNDS"):
        obscompile.check_sizes(spec, kn.OBS_SIZES, {"P": 3}, game.rules, game._rec)
