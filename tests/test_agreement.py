"""benchmarks/agreement.py and bench_gm.py's page writing: the yardsticks of issue 18 must
themselves flag what they are meant to flag."""
from __future__ import annotations

import json
import math

from benchmarks import agreement, baseline_gm, bench_gm
from benchmarks.gm_figures import SCENARIOS

YETI = next(p for p in SCENARIOS if p.stem == "yeti")


def test_z_is_the_difference_in_standard_errors():
    assert agreement.z_score([1.0, 0.3], [1.5, 0.4]) == 1.0
    assert agreement.z_score([0.0, 0.0], [0.0, 0.0]) == 0.0
    assert agreement.z_score([0.0, 0.0], [0.001, 0.0]) == math.inf  # no spread: must be equal


def test_a_figure_missing_from_either_run_is_flagged():
    rows = {k: z for k, _, _, z in agreement.compare({"a": [1, 0.1], "b": [2, 0.1]}, {"a": [1, 0.1], "c": [3, 0.1]})}
    assert rows == {"a": 0.0, "b": math.inf, "c": math.inf}


def test_agreement_exits_1_only_on_a_changed_figure(tmp_path, capsys):
    base = {"scenarios": {"yeti": baseline_gm.measure(YETI, 500)}}
    path = tmp_path / "base.json"
    path.write_text(json.dumps(base))
    assert agreement.main(["--scenario", "yeti", "--baseline", str(path)]) == 0
    value, se = base["scenarios"]["yeti"]["figures"]["rounds"]
    base["scenarios"]["yeti"]["figures"]["rounds"] = [value + 10 * se, se]
    path.write_text(json.dumps(base))
    assert agreement.main(["--scenario", "yeti", "--baseline", str(path)]) == 1
    assert "rounds" in capsys.readouterr().out.split("FLAG")[0].splitlines()[-1]


def test_the_page_section_is_replaced_and_the_rest_kept(tmp_path):
    page = tmp_path / "performance.md"
    page.write_text("# Performance\n\n## History\n\nold notes\n")
    bench_gm.write_section(bench_gm.TITLE + "\n\nfirst\n", page)
    bench_gm.write_section(bench_gm.TITLE + "\n\nsecond\n", page)
    text = page.read_text()
    assert text.count(bench_gm.TITLE) == 1 and "second" in text and "first" not in text
    assert text.startswith("# Performance\n\n## History\n\nold notes\n")
