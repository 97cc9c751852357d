"""A result depends on (scenario, seed, count) only: not on workers, not on tracing."""
from __future__ import annotations

import re

import pandas as pd
import pytest

import sim
from sim.runner import CHUNK_SIZE

YETI = "scenarios/gods_and_monsters/yeti.yaml"
N = 70000  # three chunks, the last one partial


@pytest.fixture(scope="module")
def one_worker():
    return sim.run(YETI, n=N, seed=99, jobs=1)


def test_several_chunks_are_in_play():
    assert N > 2 * CHUNK_SIZE


def test_jobs_1_and_2_give_identical_tables(one_worker):
    two = sim.run(YETI, n=N, seed=99, jobs=2)
    pd.testing.assert_frame_equal(one_worker.skirmishes, two.skirmishes, check_exact=True)
    pd.testing.assert_frame_equal(one_worker.combatants, two.combatants, check_exact=True)
    assert one_worker.meta == two.meta


def test_same_seed_same_result_other_seed_differs(one_worker):
    again = sim.run(YETI, n=N, seed=99)
    pd.testing.assert_frame_equal(one_worker.combatants, again.combatants, check_exact=True)
    other = sim.run(YETI, n=N, seed=100)
    assert not one_worker.combatants["damage_dealt"].equals(other.combatants["damage_dealt"])


def test_chunks_differ_from_each_other(one_worker):
    # Each chunk has its own stream: chunk 1 must not replay chunk 0.
    d = one_worker.combatants["damage_dealt"].to_numpy().reshape(N, -1)
    assert not (d[:1000] == d[CHUNK_SIZE:CHUNK_SIZE + 1000]).all()


@pytest.mark.parametrize("k", [0, 17, CHUNK_SIZE + 5, N - 1])
def test_trace_of_skirmish_k_matches_row_k(one_worker, k):
    text = sim.trace(YETI, seed=99, skirmish=k, n=N)
    m = re.search(r"Result after (\d+) rounds: (.+)\.", text)
    assert m, text[-400:]
    row = one_worker.skirmishes.iloc[k]
    assert int(m.group(1)) == row["rounds"]
    winner = str(row["winner"])
    expected = {"draw": "a draw: every side fell", "unfinished": "unfinished"}.get(winner, f"{winner} wins")
    assert m.group(2) == expected
    assert text.count("--- Round ") == row["rounds"]
    # Each combatant's final state and damage, as the table has them.
    cb = one_worker.combatants
    for _, c in cb[cb["skirmish"] == k].iterrows():
        line = f"  {c['combatant']}: {c['final_state']}, dealt {c['damage_dealt']}, took {c['damage_taken']}"
        assert line in text, line


def test_trace_damage_lines_add_up_to_the_table(one_worker):
    k = 23
    text = sim.trace(YETI, seed=99, skirmish=k, n=N)
    cb = one_worker.combatants
    rows = cb[cb["skirmish"] == k]
    assert rows["damage_taken"].sum() > 0
    for name, recorded in zip(rows["combatant"].astype(str), rows["damage_taken"]):
        taken = sum(int(x) for x in re.findall(rf"^  {re.escape(name)} takes (\d+):", text, flags=re.M))
        assert taken == recorded, name


def test_chunks_travel_narrowed_and_are_widened_back_exactly():
    """Workers send integer columns in the smallest type that holds them; gather restores
    the chunk's own types and values, so tables do not depend on the number of workers."""
    import json

    import numpy as np

    from sim import runner
    from sim.scenario import load_scenario
    scen = load_scenario("scenarios/gods_and_monsters/yeti.yaml")
    task = (json.dumps(scen.data), scen.source, 0, 3000, 11, 50)
    plain, narrowed = runner.play_chunk(*task), runner._play_chunk_narrowed(*task)
    assert narrowed.wide and all(narrowed.per_combatant[k].itemsize < np.dtype(d).itemsize
                                 for k, d in narrowed.wide.items())
    joined = runner.gather([(3000, narrowed), (3000, plain)], 6000)
    for key, values in plain.per_combatant.items():
        assert joined.per_combatant[key].dtype == values.dtype, key
        np.testing.assert_array_equal(joined.per_combatant[key][:3000], values)
        np.testing.assert_array_equal(joined.per_combatant[key][3000:], values)
    # A column too wide for int16 stays as it is.
    big = runner.play_chunk(*task)
    big.per_combatant["damage_dealt"][0, 0] = 40_000
    big = runner.narrow(big)
    assert big.per_combatant["damage_dealt"].dtype == plain.per_combatant["damage_dealt"].dtype
    assert "damage_dealt" not in big.wide and big.per_combatant["damage_dealt"][0, 0] == 40_000
