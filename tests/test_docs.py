"""The code in the README and docs runs, and the README opens with the two commands."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [(path.name, i, code) for path in DOCS
          for i, code in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))]


@pytest.mark.parametrize("name, index, code", BLOCKS, ids=[f"{n}-{i}" for n, i, _ in BLOCKS])
def test_every_python_example_in_the_docs_runs(name, index, code):
    exec(compile(code, f"{name} example {index}", "exec"), {})


def test_the_readme_opens_with_the_main_job_and_the_test_commands_and_ci_runs_the_latter():
    blocks = re.findall(r"```\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)
    main, tests = blocks[0], blocks[1]
    assert "skipbo evaluate checkpoints/" in main and "pytest" in tests
    checkpoint = re.search(r"skipbo evaluate (\S+)", main).group(1)
    assert (ROOT / checkpoint).is_file()
    assert tests in (ROOT / ".ci" / "run").read_text()


TESTS = ROOT / "tests"


def _defined_test_names() -> set[str]:
    """Every test function and test module name under tests/."""
    names = {path.stem for path in TESTS.glob("test_*.py")}
    for path in TESTS.glob("test_*.py"):
        names.update(re.findall(r"^def (test_\w+)", path.read_text(), re.M))
    return names


def test_every_test_name_cited_in_the_docs_exists():
    defined = _defined_test_names()
    cited = {(path.name, name) for path in DOCS
             for name in re.findall(r"\b(test_[a-z0-9_]+)", path.read_text())}
    assert len(cited) > 100
    # A name cut short ("test_each_preset_...") cites the tests it begins.
    missing = sorted(f"{doc}: {name}" for doc, name in cited if name not in defined and not (
        name.endswith("_") and any(d.startswith(name) for d in defined)))
    assert not missing, missing
