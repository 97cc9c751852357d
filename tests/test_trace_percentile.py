"""`skirmish trace --percentile`: representative fights, each the batch's own skirmish."""
from __future__ import annotations

import numpy as np
from click.testing import CliRunner

from sim.cli import main
from sim.runner import run
from sim.trace import trace
from sim.trace_pick import fight_score, representative

GOBLINS = "scenarios/gods_and_monsters/goblin_ambush.yaml"


def _invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_each_pick_holds_its_percentile_and_is_the_first_such_fight():
    result = run(GOBLINS, n=1500, seed=5)
    for by in ("outcome", "rounds"):
        score = fight_score(result, "travellers", by)
        for p, k in representative(result, "travellers", by, (5, 50, 95)):
            target = np.percentile(score, p, method="inverted_cdf")
            assert score[k] == target and not (score[:k] == target).any()
            # The percentile's meaning: at least p% of fights score at most this one's.
            assert (score <= score[k]).mean() >= p / 100 > (score < score[k]).mean() - 1e-12
    ranked = [k for _, k in representative(result, "travellers", "outcome", (5, 95))]
    winners = result.skirmishes.set_index("skirmish").loc[ranked, "winner"].tolist()
    assert winners == ["goblins", "travellers"]  # a bad fight for the travellers, then a good one


def test_the_printed_fights_are_the_traces_of_those_skirmishes():
    done = _invoke("trace", GOBLINS, "--percentile", "50", "-n", 1500, "--seed", 5, "--by", "rounds")
    assert done.exit_code == 0, done.output
    head, body = done.output.split("\n", 1)
    k = int(head.split("skirmish ")[1].split(" ")[0])
    assert "50th percentile by fight length" in head
    assert body.rstrip("\n") == trace(GOBLINS, seed=5, skirmish=k, n=1500)


def test_bad_percentiles_and_sides_are_one_paragraph_and_exit_2():
    for args, said in ((("--percentile", "5,x"), "give percentiles from 0 to 100"),
                       (("--percentile", "101"), "give percentiles from 0 to 100"),
                       (("--percentile", "50", "--side", "goblinz"), "no side 'goblinz'"),
                       (("--percentile", "50", "--won-by", "goblins"), "picks its own skirmishes"),
                       (("--side", "goblins",), "rank the fights of --percentile")):
        done = _invoke("trace", GOBLINS, "-n", 200, *args)
        assert done.exit_code == 2 and said in done.output, (args, done.output)
