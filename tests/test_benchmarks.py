"""The benchmark's own arithmetic: the Philox tally behind the cost floor and the agreement z."""
import numpy as np

from benchmarks.bench import agreement
from benchmarks.floor import run_counted

# Three blocks, a die (one evaluation: its word is not rejected for these keys) and five
# actors' blocks side by side: nine evaluations, and the numbers are the compiled ones.
TALLY = """
import numpy as np
words = np.empty((4, 5), dtype=np.int64)
for b in range(3):
    keyed.block(7, 11, 1, 3, 2, b)
roll = keyed.die(6, 7, 11, 1, 3, 2, 0)
keyed.blocks_into(words, np.arange(5), 5, np.uint64(7), 11, 1, 3, 0)
print(roll, int(words[0, 4]))
print(calls[0])
"""


def test_the_philox_tally_counts_every_evaluation_both_entry_points_make():
    from sim import keyed
    numbers, tally = run_counted(TALLY)
    assert int(tally) == 3 + 1 + 5
    roll, word = (int(x) for x in numbers.split())
    assert roll == keyed.die(6, 7, 11, 1, 3, 2, 0)
    assert word == keyed.blocks_words(7, 11, 1, 3, np.arange(5), 0)[0, 4]


def counts(n, wins, down, rounds):
    return {"n": n, "wins": {"a": wins, "b": n - wins}, "mean_rounds": rounds, "rounds_sd": 1.0,
            "states": {"A": {"standing": n - down, "dead": down}}}


def test_agreement_z_is_zero_for_equal_rates_and_large_for_different_ones():
    same = agreement(counts(10_000, 5_000, 3_000, 4.0), counts(20_000, 10_000, 6_000, 4.0))
    assert all(z == 0 for *_, z in same)
    apart = dict((what, z) for what, _, _, z in
                 agreement(counts(10_000, 5_000, 3_000, 4.0), counts(10_000, 4_000, 3_000, 4.1)))
    # 0.5 against 0.4 over 10,000 each: se = sqrt(0.45 * 0.55 * 2e-4) = 0.007036
    assert abs(apart["a wins (rate)"] - 0.1 / np.sqrt(0.45 * 0.55 * 2e-4)) < 1e-9
    assert abs(apart["mean rounds"] - (-0.1 / np.sqrt(2e-4))) < 1e-9


def test_a_sections_write_replaces_the_measured_part_and_keeps_the_hand_written_notes(tmp_path):
    from benchmarks.doc_section import KEEP, replace_section
    page = tmp_path / "performance.md"
    page.write_text(f"# Speed\n\n## A\n\nold figures\n\n{KEEP}\n\nwhy it moved\n\n## B\n\nother\n")
    replace_section("## A\n\nnew figures\n", page)
    assert page.read_text() == f"# Speed\n\n## A\n\nnew figures\n\n{KEEP}\n\nwhy it moved\n\n## B\n\nother\n"
    replace_section("## B\n\nreplaced\n", page)  # no KEEP line: the whole section goes
    assert page.read_text().endswith("## B\n\nreplaced\n")
    replace_section("## C\n\nappended\n", page)
    assert page.read_text().endswith("replaced\n\n## C\n\nappended\n")
