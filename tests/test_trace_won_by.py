"""`trace --won-by SIDE`: the traced fight is the batch's first skirmish that ended so."""
import re

from click.testing import CliRunner

import sim
from sim.cli import main

YETI = "scenarios/gods_and_monsters/yeti.yaml"


def test_won_by_traces_the_batchs_first_such_skirmish():
    table = sim.run(YETI, n=6000, seed=11).skirmishes
    yeti_won = table.index[table["winner"] == "yeti"]
    assert len(yeti_won) > 1, "the scenario's rare outcome should occur in 6,000 fights"
    res = CliRunner().invoke(main, ["trace", YETI, "--seed", "11", "-n", "6000", "--won-by", "yeti"])
    assert res.exit_code == 0, res.output
    traced = int(re.search(r"skirmish (\d+) of 6000", res.output).group(1))
    assert traced == int(table.loc[yeti_won[0], "skirmish"])
    assert "yeti wins." in res.output
    # From --skirmish on: the next one the yeti won.
    after = int(table.loc[yeti_won[0], "skirmish"]) + 1
    res = CliRunner().invoke(main, ["trace", YETI, "--seed", "11", "-n", "6000", "--won-by", "yeti",
                                    "--skirmish", str(after)])
    assert f"skirmish {int(table.loc[yeti_won[1], 'skirmish'])} of 6000" in res.output


def test_won_by_a_side_that_is_not_there_or_never_wins():
    res = CliRunner().invoke(main, ["trace", YETI, "--won-by", "yetti"])
    assert res.exit_code == 2 and "Did you mean 'yeti'" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(main, ["trace", YETI, "-n", "20", "--won-by", "draw"])
    assert res.exit_code == 2 and "no skirmish from 0 to 19 ended with 'draw'" in res.output
