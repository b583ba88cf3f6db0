"""The softmax choice of `greedy`, `planner` and the rollout's playouts: the best action at
temperature 0, else action i with probability exp(v_i / T) / sum_j exp(v_j / T), drawn from
the seat's policy stream.

The weights come from `softmax_weight`, simcell's own exp, not the C library's: the same
arithmetic on every machine (glibc versions round exp differently in the last bit, which
could change a draw and so a game), and a loop of plain arithmetic the compiler can unroll
and vectorise instead of one library call per legal action (perf put about a tenth of a
planner game's time in libm's exp). A weight is within 3 ulp of exp (tests/test_softmax.py);
weights below exp(-40) count as 0: together they are under 1e-15 of the total, so they could
move the 53-bit draw's choice in only a vanishing share of decisions."""

from __future__ import annotations

import math

import numpy as np

from simcell.kernel.bits import float_from_bits
from simcell.kernel.chance import S11, TWO53, splitmix64
from simcell.vocabulary import LEGAL_SLACK
from simcell.kernel.jit import kernel_jit_inline

SLACK = LEGAL_SLACK  # entries past n the softmax may write (the values vector has them)
assert SLACK % 8 == 0  # whole vectors of float64: 8 a register with AVX-512, 4 with AVX2
CUT = -40.0  # exp(CUT) = 4.2e-18: a weight this far below the best action's 1.0 counts as 0
LOG2E = 1.4426950408889634
# ln 2 in two parts (Cody and Waite): k * LN2_HI is exact for |k| < 2**11
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
EXPONENT_BIAS = np.int64(1023)  # of a float64; 2 ** -j has exponent field 1023 - j (j <= 58 here)
# C[k] = 1 / k! for k = 0 .. 12: the Taylor series of exp on |r| <= ln(2) / 2, whose first
# omitted term is below 2e-16
C = tuple(1.0 / math.factorial(k) for k in range(13))


@kernel_jit_inline
def softmax_weight(x):
    """exp(x) for x <= 0 (0.0 below CUT): x = k ln 2 + r, exp(r) by its Taylor series, times
    2**k built from its bits (no table, so the vectorised loop needs no gather)."""
    xc = x if x > CUT else CUT
    k = np.floor(xc * LOG2E + 0.5)
    r = (xc - k * LN2_HI) - k * LN2_LO
    # sum of r**k / k! for k = 0..12 by Estrin's scheme: pairs, then pairs of pairs, so the
    # longest chain is 4 multiply-adds where Horner's rule had 12 (each weight waited ~70
    # cycles on it); within 3 ulp of exp all the same (tests/test_softmax.py)
    r2 = r * r
    r4 = r2 * r2
    r8 = r4 * r4
    s0 = (C[0] + C[1] * r) + (C[2] + C[3] * r) * r2
    s1 = (C[4] + C[5] * r) + (C[6] + C[7] * r) * r2
    s2 = (C[8] + C[9] * r) + (C[10] + C[11] * r) * r2
    p = (s0 + s1 * r4) + (s2 + C[12] * r4) * r8
    w = p * float_from_bits((EXPONENT_BIAS - np.int64(-k)) << np.int64(52))  # p * 2**k, exact
    return w if x > CUT else 0.0


@kernel_jit_inline
def softmax_pick(values, n, temperature, key):
    """Index of the best value (temperature 0; ties to the lowest index) or a softmax draw.
    values[:n] is overwritten with the weights, and up to SLACK - 1 entries past n (they must
    exist) with scratch."""
    best = 0
    for i in range(1, n):
        if values[i] > values[best]:
            best = i
    return softmax_draw(values, n, best, temperature, key)


@kernel_jit_inline
def best_draw(values, n, best, key):
    """The best of values[:n], drawn uniformly among exactly equal best values: identical cards
    must measure alike, which a tie broken by position would not let them."""
    top = values[best]
    ties = 0
    for i in range(best, n):
        if values[i] == top:
            ties += 1
    if ties == 1:
        return best
    k = np.int64(splitmix64(key) % np.uint64(ties))
    for i in range(best, n):
        if values[i] == top:
            if k == 0:
                return i
            k -= 1
    return best


@kernel_jit_inline
def softmax_draw(values, n, best, temperature, key):
    """softmax_pick with `best`, the index of the best value (the first of equal ones), known:
    the heuristic evaluator finds it as it values the actions."""
    if temperature <= 0.0:
        return best
    top = values[best]
    scale = 1.0 / temperature
    # the weights in whole vectors (SLACK float64: one AVX-512 register, two AVX2): values past n
    # (the values vector has SLACK entries of slack past the bound: config/arrays.py) set to top,
    # so their weights are 1.0, are worked out in the last vector and never read; the loop's
    # scalar remainder, which cost as much as its vectors, never runs
    m = (n + np.int64(SLACK - 1)) & np.int64(-SLACK)
    for i in range(n, m):
        values[i] = top
    for i in range(m):  # no call and no carried value: unrolled and vectorised
        values[i] = softmax_weight((values[i] - top) * scale)
    total = 0.0
    for i in range(n):
        total += values[i]
    u = np.float64(splitmix64(key) >> S11) / TWO53 * total
    acc = 0.0
    for i in range(n):
        acc += values[i]
        if u < acc:
            return i
    return best
