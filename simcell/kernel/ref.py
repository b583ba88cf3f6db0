"""`Ref`: the State, the GameTables and the record columns passed between numba functions as one
pointer each instead of by value.

numba passes a NamedTuple by value, flattened into machine words: the State and GameTables are
about 950 of them (five to seven per array). Every function that takes them unpacks them on
entry and every call site packs them again, a few thousand LLVM instructions per function
before any rule is compiled, which numba builds and LLVM then optimises away function by
function: most of a cold compile. An entry point (play/game.py) stores each tuple once in its
stack frame (`as_ref`) and the rules take the address; `ref.field` reads the field from there,
and a field that is itself a NamedTuple (the State's seating, workspace and tallies) is a Ref
too.

The stored tuples never change while the entry point runs (the arrays' contents change, never
which arrays they are), so each field's load is marked `!invariant.load`: the compiler may keep
a field in a register across stores to array contents and calls, as it did with the flattened
words, instead of reading it again after each store (a store through any array could otherwise
be the one that changed it). So a Ref must only be made from a value that stays the same
for the rest of the call that makes it: an entry point's argument, never a tuple built in a
loop."""

from __future__ import annotations

import hashlib

from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate
from numba.extending import (
    infer_getattr,
    intrinsic,
    lower_getattr_generic,
    models,
    register_model,
)


class Ref(types.Type):
    """The address of a NamedTuple value (State, GameTables, PlayerRecords, GameRecords) in an
    entry point's frame."""

    def __init__(self, tuple_type: types.BaseNamedTuple):
        self.tuple_type = tuple_type
        # a short, unique name: numba puts argument type names in each function's symbol
        digest = hashlib.sha1(str(tuple_type).encode()).hexdigest()[:12]
        super().__init__(name=f"Ref[{tuple_type.instance_class.__name__}:{digest}]")

    @property
    def key(self):
        return self.tuple_type


@register_model(Ref)
class RefModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        tuple_value = dmm.lookup(fe_type.tuple_type).get_value_type()
        super().__init__(dmm, fe_type, tuple_value.as_pointer())


@infer_getattr
class RefAttributes(AttributeTemplate):
    key = Ref

    def generic_resolve(self, ref, attr):
        tt = ref.tuple_type
        if attr not in tt.fields:
            return None
        field = tt.types[tt.fields.index(attr)]
        return Ref(field) if isinstance(field, types.BaseNamedTuple) else field


@lower_getattr_generic(Ref)
def ref_getattr(context, builder, typ, value, attr):
    tt = typ.tuple_type
    index = tt.fields.index(attr)
    field = cgutils.gep_inbounds(builder, value, 0, index)
    if isinstance(tt.types[index], types.BaseNamedTuple):
        return field  # a named part (State.seating, ...): its Ref, nothing loaded
    loaded = builder.load(field)
    loaded.set_metadata("invariant.load", builder.module.add_metadata([]))
    return impl_ret_borrowed(context, builder, tt.types[index], loaded)


@intrinsic
def as_ref(typingctx, tup):
    """The Ref of a NamedTuple value, stored in the caller's frame (its entry block: one slot
    per call site, for the whole call). A Ref is returned as it is."""
    if isinstance(tup, Ref):
        return tup(tup), lambda context, builder, signature, args: args[0]
    if not isinstance(tup, types.BaseNamedTuple):
        return None

    def codegen(context, builder, signature, args):
        slot = cgutils.alloca_once(builder, context.get_value_type(tup))
        builder.store(args[0], slot)
        return slot

    return Ref(tup)(tup), codegen

