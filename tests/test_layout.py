"""The package layout (docs/architecture.md): the old import paths of moved modules keep
working for one release with a deprecation warning, public names stay where users call them,
and the wheel installs no generic top-level package."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import pytest
import tomllib

import skipbo_env
from skipbo_env._moved import MOVED

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_module_imports_from_its_old_path_with_a_deprecation_warning(old):
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert any(issubclass(w.category, DeprecationWarning) and MOVED[old] in str(w.message)
               for w in caught)
    new = importlib.import_module(MOVED[old])
    if module is not new:  # a package whose old name only warns (skipbo_env.web)
        assert old == "skipbo_env.web"


def test_the_public_names_users_call_are_where_they_were():
    from skipbo_env.vector import SkipBoVectorEnv, VectorEngine, sb3_vec_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from skipbo_env.agents import make_agent
    assert callable(skipbo_env.env) and callable(skipbo_env.raw_env)
    assert skipbo_env.Game and skipbo_env.Rules and SkipBoVectorEnv and VectorEngine
    assert callable(sb3_vec_env)
    assert make_agent("expert").name == "expert"
    assert gymnasium.spec("SkipBo-v0").entry_point == "skipbo_env.envs.gym:SkipBoEnv"


def test_old_command_paths_still_run():
    for args in (["-m", "skipbo_env.cli", "demo", "--seed", "1"],
                 ["-m", "training.train", "--help"],
                 ["-m", "training.check_config", "configs/smoke.yaml"]):
        result = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                                cwd=ROOT, timeout=300)
        assert result.returncode == 0, (args, result.stderr[-2000:])


def test_a_bad_config_is_named_by_the_config_checker(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntotal_timesteps: -5\n")
    result = subprocess.run([sys.executable, "-m", "training.check_config", str(bad)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 2 and "total_timesteps must be at least 0" in result.stderr


def test_the_wheel_installs_only_the_skipbo_env_package():
    from setuptools import find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = find_packages(where=str(ROOT), include=include)
    assert "skipbo_env" in packages and "skipbo_env.train" in packages
    assert all(p == "skipbo_env" or p.startswith("skipbo_env.") for p in packages)
    assert (ROOT / "skipbo_env" / "py.typed").is_file()
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["skipbo_env"]


CORE = ["rules", "actions", "spec", "engine", "state_io", "view", "observation", "match",
        "text", "picture", "checks"]
OUTER = {"envs", "players", "vector", "integrations", "apps", "train"}


@pytest.mark.parametrize("module", CORE)
def test_the_core_imports_nothing_from_the_outer_layers(module):
    # Data flows down (docs/architecture.md): the core never imports envs, players, the
    # batched engine, adapters, apps or training.
    tree = ast.parse((ROOT / "skipbo_env" / f"{module}.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            name = ("skipbo_env." if node.level else "") + (node.module or "")
            imported.add(name.removeprefix("skipbo_env.").split(".")[0])
            imported.update(alias.name for alias in node.names if node.module is None)
        elif isinstance(node, ast.Import):
            imported.update(a.name.removeprefix("skipbo_env.").split(".")[0]
                            for a in node.names if a.name.startswith("skipbo_env."))
    assert not imported & OUTER, imported & OUTER


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(out), str(ROOT)], check=True,
                   capture_output=True, timeout=600)
    (path,) = out.glob("skipbo_env-*.whl")
    return path


def test_the_wheel_holds_the_shipped_checkpoints_the_license_and_py_typed(wheel):
    import zipfile

    from skipbo_env.players.registry import SHIPPED

    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for name in SHIPPED:
        assert f"skipbo_env/checkpoints/{name}.zip" in names
        assert f"skipbo_env/checkpoints/{name}.json" in names
    assert "skipbo_env/py.typed" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in metadata and "Classifier: Typing :: Typed" in metadata
    assert "Author: The skipbo-env maintainers" in metadata


def test_an_installed_package_finds_its_shipped_checkpoints_by_name(wheel, tmp_path):
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path / "site")
    code = ("from skipbo_env.players.registry import shipped_checkpoint, check_player;"
            "from skipbo_env.players.policy import model_card;"
            "p = shipped_checkpoint('standard_2p'); check_player('lookahead:short_2p');"
            "print(p); print(model_card(p)['rules']['stock_size'])")
    env = {"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    path, stock = result.stdout.split()
    assert path.startswith(str(tmp_path / "site")) and Path(path).is_file() and stock == "30"
