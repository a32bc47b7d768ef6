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


def test_the_readme_commands_install_the_same_gymnasium_and_pillow():
    """The main job installs the package and the train extra, the tests every extra: the
    versions they share are pinned in the package's own requirements to what the extras
    ask, so the test command does not move them."""
    import importlib.metadata as meta

    import tomllib
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {Requirement(r).name.lower(): Requirement(r) for r in project["dependencies"]}
    for package, extra_of in (("gymnasium", "ray"), ("pillow", "moviepy")):
        asked = [Requirement(r) for r in meta.requires(extra_of) or []
                 if Requirement(r).name.lower() == package]
        if extra_of == "ray":
            asked = [r for r in asked if r.marker and r.marker.evaluate({"extra": "rllib"})]
        assert asked, f"{extra_of} no longer asks for {package}: revisit the pin"
        installed = meta.version(package)
        assert base[package].specifier.contains(installed), (package, installed)
        for requirement in asked:  # every version the base allows, the extra allows too
            allowed = [v for v in ("1.2.2", "1.3.0", "11.3.0", "12.0.0", "13.0.0")
                       if base[package].specifier.contains(v)]
            assert all(requirement.specifier.contains(v) for v in allowed), \
                (package, str(base[package].specifier), str(requirement.specifier))
