"""Rules compiled for linking only: typed and lowered to LLVM IR once, then left for the
kernel that calls them to optimize and turn into machine code.

Numba finishes every compiled function as if Python were to call it: it optimizes the
function's module with everything it calls linked in, then emits machine code for all
of it. A rule deep in a kernel's call graph was so optimized and emitted once for every
level above it, then again inside the kernel: a Lifeforce compile spent 66 CPU-s in
module optimization and 51 in machine code over 121 functions. Compiled here, a rule's
IR goes to its callers as it is (its functions optimized one by one, as Numba does), and
only a kernel entry point, compiled by plain Numba, optimizes the whole and emits code.

A rule compiled here cannot run from Python on its own compile (it has no machine code
and no Python wrapper), so a Python call of one compiles the function again in the
plain way, once, and calls that: tests may call a rule directly.

This leans on Numba's internals (the code library, the lowering pass, the CPU context).
`available()` says whether this Numba has them; without them the rules compile the plain
way, slower to compile and otherwise the same.
"""
from __future__ import annotations

from numba import njit

try:
    from numba import _dynfunc
    from numba.core import codegen as _codegen
    from numba.core import compiler as _compiler
    from numba.core import cpu as _cpu
    from numba.core import typed_passes as _typed_passes
    from numba.core.compiler_machinery import LoweringPass, register_pass
    from numba.core.registry import CPUDispatcher
    _HAVE_INTERNALS = all((
        hasattr(_codegen, "JITCodeLibrary"),
        hasattr(_codegen.JITCodeLibrary, "_optimize_final_module"),
        hasattr(_codegen.JITCodeLibrary, "_finalize_final_module"),
        hasattr(_codegen.JITCodeLibrary, "_finalize_dynamic_globals"),
        hasattr(_cpu.CPUContext, "get_executable"),
        hasattr(_typed_passes, "AnnotateTypes"),
        hasattr(_compiler.DefaultPassBuilder, "define_nopython_pipeline"),
    ))
except ImportError:  # pragma: no cover - a Numba without these modules
    _HAVE_INTERNALS = False


def available() -> bool:
    return _HAVE_INTERNALS


if _HAVE_INTERNALS:
    class LinkOnlyLibrary(_codegen.JITCodeLibrary):
        """A code library whose IR only ever reaches machine code inside a caller's."""

        def _optimize_final_module(self):
            pass  # the kernel that links it in optimizes it there, once

        def _finalize_final_module(self):
            # Never added to the JIT engine: the engine would emit machine code for every
            # module it holds at the next kernel's finalize.
            self._finalize_dynamic_globals()
            self._finalized = True

    @register_pass(mutates_CFG=False, analysis_only=True)
    class _UseLinkOnlyLibrary(LoweringPass):
        _name = "sim_link_only_library"

        def __init__(self):
            LoweringPass.__init__(self)

        def run_pass(self, state):
            state.library = LinkOnlyLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
            return False

    class LinkOnlyCompiler(_compiler.CompilerBase):
        """Numba's nopython pipeline, lowering into a LinkOnlyLibrary."""

        def define_pipelines(self):
            pm = _compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
            pm.add_pass_after(_UseLinkOnlyLibrary, _typed_passes.AnnotateTypes)
            pm.finalize()
            return [pm]

    _plain_get_executable = _cpu.CPUContext.get_executable

    def _get_executable(self, library, fndesc, env):
        if not isinstance(library, LinkOnlyLibrary):
            return _plain_get_executable(self, library, fndesc, env)
        # A callable with no code behind it: callers link the library, not this. Python
        # calls go to LinkOnlyDispatcher.__call__, never here.
        return _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                      "linked only: %r" % (fndesc.qualname,), 0, env, (library,))

    _cpu.CPUContext.get_executable = _get_executable

    class LinkOnlyDispatcher(CPUDispatcher):
        """A dispatcher whose Python calls go to a plain compile of the same function."""

        def __call__(self, *args, **kws):
            plain = self.__dict__.get("_sim_plain")
            if plain is None:
                plain = njit(**self.__dict__["_sim_plain_options"])(self.py_func)
                self.__dict__["_sim_plain"] = plain
            return plain(*args, **kws)


def link_only(**options):
    """A decorator like `njit(**options)` whose functions compile for linking only (or
    plainly, without the Numba internals this needs). `cache` applies to the plain
    compile a Python call makes: nothing of a link-only compile outlives the process
    except inside a cached kernel."""
    if not _HAVE_INTERNALS:
        return njit(**options)
    link_options = {k: v for k, v in options.items() if k != "cache"}

    def decorate(func):
        dispatcher = njit(pipeline_class=LinkOnlyCompiler, no_cpython_wrapper=True,
                          no_cfunc_wrapper=True, **link_options)(func)
        if not isinstance(dispatcher, CPUDispatcher):
            return dispatcher  # NUMBA_DISABLE_JIT: the plain function
        dispatcher.__class__ = LinkOnlyDispatcher
        dispatcher.__dict__["_sim_plain_options"] = options
        return dispatcher
    return decorate
