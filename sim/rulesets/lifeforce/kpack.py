"""The Lifeforce kernel's tables and scratch packed into five flat arrays.

A rule step compiled on its own (not inlined) receives its arguments as separate
machine words: the scenario's 20 tables and a skirmish's 15 scratch arrays as two
tuples were some 300 words stored and loaded at every call (about 40 ns; several calls
per action phase, half the time of a duel). Packed, a call passes five arrays, and each
step unpacks the views it reads (`unpack`, inlined: an array header built from an
offset and a shape, no copy and no check) under the names the rule code always used.

Layout of each packed integer array: a header of (offset, rows, columns) per table,
columns 0 for a vector, then the integer tables; float and bool tables live in their
own arrays at the offsets the header names.
"""
from __future__ import annotations

import numpy as np
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

_inline = njit(cache=True, nogil=True, inline="always", _nrt=False)

XP = 15  # X[XP] is the packed tuple itself, for passing on to the next step


def pack(arrays) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(integers with the header, floats, bools) holding `arrays` in order."""
    n = len(arrays)
    header = np.zeros(3 * n, dtype=np.int64)
    parts = {"i": [header], "f": [], "b": []}
    sizes = {"i": 3 * n, "f": 0, "b": 0}
    for k, a in enumerate(arrays):
        a = np.asarray(a)
        kind = "f" if a.dtype.kind == "f" else ("b" if a.dtype.kind == "b" else "i")
        header[3 * k:3 * k + 3] = sizes[kind], a.shape[0], a.shape[1] if a.ndim == 2 else 0
        parts[kind].append(a.reshape(-1))
        sizes[kind] += a.size
    dtypes = {"i": np.int64, "f": np.float64, "b": np.bool_}
    return tuple(np.concatenate([p.astype(dtypes[k]) for p in parts[k]]) if parts[k] else np.zeros(1, dtypes[k])
                 for k in "ifb")


def _view(ndim):
    @intrinsic
    def view(typingctx, arr, offset, rows, cols):
        """arr[offset:] seen as a C-contiguous (rows, cols) matrix, or a vector of `rows`."""
        rettype = types.Array(arr.dtype, ndim, "C")

        def codegen(context, builder, sig, args):
            a, off, r, c = args
            src = make_array(sig.args[0])(context, builder, a)
            out = make_array(rettype)(context, builder)
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(arr.dtype)))
            dims = [r, c] if ndim == 2 else [r]
            steps = [builder.mul(c, itemsize), itemsize] if ndim == 2 else [itemsize]
            populate_array(out, data=builder.gep(src.data, [off]), shape=cgutils.pack_array(builder, dims),
                           strides=cgutils.pack_array(builder, steps), itemsize=itemsize, meminfo=src.meminfo)
            return out._getvalue()
        return rettype(arr, types.intp, types.intp, types.intp), codegen
    return view


if config.DISABLE_JIT:  # the same views in plain Python (debugging, the JIT-free trace test)
    def _view2(A, o, r, c):
        return A[o:o + r * c].reshape((r, c))

    def _view1(A, o, r, c):
        return A[o:o + r]
else:
    _view2, _view1 = _view(2), _view(1)


@_inline
def _m(A, H, k):
    return _view2(A, H[3 * k], H[3 * k + 1], H[3 * k + 2])


@_inline
def _v(A, H, k):
    return _view1(A, H[3 * k], H[3 * k + 1], H[3 * k + 2])


@_inline
def unpack(P):
    """(T, X) as the kernel has always named them: T the scenario (K, W, R, COND, SBW,
    COSTS, PRIO, the policy program's 7 columns and READS, ZONE, ZFIRST, NEED, CELL, EV
    expected damage), X a skirmish's scratch (S, D, Q, BOUGHT, RU, FOCUS, CAND, HEALTH,
    DIST, OBS, STACK, ORDER, PERM, POSN, SV stunt worths, then P itself)."""
    TI, TF, XI, XF, XB = P
    T = (_m(TI, TI, 0), _m(TI, TI, 1), _v(TI, TI, 2), _m(TI, TI, 3), _m(TI, TI, 4), _m(TI, TI, 5),
         _m(TI, TI, 6), _v(TI, TI, 7), _v(TI, TI, 8), _v(TF, TI, 9), _v(TI, TI, 10), _v(TI, TI, 11),
         _v(TI, TI, 12), _v(TI, TI, 13), _m(TI, TI, 14), _m(TI, TI, 15), _v(TI, TI, 16), _v(TI, TI, 17),
         _v(TF, TI, 18), _m(TF, TI, 19))
    X = (_m(XI, XI, 0), _m(XI, XI, 1), _m(XI, XI, 2), _v(XI, XI, 3), _v(XF, XI, 4), _v(XI, XI, 5),
         _v(XB, XI, 6), _v(XF, XI, 7), _v(XF, XI, 8), _v(XF, XI, 9), _v(XF, XI, 10), _v(XI, XI, 11),
         _v(XI, XI, 12), _v(XI, XI, 13), _v(XF, XI, 14), P)
    return T, X
