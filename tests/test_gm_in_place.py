"""A one-process run writes each chunk straight into its rows of the joined table
(runner._played_in_place, play.play_into): the same rows, types and stall count as
playing the chunks apart and joining them (runner.gather)."""
from __future__ import annotations

import numpy as np

import sim
from sim import runner
from sim.rulesets.gods_and_monsters import GodsAndMonsters, play as gm_play

YETI = "scenarios/gods_and_monsters/yeti.yaml"


def test_play_into_fills_the_rows_play_returns():
    scen = sim.load_scenario(YETI)
    setup = scen.ruleset.build(scen)
    out = gm_play.new_outcome(setup, 700)
    assert gm_play.play_into(setup, 5, 1000, 300, 100, out, 0) == 0
    assert gm_play.play_into(setup, 5, 1300, 400, 100, out, 300) == 0
    for part, rows in ((gm_play.play(setup, 5, 1000, 300, 100), slice(0, 300)),
                       (gm_play.play(setup, 5, 1300, 400, 100), slice(300, 700))):
        np.testing.assert_array_equal(out.winner[rows], part.winner)
        np.testing.assert_array_equal(out.rounds[rows], part.rounds)
        for k, v in part.per_combatant.items():
            assert out.per_combatant[k].dtype == v.dtype, k
            np.testing.assert_array_equal(out.per_combatant[k][rows], v, err_msg=k)
    assert 0 < out.per_combatant["hits"].sum()  # real fights were played


def test_a_run_in_place_gives_the_tables_of_the_joined_chunks(monkeypatch):
    monkeypatch.setattr(runner, "CHUNK_SIZE", 700)
    in_place = sim.run(YETI, n=2000, seed=9, jobs=1)
    monkeypatch.delattr(GodsAndMonsters, "play_into")  # the gathering path
    joined = sim.run(YETI, n=2000, seed=9, jobs=1)
    for a, b in ((in_place.skirmishes, joined.skirmishes), (in_place.combatants, joined.combatants)):
        assert list(a.columns) == list(b.columns) and list(a.dtypes) == list(b.dtypes)
        assert a.equals(b)
    assert in_place.meta == joined.meta
