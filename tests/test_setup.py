"""The README's two set-up commands work on a Python that refuses a bare `pip install`
(Debian, Ubuntu, Homebrew), and CI runs exactly the README's test command."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

README = Path("README.md").read_text(encoding="utf-8")


def _setup_commands() -> list[str]:
    section = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines() if line.startswith("    ")]


def test_both_setup_commands_install_into_a_virtual_environment():
    run, test = _setup_commands()[:2]
    for cmd in (run, test):
        assert cmd.startswith("python3 -m venv .venv && .venv/bin/pip install ")
        assert not re.search(r"(^|&& )pip install", cmd), "a bare pip hits externally-managed-environment"
    assert run.endswith(".venv/bin/skirmish run scenarios/gods_and_monsters/yeti.yaml")
    assert Path("scenarios/gods_and_monsters/yeti.yaml").is_file()
    assert "'.[test]'" in test and test.endswith(".venv/bin/python -m pytest")


def test_ci_runs_the_readme_test_command_word_for_word():
    ci = [line for line in Path(".ci/run").read_text().splitlines() if line and not line.startswith("#")]
    assert ci[-1] == _setup_commands()[1]


def test_extras_cover_the_notebooks():
    extras = tomllib.loads(Path("pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {k: {re.split(r"[<>=\[]", d)[0] for d in v} for k, v in extras.items()}
    assert {"jupyterlab", "ipywidgets"} <= names["notebooks"]
    assert {"ipywidgets", "nbclient", "ipykernel"} <= names["test"]
    assert "'.[notebooks]'" in README and "jupyter lab notebooks/" in README
