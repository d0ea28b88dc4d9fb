"""Bit tricks for the compiled kernels: popcount, the n-th set bit of a 64-bit word, a
bitmask of the non-zero entries of a small byte-count array, and seat wrapping without a
division.

``popcount`` and ``trailing_zeros`` are LLVM's ``ctpop`` / ``cttz`` (one instruction each on
x86-64 with POPCNT / BMI); the fused random loops use them to count and pick legal actions
from a bitmask of the card types held (``nonzero_bits``), without a branch per type.

Each LLVM intrinsic has a plain-Python twin (``python_twin``), which is what runs when numba's
JIT is disabled (``NUMBA_DISABLE_JIT=1``, to step through a kernel in a debugger): numba's
intrinsics cannot run as Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

WORD = (1 << 64) - 1     # a 64-bit word's bits, for the Python twins


def python_twin(compiled: Any) -> Callable[[Callable], Callable]:
    """Decorator: the plain-Python function it decorates stands for the numba intrinsic
    ``compiled`` (same arguments, same result): compiled code calls the intrinsic, Python code
    (the JIT disabled) runs the function itself."""

    def register(py_fn: Callable) -> Callable:
        if py_fn.__code__.co_argcount == 1:
            overload(py_fn)(lambda a: lambda a: compiled(a))
        else:
            overload(py_fn)(lambda a, b: lambda a, b: compiled(a, b))
        return py_fn

    return register


def _unary_intrinsic(name: str):  # noqa: ANN202
    """A numba intrinsic ``f(x: int64) -> int64`` calling ``llvm.<name>.i64``."""

    @intrinsic
    def _f(typingctx, x):  # noqa: ANN001, ANN202
        if not isinstance(x, types.Integer):
            return None
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202
            val = context.cast(builder, args[0], x, types.int64)
            i64 = ir.IntType(64)
            if name == "ctpop":
                fnty = ir.FunctionType(i64, [i64])
                fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i64")
                return builder.call(fn, [val])
            fnty = ir.FunctionType(i64, [i64, ir.IntType(1)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.cttz.i64")
            return builder.call(fn, [val, ir.Constant(ir.IntType(1), 0)])

        return sig, codegen

    return _f


@intrinsic
def _load_u64_llvm(typingctx, arr, i):  # noqa: ANN001, ANN202
    """The 8 bytes at ``arr[i:i + 8]`` of a 1-byte array as a little-endian uint64 (an
    unaligned load; no bounds check)."""
    if not (isinstance(arr, types.Array) and arr.dtype.bitwidth == 8
            and isinstance(i, types.Integer)):
        return None
    sig = types.uint64(arr, i)

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        idx = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = builder.bitcast(builder.gep(ary.data, [idx]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)

    return sig, codegen


@intrinsic
def _prefetch_llvm(typingctx, arr, offset):  # noqa: ANN001, ANN202
    """A hint to load the cache line at byte ``offset`` of an array's buffer (no access)."""
    if not (isinstance(arr, types.Array) and isinstance(offset, types.Integer)):
        return None
    sig = types.void(arr, offset)

    def codegen(context, builder, signature, args):  # noqa: ANN001, ANN202
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        off = context.cast(builder, args[1], signature.args[1], types.intp)
        i8p = ir.IntType(8).as_pointer()
        ptr = builder.gep(builder.bitcast(ary.data, i8p), [off])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@python_twin(_unary_intrinsic("ctpop"))
def _ctpop(x: int) -> int:
    """Number of set bits of the 64-bit word ``x``."""
    return np.int64((int(x) & WORD).bit_count())


@python_twin(_unary_intrinsic("cttz"))
def _cttz(x: int) -> int:
    """Index of the lowest set bit of the 64-bit word ``x`` (64 when ``x`` is 0)."""
    w = int(x) & WORD
    return np.int64((w & -w).bit_length() - 1 if w else 64)


@python_twin(_load_u64_llvm)
def _load_u64(arr: np.ndarray, i: int) -> np.uint64:
    """The 8 bytes at ``arr[i:i + 8]`` of a 1-byte array as a little-endian uint64."""
    return np.uint64(int.from_bytes(np.ascontiguousarray(arr[i:i + 8]).tobytes(), "little"))


@python_twin(_prefetch_llvm)
def _prefetch(arr: np.ndarray, offset: int) -> None:
    """A cache hint: nothing to do in Python."""


@njit(cache=True)
def popcount(x: int) -> int:
    """Number of set bits of ``x`` (int64)."""
    return _ctpop(x)


@njit(cache=True)
def trailing_zeros(x: int) -> int:
    """Index of the lowest set bit of ``x`` (64 when ``x`` is 0)."""
    return _cttz(x)


@njit(cache=True)
def nth_set_bit(x: int, n: int) -> int:
    """Index of the ``n``-th lowest set bit of ``x`` (n = 0 is the lowest; 64 when there are
    not ``n + 1`` set bits)."""
    for _ in range(n):
        x &= x - 1
    return _cttz(x)


@njit(cache=True)
def take_bit(x: int, k: int) -> tuple[int, int]:
    """One bitset block of a walk to the ``k``-th item of several blocks: (index of the ``k``-th
    lowest set bit of ``x``, 0) when ``x`` has more than ``k`` set bits, else (-1, ``k`` minus
    the set bits of ``x``: the position within the blocks after it)."""
    n = popcount(x)
    if k < n:
        return nth_set_bit(x, k), 0
    return -1, k - n


_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH = np.uint64(0x8080808080808080)
_GATHER = np.uint64(0x0102040810204080)  # moves bit 8i + 7 >> 7 to bit 56 + i
_S7 = np.uint64(7)
_S56 = np.uint64(56)


@njit(cache=True)
def _nonzero_byte_bits(x: np.uint64) -> int:
    """Bit i set when byte i of ``x`` is non-zero (every byte 0 .. 127)."""
    y = ((x + _LOW7) | x) & _HIGH
    return np.int64(((y >> _S7) * _GATHER) >> _S56)


@njit(cache=True)
def nonzero_bits(counts, n: int) -> int:
    """Bit t set when ``counts[t] > 0``, t < n (n <= 24), for a contiguous 1-byte array of
    counts 0 .. 127.  Reads whole 8-byte words: the bytes up to the next multiple of 8 after
    ``counts[n - 1]`` must be readable (the kernels pass a row of a record field that is
    followed by other fields)."""
    bits = 0
    for w in range(0, n, 8):
        bits |= _nonzero_byte_bits(_load_u64(counts, w)) << w
    return bits & ((1 << n) - 1)


@njit(cache=True)
def prefetch_record(arr, i: int, start: int, stop: int) -> None:
    """Ask for bytes ``start`` .. ``stop`` of record ``i`` of a record array in cache (a hint,
    nothing is read; ignored past the end): the fused loops prefetch the next game's records
    while they play the current one."""
    if i < arr.shape[0]:
        base = i * arr.itemsize
        for off in range(start, stop, 64):
            _prefetch(arr, base + off)


@njit(cache=True)
def wrap_seat(seat: int, p: int) -> int:  # pragma: no cover - compiled
    """``seat % p`` for ``-p <= seat < 2 * p`` (a seat at most one lap outside 0 .. p - 1),
    without a division: the fused loops step seats by small offsets."""
    if seat >= p:
        return seat - p
    if seat < 0:
        return seat + p
    return seat
