"""64-bit card-id bit sets (bit i = card id i): counting and walking their set bits without a
loop over every card id, each by one instruction (LLVM's cttz and ctpop), and the bit cast the
softmax's exp builds 2**k with."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from simcell.kernel.jit import kernel_jit_inline


@intrinsic
def _count_trailing_zeros(typingctx, x):
    """LLVM's cttz (one tzcnt instruction): the index of the lowest set bit, 64 for 0."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@intrinsic
def _count_set_bits(typingctx, x):
    """LLVM's ctpop (one popcnt instruction)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def float_from_bits(typingctx, x):
    """The float64 whose IEEE 754 bits are the int64 x (a bit cast, no conversion)."""
    if x != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@kernel_jit_inline
def lowest_bit(mask):
    """Index of the lowest set bit of a non-zero int64 bit set."""
    return _count_trailing_zeros(np.int64(mask))


@kernel_jit_inline
def popcount(mask):
    """Number of set bits of an int64 bit set."""
    return _count_set_bits(np.int64(mask))
