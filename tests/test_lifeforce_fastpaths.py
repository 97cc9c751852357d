"""Lifeforce fast paths give exactly what the plain code gives: walks, condition lookups."""
import numpy as np
import pytest

from sim import battlefield as bf
from sim.rulesets.lifeforce.resolve import walk


def _case(seed, metric, m=400, C=6, size=7):
    rng = np.random.default_rng(seed)
    grid = bf.Grid(size, size, 5.0, "ft", metric)
    # Distinct cells per row, crowded so that blocking and sidesteps happen.
    flat = np.argsort(rng.random((m, size * size)), axis=1)[:, :C]
    pos = np.stack([flat % size, flat // size], axis=2).astype(np.int16)
    who = rng.integers(0, C, m)
    goal = (who + rng.integers(1, C, m)) % C
    goal[rng.random(m) < 0.1] = -1
    allowance = rng.integers(0, 6, m).astype(np.int32)
    blocking = rng.random((m, C)) < 0.8
    stop = rng.integers(1, 3, m)
    return grid, pos, who, goal, allowance, blocking, stop


def _columns(m, C, who, values, fill, dtype):
    out = np.full((m, C) + np.shape(values)[1:], fill, dtype=dtype)
    out[np.arange(m), who] = values
    return out


@pytest.mark.parametrize("metric", bf.METRICS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_walks_match_the_battlefield(metric, seed):
    # Lifeforce moves one creature per row through the battlefield's walks; the wrapper
    # must hand each row's mover, goal, allowance and stop to the right column.
    grid, pos, who, goal, allowance, blocking, stop = _case(seed, metric)
    m, C = who.shape[0], pos.shape[1]
    movers = _columns(m, C, who, True, False, bool)
    target = _columns(m, C, who, goal, -1, np.int64)
    allow = _columns(m, C, who, allowance, 0, np.int32)
    within = _columns(m, C, who, stop, 0, np.int32)
    k = np.arange(m)

    ref, _ = bf.step_toward(pos, grid, movers, target, allow, blocking, within, metric)
    got = walk(bf.step_toward, pos, who, goal[:, None], allowance, blocking, grid, stop)
    assert (got == ref[k, who]).all()
    assert (got != pos[k, who]).any(axis=1).sum() > m // 4  # the case does move people

    ref, _ = bf.step_away(pos, grid, movers, target, allow, blocking, metric)
    got = walk(bf.step_away, pos, who, goal[:, None], allowance, blocking, grid)
    assert (got == ref[k, who]).all()

    direction = np.random.default_rng(seed).integers(-1, 2, (m, 2)).astype(np.int8)
    ref, _ = bf.move_line(pos, grid, movers, _columns(m, C, who, direction, 0, np.int8), allow, blocking)
    got = walk(bf.move_line, pos, who, direction[:, None, :], allowance, blocking, grid)
    assert (got == ref[k, who]).all()


def test_condition_lookup_matches_summing_the_table():
    from types import SimpleNamespace

    from sim.rulesets.lifeforce import resolve as RS
    from sim.rulesets.lifeforce import tables as T
    rng = np.random.default_rng(5)
    m, C = 3000, 4
    state = SimpleNamespace(
        prone=rng.random((m, C)) < 0.3, hastened=rng.integers(0, 2, (m, C)), slowed=rng.integers(0, 2, (m, C)),
        ds=rng.random((m, C)) < 0.3, track=rng.integers(0, 4, (m, C)), dominant=rng.random((m, C)) < 0.5,
        threatened_by=rng.integers(-1, 2, (m, C)), disarmed=rng.random((m, C)) < 0.3)
    tab = T.condition_table({"prone": {"moves": True, "offence": -3}, "held": {"begins": True},
                             "threatened": {"offence": -2}})
    setup = SimpleNamespace(cond=tab)
    rows, who = np.arange(m), rng.integers(0, C, m)
    got = RS.condition_mods(setup, state, rows, who)
    want = RS._mods(RS.flags(state, rows, who), tab)
    assert got.keys() == want.keys()
    for k in want:
        assert got[k].dtype == want[k].dtype and (got[k] == want[k]).all(), k
    assert len(np.unique(got["offence"])) > 2  # the case mixes conditions


def test_line_steps_matches_walking_the_line():
    from sim.rulesets.lifeforce.policies import line_steps
    rng = np.random.default_rng(9)
    m = 5000
    start = rng.integers(0, 20, (m, 2)).astype(np.int16)
    tpos = rng.integers(0, 20, (m, 2)).astype(np.int16)
    direction = rng.integers(-1, 2, (m, 2)).astype(np.int8)
    direction[: m // 2] = np.sign(tpos[: m // 2] - start[: m // 2])  # as charges aim
    reach = rng.integers(1, 4, m)
    limit = rng.integers(0, 12, m)
    want = np.zeros(m, dtype=np.int32)
    for k in range(1, limit.max() + 1):  # the definition: walk square by square
        cell = start.astype(np.int32) + k * direction
        hit = (np.abs(cell - tpos).max(axis=1) <= reach) & (want == 0) & (k <= limit)
        want[hit] = k
    got = line_steps(start, direction, tpos, reach, limit)
    assert (got == want).all()
    assert (want > 0).mean() > 0.2
    assert (line_steps(start, direction, tpos, 2, 6)
            == line_steps(start, direction, tpos, np.full(m, 2), np.full(m, 6))).all()
