"""The package layout (docs/architecture.md): every module sits above everything it imports,
function-level imports included, in one documented layer order; no import loops; no function
longer than 80 lines but the numba kernels that say why; public names stay where users call
them, and the wheel installs no generic top-level package."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest
import tomllib

import skipbo_env

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "skipbo_env"

# The layers, lowest first, as docs/architecture.md draws them: a module may import only
# modules of its own layer or below (the package's __init__ and the versioned module
# skipbo_v0, the facades, lie above them all). Within a layer the graph must still be a tree.
LAYERS = [
    ["checks", "extras", "files", "version"],
    ["rules"],
    ["actions"],
    ["spec"],
    ["state"],
    ["view"],
    ["text"],
    ["picture"],
    ["state_io"],
    ["engine"],
    ["observation", "match", "segments", "records"],
    ["players"],
    ["vector"],
    ["envs"],
    ["arena"],
    ["integrations"],
    ["train"],
    ["apps"],
]
FACADES = {"skipbo_env", "skipbo_env.skipbo_v0"}
MAX_FUNCTION_LINES = 80
# Numba kernels kept whole, with why (the measurement is in the kernel's docstring).
LONG_KERNELS: dict[str, str] = {}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, root: Path = ROOT, modules=MODULES) -> set[str]:
    """The package's own modules `path` imports, at any depth of the file (function-level
    imports too); imports read only by the type checker (under TYPE_CHECKING) are none."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                full = ".".join(base + ([node.module] if node.module else []))
            else:
                full = node.module or ""
            for alias in node.names:
                candidate = f"{full}.{alias.name}"
                found.add(candidate if candidate in modules else full)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in modules and m != name}


GRAPH = {name: _imports(path) for name, path in MODULES.items()}


def _layer(module: str) -> int:
    part = module.split(".")[1]
    for i, layer in enumerate(LAYERS):
        if part in layer:
            return i
    raise AssertionError(f"{module} is in no layer of LAYERS (docs/architecture.md)")


def test_every_module_is_in_a_layer():
    for module in MODULES:
        if module not in FACADES:
            _layer(module)


@pytest.mark.parametrize("module", sorted(set(MODULES) - FACADES))
def test_a_module_imports_nothing_above_its_layer(module):
    above = sorted(m for m in GRAPH[module] if m not in FACADES and _layer(m) > _layer(module))
    assert not above, f"{module} imports {above}, above its layer"
    assert not GRAPH[module] & FACADES, f"{module} imports the package's facade"


def test_the_import_graph_has_no_loop():
    # Depth-first search for a back edge; the loop is named if there is one.
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in sorted(GRAPH[m]):
            if state.get(n) == 1:
                loop = path[path.index(n):] + [n]
                raise AssertionError("import loop: " + " -> ".join(loop))
            if n not in state:
                visit(n)
        path.pop()
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            visit(m)


def test_the_layer_test_sees_function_level_imports(tmp_path):
    # A loop held together by an import inside a function is still a loop: the graph has it.
    (tmp_path / "skipbo_env" / "apps").mkdir(parents=True)
    probe = tmp_path / "skipbo_env" / "engine.py"
    probe.write_text("def describe():\n    from .apps import cli\n    return cli\n")
    (tmp_path / "skipbo_env" / "apps" / "cli.py").write_text("")
    modules = {"skipbo_env.engine", "skipbo_env.apps", "skipbo_env.apps.cli"}
    assert _imports(probe, tmp_path, modules) == {"skipbo_env.apps.cli"}


def test_docs_architecture_lists_the_layers_the_test_checks():
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = re.search(r"<!-- layers -->(.*?)<!-- /layers -->", text, re.S)
    assert block, "docs/architecture.md has no layer list between <!-- layers --> markers"
    listed = [re.findall(r"`([a-z_]+)/?`", line.split(":")[0])
              for line in block.group(1).splitlines()
              if line.strip().startswith(("1", "2", "3", "4", "5", "6", "7", "8", "9"))]
    assert [sorted(layer) for layer in listed] == [sorted(layer) for layer in LAYERS]


def _functions():
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "benchmarks").glob("*.py"),
                 *(ROOT / "training").glob("*.py"), *(ROOT / "examples").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield path.relative_to(ROOT), node


def test_no_function_is_longer_than_80_lines_but_the_kernels_that_say_why():
    long = []
    for path, node in _functions():
        lines = node.end_lineno - node.lineno + 1
        where = f"{path}:{node.name}"
        if lines > MAX_FUNCTION_LINES and where not in LONG_KERNELS:
            long.append(f"{where} ({lines} lines)")
    assert not long, long


def test_the_public_names_users_call_are_where_they_were():
    from skipbo_env.integrations.sb3 import sb3_vec_env
    from skipbo_env.players import make_agent
    from skipbo_env.vector import SkipBoVectorEnv, VectorEngine

    assert callable(skipbo_env.env) and callable(skipbo_env.raw_env)
    assert skipbo_env.Game and skipbo_env.Rules and SkipBoVectorEnv and VectorEngine
    assert callable(sb3_vec_env)
    assert make_agent("expert").name == "expert"
    assert gymnasium.spec("SkipBo-v0").entry_point == "skipbo_env.envs.gym:SkipBoEnv"


def test_no_module_only_re_exports_another_with_a_warning():
    # The package was never released: no deprecated import paths are kept.
    for name, path in MODULES.items():
        assert "DeprecationWarning" not in path.read_text(), name


def test_the_training_scripts_run():
    for args in (["-m", "training.train", "--help"],
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
    code = ("from skipbo_env.players.registry import shipped_checkpoint, parse_player;"
            "from skipbo_env.players.checkpoints import model_card;"
            "p = shipped_checkpoint('standard_2p'); parse_player('lookahead:short_2p');"
            "print(p); print(model_card(p)['rules']['stock_size'])")
    env = {"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    path, stock = result.stdout.split()
    assert path.startswith(str(tmp_path / "site")) and Path(path).is_file() and stock == "30"
