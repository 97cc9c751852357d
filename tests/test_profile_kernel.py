"""benchmarks/profile_kernel.py names compiled functions from Numba's mangled symbols."""
from __future__ import annotations

from benchmarks.profile_kernel import short_name

TAKE_TURN = ("_ZN3sim8rulesets9lifeforce5kturn9take_turnB4v125B48c8tJTIeFIjxB2IKSgI4CrvSCKg1MMYiAhicRsBpNAA"
             "_3d_3dE5TupleI5ArrayIxLi1E1C7mutable7alignedE")


def test_a_mangled_numba_symbol_reads_as_module_and_function():
    assert short_name(TAKE_TURN) == "lifeforce.kturn.take_turn"
    assert short_name("cfunc." + TAKE_TURN) == "cfunc.lifeforce.kturn.take_turn"
    assert short_name("_ZN7cpython3sim8rulesets4lens6kernel11play_kernelB2v1E") == "cpython.lens.kernel.play_kernel"
    assert short_name("memset") == "memset"  # not a Numba name: as it is
