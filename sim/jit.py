"""The three ways a compiled rule is compiled, for every kernel (docs/architecture.md,
"Compiled kernels").

- `inline`: a small helper, inlined into its caller's Numba IR, so typed again at every
  call site. Cheap for a few lines; inlining whole rules this way made kernels whose
  compile took many minutes and gigabytes (the Lens: 547 CPU-s, 2.6 GB).
- `once`: a rule with one call site on the hot path, compiled and typed once like `rule`
  and then inlined by LLVM into its caller (forceinline: the alwaysinline attribute): no
  call passing a dozen array structs of some nine words each, no second typing.
- `rule`: compiled once and called. It says forceinline=False because a callee is
  compiled with its caller's flags: a rule called from a `once` would otherwise be
  inlined into every caller too.

All three cache their machine code (in the folder sim/compiled.py chooses) and compile
without Numba's runtime (`_nrt=False`): an allocation inside a kernel is then a compile
error, and no reference counting slows the array-heavy loops.
"""
from __future__ import annotations

from numba import njit

from sim import kernel_cache

# Before the first decorator below is applied: it files every kernel's cache by content.
kernel_cache.install()

inline = njit(cache=True, nogil=True, inline="always", _nrt=False)
once = njit(cache=True, nogil=True, forceinline=True, _nrt=False)
rule = njit(cache=True, nogil=True, forceinline=False, _nrt=False)
