"""The Lifeforce kernel's tables, scratch and run context packed into one flat array.

A rule step compiled on its own (not inlined) receives its arguments as separate
machine words, seven or nine for each array. The scenario's 20 tables and a skirmish's
15 scratch arrays as two tuples were some 300 words stored and loaded at every call;
packed into five arrays with (G, seed, events, counts) beside them, still some 60 (the
profile put a fifth of a duel in the entry of take_turn, strike and _blow). Packed into
one int64 array, a call passes seven words, and each step unpacks the views it reads
(`unpack`, `context`, inlined: an array header built from an offset and a shape, no
copy and no check) under the names the rule code always used.

Layout: a header of (offset, rows, columns) per part, columns 0 for a vector, then the
parts, each starting on a whole word: integer parts as int64, float parts as the bits of
their float64 values, bool parts as bytes, the seed as the bits of its uint64.
"""
from __future__ import annotations

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


XP = 16  # X[XP] is the packed array itself, for passing on to the next step
N_TABLES, N_SCRATCH = 22, 16
G_PART, SEED_PART, EV_PART, CNT_PART = range(N_TABLES + N_SCRATCH, N_TABLES + N_SCRATCH + 4)
HEADER = 3


def _words(a: np.ndarray) -> np.ndarray:
    """a's values as whole int64 words (bools one a byte, padded to a word)."""
    a = np.ascontiguousarray(a).reshape(-1)
    if a.dtype.kind == "f":
        return a.astype(np.float64).view(np.int64)
    if a.dtype.kind == "b":
        raw = a.astype(np.bool_).view(np.uint8)
        padded = np.zeros(-(-len(raw) // 8) * 8, dtype=np.uint8)
        padded[:len(raw)] = raw
        return padded.view(np.int64)
    if a.dtype == np.uint64:
        return a.view(np.int64)
    return a.astype(np.int64)


def pack(tables, scratch, G, seed, ev, cnt) -> np.ndarray:
    """One int64 array holding the 22 tables, 16 scratch arrays, G, the seed, the event
    buffer and its counts, in that order (part k's header at words 3k .. 3k + 2)."""
    arrays = list(tables) + list(scratch) + [G, np.array([seed], dtype=np.uint64), ev, cnt]
    assert len(tables) == N_TABLES and len(scratch) == N_SCRATCH
    header = np.zeros(HEADER * len(arrays), dtype=np.int64)
    parts, size = [header], len(header)
    for k, a in enumerate(arrays):
        a = np.asarray(a)
        w = _words(a)
        header[HEADER * k:HEADER * k + HEADER] = size, a.shape[0], a.shape[1] if a.ndim == 2 else 0
        parts.append(w)
        size += len(w)
    return np.concatenate(parts)


def part(P: np.ndarray, k: int, like: np.ndarray) -> np.ndarray:
    """Part k of a packed array, as `like`'s dtype and shape (a view; the caller copies)."""
    off = int(P[HEADER * k])
    n_words = len(_words(np.zeros(like.shape, like.dtype)))
    return P[off:off + n_words].view(like.dtype)[:like.size].reshape(like.shape)


_INT, _FLOAT, _BOOL = types.int64, types.float64, types.boolean
# The parts unpack returns, by kind and rank, in the order the kernel has always named
# them: T the scenario (K, W, R, COND, SBW, COSTS, PRIO, the policy program's 7 columns and
# READS, ZONE, ZFIRST, NEED, CELL, then the expected damage of a hit EV with its row per
# attacker and weapon EVR and column per target EVC), X a skirmish's scratch (S, D, Q,
# BOUGHT, RU, FOCUS, CAND, HEALTH, DIST, OBS, STACK, ORDER, PERM, POSN, SV stunt worths,
# NEAR a walk's neighbours), and X[XP] is P itself.
T_PARTS = ((_INT, 2), (_INT, 2), (_INT, 1), (_INT, 2), (_INT, 2), (_INT, 2), (_INT, 2), (_INT, 1), (_INT, 1),
           (_FLOAT, 1), (_INT, 1), (_INT, 1), (_INT, 1), (_INT, 1), (_INT, 2), (_INT, 2), (_INT, 1), (_INT, 1),
           (_FLOAT, 1), (_FLOAT, 2), (_INT, 2), (_INT, 1))
X_PARTS = ((_INT, 2), (_INT, 2), (_INT, 2), (_INT, 1), (_FLOAT, 1), (_INT, 1), (_BOOL, 1), (_FLOAT, 1),
           (_FLOAT, 1), (_FLOAT, 1), (_FLOAT, 1), (_INT, 1), (_INT, 1), (_INT, 1), (_FLOAT, 1), (_INT, 1))
assert len(T_PARTS) == N_TABLES and len(X_PARTS) == N_SCRATCH


def _view_of(context, builder, src, k, dtype, ndim):
    """Part k of the packed array src as a C-contiguous array of dtype and rank ndim: an
    array header over the words at the part's offset (no copy, no check)."""
    def word(j):
        return builder.load(builder.gep(src.data, [context.get_constant(types.intp, j)]))
    off, rows, cols = word(HEADER * k), word(HEADER * k + 1), word(HEADER * k + 2)
    out = make_array(types.Array(dtype, ndim, "C"))(context, builder)
    ll_item = context.get_data_type(dtype)
    itemsize = context.get_constant(types.intp, context.get_abi_sizeof(ll_item))
    dims = [rows, cols] if ndim == 2 else [rows]
    steps = [builder.mul(cols, itemsize), itemsize] if ndim == 2 else [itemsize]
    data = builder.bitcast(builder.gep(src.data, [off]), ll_item.as_pointer())
    populate_array(out, data=data, shape=cgutils.pack_array(builder, dims),
                   strides=cgutils.pack_array(builder, steps), itemsize=itemsize, meminfo=src.meminfo)
    return out._getvalue()


@intrinsic
def _unpack(typingctx, packed):
    """(T, X) in one intrinsic call. Typed once per caller as one call: the same views built
    by inlined helpers were typed again for each of the 39 parts at each of 16 call sites."""
    t_types = [types.Array(dt, nd, "C") for dt, nd in T_PARTS]
    x_types = [types.Array(dt, nd, "C") for dt, nd in X_PARTS] + [packed]
    rettype = types.Tuple((types.Tuple(t_types), types.Tuple(x_types)))

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        t = [_view_of(context, builder, src, k, dt, nd) for k, (dt, nd) in enumerate(T_PARTS)]
        x = [_view_of(context, builder, src, N_TABLES + k, dt, nd) for k, (dt, nd) in enumerate(X_PARTS)]
        x.append(args[0])
        ret_t, ret_x = rettype.types
        return context.make_tuple(builder, rettype, (context.make_tuple(builder, ret_t, t),
                                                     context.make_tuple(builder, ret_x, x)))
    return rettype(packed), codegen


@intrinsic
def _context(typingctx, packed):
    """(G, seed, events, counts) in one intrinsic call."""
    g, ev, cnt = types.Array(_INT, 1, "C"), types.Array(_INT, 2, "C"), types.Array(_INT, 1, "C")
    rettype = types.Tuple((g, types.uint64, ev, cnt))

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        seed_at = builder.load(builder.gep(src.data, [context.get_constant(types.intp, HEADER * SEED_PART)]))
        seed = builder.load(builder.gep(src.data, [seed_at]))
        return context.make_tuple(builder, rettype, (
            _view_of(context, builder, src, G_PART, _INT, 1), seed,
            _view_of(context, builder, src, EV_PART, _INT, 2), _view_of(context, builder, src, CNT_PART, _INT, 1)))
    return rettype(packed), codegen


def _py_part(P, k, dtype, ndim):
    # The same views in plain Python (debugging, the JIT-free trace test).
    o, r, c = int(P[HEADER * k]), int(P[HEADER * k + 1]), int(P[HEADER * k + 2])
    n = r * c if ndim == 2 else r
    flat = P[o:].view(dtype)[:n]
    return flat.reshape((r, c)) if ndim == 2 else flat


_NP = {_INT: np.int64, _FLOAT: np.float64, _BOOL: np.bool_}


def _py_unpack(P):
    T = tuple(_py_part(P, k, _NP[dt], nd) for k, (dt, nd) in enumerate(T_PARTS))
    X = tuple(_py_part(P, N_TABLES + k, _NP[dt], nd) for k, (dt, nd) in enumerate(X_PARTS)) + (P,)
    return T, X


def _py_context(P):
    return (_py_part(P, G_PART, np.int64, 1), _py_part(P, SEED_PART, np.uint64, 1)[0],
            _py_part(P, EV_PART, np.int64, 2), _py_part(P, CNT_PART, np.int64, 1))


if config.DISABLE_JIT:
    unpack, context = _py_unpack, _py_context
else:
    unpack, context = _unpack, _context
