"""benchmarks/bench_lens.py renders its table and replaces only the Lens section of
docs/performance.md (the kernel itself is not timed here: speed is never asserted)."""
from __future__ import annotations

from benchmarks import bench_lens


def test_render_states_the_ratios_and_the_aims():
    rows = [("novice_party_vs_brute", 40_000.0, 140_000.0), ("caster_duel", 70_000.0, 350_000.0)]
    text = bench_lens.render(rows, 5_000.0, 55.0, 200.0)
    assert text.startswith(bench_lens.TITLE)
    assert "| novice_party_vs_brute | 40,000 | 140,000 | 3.5x |" in text
    assert "the kernel is 28x it (aim 50x); the smallest kernel / NumPy ratio is 3.5x (aim 5x)" in text
    assert "draws 55 Philox evaluations" in text and "took 200 CPU-seconds" in text


def test_write_section_replaces_the_lens_section_only(tmp_path):
    doc = tmp_path / "performance.md"
    doc.write_text("# Speed\n\n## Gods\n\nkeep\n\n" + bench_lens.TITLE
                   + "\n\nold figures\n\n## Lifeforce\n\nkeep too\n")
    bench_lens.write_section(bench_lens.TITLE + "\n\nnew figures\n\n", doc)
    text = doc.read_text()
    assert "old figures" not in text and "new figures" in text
    assert text.index("## Gods") < text.index("new figures") < text.index("## Lifeforce")
    assert "keep\n" in text and "keep too" in text
