import sim


def test_yeti_runs_and_every_skirmish_has_a_result():
    r = sim.run("scenarios/gods_and_monsters/yeti.yaml", n=3000, seed=1)
    assert len(r.skirmishes) == 3000
    assert len(r.combatants) == 3000 * 4
    assert r.skirmishes["rounds"].min() >= 1
    s = r.summary()
    total = sum(v["win_rate"] for v in s["sides"].values()) + s["draw_rate"] + s["unfinished_rate"]
    assert abs(total - 1) < 1e-9
