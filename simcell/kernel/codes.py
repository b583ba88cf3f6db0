"""Action codes in numba: encode and decode the bit-field layout of simcell/vocabulary.py."""

from __future__ import annotations

import numpy as np
from simcell.kernel.jit import kernel_jit_inline

from simcell.vocabulary import (
    ACT_COMBO,
    ACT_EXHAUST,
    ACT_PASS,
    ACT_PLACE,
    ACT_RETURN,
    MASK_FLASK,
    MASK_KIND,
    MASK_P1,
    MASK_P2,
    MASK_P3,
    MASK_TARGET,
    SHIFT_FLASK,
    SHIFT_KIND,
    SHIFT_P1,
    SHIFT_P2,
    SHIFT_TARGET,
)


@kernel_jit_inline
def code_place(flask, target, p1, p2, p3):
    return (
        (np.int64(ACT_PLACE) << SHIFT_KIND)
        | (np.int64(flask) << SHIFT_FLASK)
        | (np.int64(target) << SHIFT_TARGET)
        | (np.int64(p1) << SHIFT_P1)
        | (np.int64(p2) << SHIFT_P2)
        | np.int64(p3)
    )


@kernel_jit_inline
def code_exhaust(resource):
    return (np.int64(ACT_EXHAUST) << SHIFT_KIND) | (np.int64(resource) << SHIFT_P1)


@kernel_jit_inline
def code_pass():
    return np.int64(ACT_PASS) << SHIFT_KIND


@kernel_jit_inline
def code_return(card):
    return (np.int64(ACT_RETURN) << SHIFT_KIND) | (np.int64(card) << SHIFT_P1)


@kernel_jit_inline
def code_combo(i):
    return (np.int64(ACT_COMBO) << SHIFT_KIND) | (np.int64(i) << SHIFT_P1)


@kernel_jit_inline
def code_kind(code):
    return (code >> SHIFT_KIND) & MASK_KIND


@kernel_jit_inline
def code_flask(code):
    return (code >> SHIFT_FLASK) & MASK_FLASK


@kernel_jit_inline
def code_target(code):
    return (code >> SHIFT_TARGET) & MASK_TARGET


@kernel_jit_inline
def code_p1(code):
    return (code >> SHIFT_P1) & MASK_P1


@kernel_jit_inline
def code_p2(code):
    return (code >> SHIFT_P2) & MASK_P2


@kernel_jit_inline
def code_p3(code):
    return code & MASK_P3
