"""The observation's declarations (``obsspec.Field``, ``obsspec.Block``): plain data checked when
made, a malformed one refused in one line saying what is allowed; ``ObservationSpec.arrays``."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from bluffsim.games.obsspec import SEAT, Block, Copy, Field, ObservationSpec, OneHot


@pytest.mark.parametrize(("make", "words"), [
    (lambda: Field("x", "int9", (), "meaning", "data.x"), "'int9' is not a numpy dtype"),
    (lambda: Field("x", "int8", (), "meaning", "my meaning"), "is not 'data.<field>'"),
    (lambda: Field("x", "int8", ("P,",), "meaning", "data.x"), "want a tuple of named sizes"),
    (lambda: Field("x", "int8", "P", "meaning", "data.x"), "want a tuple of named sizes"),
    (lambda: Block("x", (-1,), "meaning", Copy("x")), "tensor block 'x': dims"),
    (lambda: Block("x", (1,), "meaning", "copy"), "is not an Encoding"),
])
def test_a_malformed_declaration_is_refused_saying_what_is_allowed(make, words):
    with pytest.raises(ValueError, match=words):
        make()


def test_declarations_are_the_objects_the_spec_reads():
    spec = ObservationSpec(
        (SEAT, Field("hand", "int8", ("T",), "my cards", "data.hands[seat]"),
         Field("derived", "bool", (), "computed by the kernels")),
        (Block("phase", (3,), "one-hot phase", OneHot("seat")),
         Block("cards", ("T",), "cards plus one", Copy("hand", add=1))),
        lambda rules: {"T": 4, "P": 2})
    assert spec.keys == ("seat", "hand", "derived")
    assert spec.tensor_size(None) == 3 + 4
    x = spec.to_tensor(SimpleNamespace(num_players=2), {"seat": np.array([1], np.int8),
                              "hand": np.array([[0, 1, 2, 3]], np.int8),
                              "derived": np.array([True])})
    assert x.tolist() == [[0, 1, 0, 1, 2, 3, 4]]


def test_arrays_reads_left_out_keys_from_the_state_and_casts_to_the_declared_dtypes():
    spec = ObservationSpec((SEAT, Field("hand", "int8", ("T",), "my cards", "data.hands[seat]"),
                            Field("tally", "int32", ("P",), "per seat", "data.tally")),
                           (), lambda rules: {"P": 2, "T": 3})
    state = SimpleNamespace(tally=[7, 9], hand=[5, 5, 5])
    obs = spec.arrays(state, {"seat": 1, "hand": [1, 2, 3]})
    assert list(obs) == ["seat", "hand", "tally"]
    assert [(v.dtype, v.tolist()) for v in obs.values()] == [
        (np.dtype("int8"), 1), (np.dtype("int8"), [1, 2, 3]), (np.dtype("int32"), [7, 9])]
    with pytest.raises(ValueError, match="'extra'] are not declared"):
        spec.arrays(state, {"seat": 1, "hand": [1, 2, 3], "extra": 0})
    computed = ObservationSpec((SEAT, Field("mine", "int8", (), "computed")), (), lambda r: {})
    with pytest.raises(ValueError, match=r"\['mine \(source -\)'\] must be given"):
        computed.arrays(SimpleNamespace(mine=3), {"seat": 0})
    with pytest.raises(OverflowError):
        spec.arrays(state, {"seat": 300, "hand": [1, 2, 3]})
