"""Scratch arrays in the stack frame of the compiled function that uses them (LLVM allocas).

The State's arrays all reach the compiled turn loop as pointers the compiler cannot tell apart,
so a store to one of them makes it load again whatever it had read from the others (the cards'
tables, the seat's stock, the policy's parameters). A store to an alloca cannot change any of
them, so the heuristic evaluator's per-decision card workspace, needs and goal bonuses live
here (policies/heuristic.py)."""

from __future__ import annotations

from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@intrinsic
def stack_array(typingctx, rows, cols, dtype):
    """A C-contiguous (rows, cols) array of `dtype` (rows and cols integer literals) in the
    caller's stack frame, uninitialised. It sits in the compiled function's entry block: one
    allocation per call of that function, wherever the intrinsic stands (in a loop too), freed
    when it returns. It must not outlive the call (nothing returns or stores it)."""
    if not (isinstance(rows, types.IntegerLiteral) and isinstance(cols, types.IntegerLiteral)):
        return None
    r, c = rows.literal_value, cols.literal_value
    aty = types.Array(dtype.dtype, 2, "C")

    def codegen(context, builder, signature, args):
        elt = context.get_value_type(aty.dtype)
        itemsize = context.get_abi_sizeof(elt)
        intp = context.get_value_type(types.intp)
        ary = make_array(aty)(context, builder)
        populate_array(ary, data=cgutils.alloca_once(builder, elt, size=r * c),
                       shape=[intp(r), intp(c)], strides=[intp(c * itemsize), intp(itemsize)],
                       itemsize=intp(itemsize), meminfo=None)
        return ary._getvalue()

    return aty(rows, cols, dtype), codegen
