"""The observation's declaration tables (``obsspec.fields`` / ``obsspec.blocks``): every column
and encoding reads into the objects it names, and a malformed row is refused saying what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

from bluffsim.games.obsspec import Copy, Custom, Field, OneHot, Seat, Seats, blocks, fields


def _ones(c):
    return np.ones((len(c.obs["seat"]), 2), np.float32)


def test_field_rows_read_name_dtype_dims_source_and_meaning():
    got = fields("""
phase       int8        hot.phase         0 play, 1 over
hand        int8[T]     data.hands[seat]  my cards
tally       int32[P,4]  data.tally        per seat: four counts,
                                          continued on the next line
derived     bool        -                 computed by the kernels
""")
    assert got == (
        Field("phase", "int8", (), "0 play, 1 over", "hot.phase"),
        Field("hand", "int8", ("T",), "my cards", "data.hands[seat]"),
        Field("tally", "int32", ("P", 4), "per seat: four counts, continued on the next line",
              "data.tally"),
        Field("derived", "bool", (), "computed by the kernels", None),
    )


def test_block_rows_read_every_encoding():
    got = blocks("""
phase      3    onehot                     one-hot phase
hand       T    copy                       my cards
sizes      P    seats hand_sizes add=1     cards per relative seat, plus one
last       P    seat last_round[bidder]    relative seat of the last bidder
count      1    copy last_round[1] floor=0 equals=2  the count
                                                        was two
extra      2    custom extra_block         something game-specific
""", custom={"extra_block": _ones}, columns={"last_round": ("caller", "count", "bidder")})
    assert [(b.name, b.dims, b.meaning) for b in got] == [
        ("phase", (3,), "one-hot phase"), ("hand", ("T",), "my cards"),
        ("sizes", ("P",), "cards per relative seat, plus one"),
        ("last", ("P",), "relative seat of the last bidder"), ("count", (1,), "the count was two"),
        ("extra", (2,), "something game-specific")]
    assert [b.encode for b in got] == [
        OneHot("phase"), Copy("hand"), Seats("hand_sizes", add=1), Seat("last_round", col=2),
        Copy("last_round", col=1, floor=0, equals=2), Custom(_ones, "extra_block")]


@pytest.mark.parametrize(("table", "words"), [
    ("x  1  bits  meaning", ("encoding 'bits'", "copy, onehot, seats, seat, custom")),
    ("x  1  onehot add=1  meaning", ("cannot read encoding", "KIND [FIELD][[COL]]")),
    ("x  1  seats a b  meaning", ("cannot read encoding",)),
    ("x  1  custom nope  meaning", ("names no builder",)),
    ("x  1  copy", ("want name, dims, encoding and meaning",)),
    ("   continued", ("continuation line before any row",)),
    ("x  1  copy  one\n y  1  copy  two", ("indented line", "has columns")),
    ("x  P  seats x[1]  meaning", ("cannot read encoding", "COL not for seats")),
    ("x  1  copy x[kind]  meaning", ("column 'kind' of 'x'", "a number or one of []")),
    ("x  1  copy floor=a  meaning", ("cannot read encoding", "a whole number")),
    ("x  1  copy floor=0 floor=1  meaning", ("cannot read encoding", "each option once")),
    ("x  P,  copy  meaning", ("dimension ''", "named size")),
])
def test_a_malformed_block_row_is_refused_saying_what_is_allowed(table, words):
    with pytest.raises(ValueError) as e:
        blocks(table)
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize(("row", "words"), [
    ("x  int8  data.x", "want name, dtype\\[dims\\], source and meaning"),
    ("x  int9  data.x  meaning", "'int9' is not a numpy dtype"),
    ("x  int8  my meaning  more", "is not 'data.<field>'"),
])
def test_a_malformed_field_row_is_refused(row, words):
    with pytest.raises(ValueError, match=words):
        fields(row)


def test_arrays_reads_left_out_keys_from_the_state_and_casts_to_the_declared_dtypes():
    from types import SimpleNamespace

    from bluffsim.games.obsspec import SEAT, ObservationSpec

    spec = ObservationSpec((SEAT, *fields("""
hand   int8[T]    data.hands[seat]  my cards
tally  int32[P]   data.tally        per seat
""")), (), lambda rules: {"P": 2, "T": 3})
    state = SimpleNamespace(tally=[7, 9], hand=[5, 5, 5])
    obs = spec.arrays(state, {"seat": 1, "hand": [1, 2, 3]})
    assert list(obs) == ["seat", "hand", "tally"]
    assert [(v.dtype, v.tolist()) for v in obs.values()] == [
        (np.dtype("int8"), 1), (np.dtype("int8"), [1, 2, 3]), (np.dtype("int32"), [7, 9])]
    with pytest.raises(ValueError, match="'extra'] are not declared"):
        spec.arrays(state, {"seat": 1, "hand": [1, 2, 3], "extra": 0})
    computed = ObservationSpec((SEAT, *fields("mine  int8  -  computed")), (), lambda r: {})
    with pytest.raises(ValueError, match=r"\['mine \(source -\)'\] must be given"):
        computed.arrays(SimpleNamespace(mine=3), {"seat": 0})
    with pytest.raises(OverflowError):
        spec.arrays(state, {"seat": 300, "hand": [1, 2, 3]})
