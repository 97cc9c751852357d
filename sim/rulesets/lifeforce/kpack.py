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
from sim.jit import inline


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


def _view(ndim, dtype):
    @intrinsic
    def view(typingctx, arr, offset, rows, cols):
        """arr[offset:] seen as a C-contiguous (rows, cols) matrix, or a vector of `rows`, of `dtype`."""
        rettype = types.Array(dtype, ndim, "C")

        def codegen(context, builder, sig, args):
            a, off, r, c = args
            src = make_array(sig.args[0])(context, builder, a)
            out = make_array(rettype)(context, builder)
            ll_item = context.get_data_type(dtype)
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(ll_item))
            dims = [r, c] if ndim == 2 else [r]
            steps = [builder.mul(c, itemsize), itemsize] if ndim == 2 else [itemsize]
            data = builder.bitcast(builder.gep(src.data, [off]), ll_item.as_pointer())
            populate_array(out, data=data, shape=cgutils.pack_array(builder, dims),
                           strides=cgutils.pack_array(builder, steps), itemsize=itemsize, meminfo=src.meminfo)
            return out._getvalue()
        return rettype(arr, types.intp, types.intp, types.intp), codegen
    return view


def _py_view(ndim, dtype):
    # The same views in plain Python (debugging, the JIT-free trace test).
    def view(A, o, r, c):
        n = r * c if ndim == 2 else r
        flat = A[o:].view(dtype)[:n]
        return flat.reshape((r, c)) if ndim == 2 else flat
    return view


if config.DISABLE_JIT:
    _i2, _i1, _f2, _f1, _b1, _u1 = (_py_view(2, np.int64), _py_view(1, np.int64), _py_view(2, np.float64),
                                    _py_view(1, np.float64), _py_view(1, np.bool_), _py_view(1, np.uint64))
else:
    _i2, _i1, _f2, _f1, _b1, _u1 = (_view(2, types.int64), _view(1, types.int64), _view(2, types.float64),
                                    _view(1, types.float64), _view(1, types.boolean), _view(1, types.uint64))


@inline
def _m(P, k):
    return _i2(P, P[3 * k], P[3 * k + 1], P[3 * k + 2])


@inline
def _v(P, k):
    return _i1(P, P[3 * k], P[3 * k + 1], P[3 * k + 2])


@inline
def _mf(P, k):
    return _f2(P, P[3 * k], P[3 * k + 1], P[3 * k + 2])


@inline
def _vf(P, k):
    return _f1(P, P[3 * k], P[3 * k + 1], P[3 * k + 2])


@inline
def _vb(P, k):
    return _b1(P, P[3 * k], P[3 * k + 1], P[3 * k + 2])


@inline
def context(P):
    """(G, seed, events, counts): G holds (skirmish, round, phase, tracing)."""
    return _v(P, G_PART), _u1(P, P[3 * SEED_PART], 1, 0)[0], _m(P, EV_PART), _v(P, CNT_PART)


@inline
def unpack(P):
    """(T, X) as the kernel has always named them: T the scenario (K, W, R, COND, SBW,
    COSTS, PRIO, the policy program's 7 columns and READS, ZONE, ZFIRST, NEED, CELL, then
    the expected damage of a hit EV with its row per attacker and weapon EVR and column
    per target EVC), X a skirmish's scratch (S, D, Q, BOUGHT, RU, FOCUS, CAND, HEALTH,
    DIST, OBS, STACK, ORDER, PERM, POSN, SV stunt worths, NEAR a walk's neighbours, then P
    itself)."""
    T = (_m(P, 0), _m(P, 1), _v(P, 2), _m(P, 3), _m(P, 4), _m(P, 5), _m(P, 6), _v(P, 7), _v(P, 8), _vf(P, 9),
         _v(P, 10), _v(P, 11), _v(P, 12), _v(P, 13), _m(P, 14), _m(P, 15), _v(P, 16), _v(P, 17), _vf(P, 18),
         _mf(P, 19), _m(P, 20), _v(P, 21))
    X = (_m(P, 22), _m(P, 23), _m(P, 24), _v(P, 25), _vf(P, 26), _v(P, 27), _vb(P, 28), _vf(P, 29), _vf(P, 30),
         _vf(P, 31), _vf(P, 32), _v(P, 33), _v(P, 34), _v(P, 35), _vf(P, 36), _v(P, 37), P)
    return T, X
