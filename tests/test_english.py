"""Generated sentences read as English."""
from sim.english import sides_possessive


def test_a_plural_side_takes_an_apostrophe_alone():
    assert sides_possessive("goblins") == "goblins'"
    assert sides_possessive("monsters") == "monsters'"
    assert sides_possessive("party") == "party's"
    assert sides_possessive("yeti") == "yeti's"


def test_a_lens_roll_with_interference_alone_reads_without_a_stray_bracket():
    """'( interfere 6' was printed where only an interferer took part (issue 31)."""
    import sim
    from sim.rulesets.lens.trace_text import _faces
    setup = sim.load_scenario("scenarios/lens/novice_party_vs_brute.yaml")
    setup = setup.ruleset.build(setup)
    packed = 1000000 * 4 + 8  # talent 8, no training dice, talent counts 4
    interfere_only, both = 20000 + 6 * 100, 30000 + 6 * 100 + 3
    assert _faces(setup, 0, 0, packed, interfere_only).endswith("0 (interfere 6: talent counts 4)")
    assert _faces(setup, 0, 0, packed, both).endswith("(assist 3 and interfere 6: talent counts 4)")
