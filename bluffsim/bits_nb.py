"""Bit tricks for the compiled kernels: popcount and the n-th set bit of a 64-bit word.

``popcount`` and ``trailing_zeros`` are LLVM's ``ctpop`` / ``cttz`` (one instruction each on
x86-64 with POPCNT / BMI); the fused random loops use them to count and pick legal actions
from a bitmask of the card types held, without a branch per type.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


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


_ctpop = _unary_intrinsic("ctpop")
_cttz = _unary_intrinsic("cttz")


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
