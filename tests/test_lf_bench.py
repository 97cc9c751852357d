"""benchmarks/bench_lifeforce.py replaces its own section of docs/performance.md only."""
from benchmarks import bench_lifeforce as B


def test_the_section_writer_replaces_only_the_lifeforce_section(tmp_path):
    doc = tmp_path / "performance.md"
    lens = "# Performance\n\n## The Lens: compiled kernel\n\nlens\n\n"
    doc.write_text(lens + B.TITLE + "\n\nold\n\n## Later\n\nkept\n")
    B.write_section(B.TITLE + "\n\nnew\n", doc)
    text = doc.read_text()
    assert "new" in text and "old" not in text
    assert text.index("lens") < text.index("new") < text.index("## Later") and text.endswith("kept\n")
    B.write_section(B.TITLE + "\n\nnewer\n", doc)
    assert doc.read_text().count(B.TITLE) == 1 and "newer" in doc.read_text()


def test_a_missing_section_is_appended(tmp_path):
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n")
    B.write_section(B.TITLE + "\n\nfirst\n", doc)
    assert doc.read_text() == "# Performance\n\n" + B.TITLE + "\n\nfirst\n"
