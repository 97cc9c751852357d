"""The four ways a compiled rule is compiled, for every kernel (docs/architecture.md,
"Compiled kernels").

- `kernel`: an entry point Python calls (a chunk of skirmishes, a table fill). The only
  kind that is optimized as a whole and turned into machine code, with everything it
  calls inlined or linked into it, and cached on disk.
- `inline`: a small helper, inlined into its caller's Numba IR, so typed again at every
  call site. Cheap for a few lines; inlining whole rules this way made kernels whose
  compile took many minutes and gigabytes (the Lens: 547 CPU-s, 2.6 GB). Kept only for
  what compiles nowhere else: a helper indexing a heterogeneous tuple with a constant.
- `once`: a rule with one call site on the hot path, compiled and typed once like `rule`
  and then inlined by LLVM into its caller (forceinline: the alwaysinline attribute): no
  call passing a dozen array structs of some nine words each, no second typing.
- `rule`: compiled once and called. It says forceinline=False because a callee is
  compiled with its caller's flags: a rule called from a `once` would otherwise be
  inlined into every caller too.

`once` and `rule` are typed on the kinds of their arguments (int64, not the literal 3 a
call site passes): otherwise each constant at each call site is a separate compile of
the callee. Helpers are `once` even when tiny: typed once, where `inline` typed them at
every call site. And `once` and `rule` compile for linking only (sim/link_only.py): their
IR reaches machine code only inside the kernel that calls them, where Numba would
otherwise optimize and emit each one again at every level of the call graph above it.
Together, a Gods & Monsters compile went from 216 to 36 CPU-s (docs/performance.md,
"Compile cost"). A Python call of a `once` or a `rule` (a test's) still works: it
compiles that function the plain way.

All compile without Numba's runtime (`_nrt=False`): an allocation inside a kernel is
then a compile error, and no reference counting slows the array-heavy loops. What is
cached goes to the folder sim/compiled.py chooses.
"""
from __future__ import annotations

from numba import njit

from sim import kernel_cache
from sim.link_only import link_only

# Before the first decorator below is applied: it files every kernel's cache by content.
kernel_cache.install()

inline = njit(cache=True, nogil=True, inline="always", _nrt=False)


def _typed_by_kind(compile_with):
    """`compile_with`, its functions typed on the kinds of their arguments, not on the
    literal values a caller passes: Numba would otherwise compile a callee anew for every
    constant at every call site (keyed.die once per event site and k: 32 copies; _words,
    69), and for the literal first value of a loop-carried variable before it settles.
    LLVM still folds the constants once a `once` is inlined."""
    def decorate(func):
        from numba.core.types import unliteral
        dispatcher = compile_with(func)
        typed_on = getattr(dispatcher, "get_call_template", None)
        if typed_on is None:
            return dispatcher  # NUMBA_DISABLE_JIT: the plain function

        def get_call_template(args, kws):
            return typed_on(tuple(unliteral(a) for a in args), {k: unliteral(v) for k, v in kws.items()})

        dispatcher.get_call_template = get_call_template
        return dispatcher
    return decorate


once = _typed_by_kind(link_only(cache=True, nogil=True, forceinline=True, _nrt=False))
rule = _typed_by_kind(link_only(cache=True, nogil=True, forceinline=False, _nrt=False))
kernel = njit(cache=True, nogil=True, _nrt=False)
