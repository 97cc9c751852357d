"""Analysis pages read alone: each shows the scenario's stat blocks, and the tournament
page says what its policy labels mean."""
from pathlib import Path

from click.testing import CliRunner

from sim.cli import main

YETI = "scenarios/gods_and_monsters/yeti.yaml"


def _page(args, folder: Path) -> str:
    res = CliRunner().invoke(main, [*args, "-n", "200", "--report", str(folder)])
    assert res.exit_code == 0, res.output
    return (folder / "index.html").read_text()


def test_tournament_page_defines_its_labels_and_shows_the_stat_blocks(tmp_path):
    html = _page(["tournament", YETI, "--policies", "party=random,weakest"], tmp_path / "t")
    assert "Policy labels" in html and "What was played" in html
    labels = html[html.index("Policy labels"):]
    assert "weakest" in labels and "Yeti" in html[html.index("What was played"):]


def test_sweep_page_shows_the_stat_blocks_and_so_does_its_saved_table(tmp_path):
    args = ["sweep", YETI, "--vary", "sides.yeti.combatants[0].level=3,5", "--out", str(tmp_path / "s.parquet")]
    assert "What was played" in _page(args, tmp_path / "s")
    res = CliRunner().invoke(main, ["report", str(tmp_path / "s.parquet"), "-o", str(tmp_path / "again")])
    assert res.exit_code == 0, res.output
    assert "What was played" in (tmp_path / "again" / "index.html").read_text()


def test_sensitivity_page_shows_the_stat_blocks(tmp_path):
    assert "What was played" in _page(["sensitivity", YETI], tmp_path / "se")
