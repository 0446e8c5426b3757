"""What the architecture promises, checked over the source: every process the bot starts receives an
environment built on purpose (never a copy of the bot's), and production code never imports `bot.testing`.

A call that starts a process without ``env=`` inherits the bot's environment. The secrets are taken
out of ``os.environ`` at start-up, but what is left (the runner's variables, canaries planted to
catch exactly this) must not reach a child either. This test reads the source: a new call site
without an explicit environment fails here until it says what its child receives.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[1] / "bot"
#: (module attribute, function) pairs that start a process.
STARTERS = {
    ("subprocess", "run"),
    ("subprocess", "Popen"),
    ("subprocess", "call"),
    ("subprocess", "check_call"),
    ("subprocess", "check_output"),
    ("anyio", "open_process"),
    ("anyio", "run_process"),
    ("asyncio", "create_subprocess_exec"),
    ("asyncio", "create_subprocess_shell"),
    ("os", "system"),
    ("os", "popen"),
}
#: Call sites that start a process through our own wrapper, which requires ``env`` by signature.
WRAPPERS = {"run_process"}


def process_calls() -> list[tuple[str, int, bool]]:
    found = []
    for path in sorted(BOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = None
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                name = (func.value.id, func.attr)
            if name in STARTERS:
                has_env = any(k.arg == "env" for k in node.keywords)
                found.append((f"{path.relative_to(BOT.parent)}:{node.lineno}", node.lineno, has_env))
    return found


def test_the_scan_finds_the_call_sites() -> None:
    assert len(process_calls()) >= 5  # git, hooks, ripgrep, the shell, setpriv...


@pytest.mark.parametrize(("where", "line", "has_env"), process_calls(), ids=[c[0] for c in process_calls()])
def test_every_process_gets_an_explicit_environment(where: str, line: int, has_env: bool) -> None:
    assert has_env, f"{where} starts a process without env=: build its environment from an allowlist"


def test_our_process_wrapper_requires_an_environment() -> None:
    import inspect

    from bot.shell.execute.process import run_process

    parameter = inspect.signature(run_process).parameters["env"]
    assert parameter.default is inspect.Parameter.empty


def test_production_code_never_imports_the_testing_package() -> None:
    offenders = []
    for path in sorted(BOT.rglob("*.py")):
        if path.is_relative_to(BOT / "testing"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            if any(n == "bot.testing" or n.startswith("bot.testing.") for n in names):
                offenders.append(f"{path.relative_to(BOT.parent)}:{node.lineno}")
    assert offenders == []


# ----- layers: every import runs downward -----------------------------------------------------------

#: The packages of ``bot``, bottom first. A module may import its own package and any package in
#: a lower tier; packages in one tier do not import each other. ``docs/architecture.md`` draws it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("core",),
    ("permissions",),
    ("interface",),
    ("shell",),
    ("tools",),
    ("mcp",),
    ("runtime",),
    ("agent",),
    ("explain",),
    ("orchestration",),
    ("github", "local"),
    ("fleet",),
    ("testing",),
    ("cli",),
)
TIER = {package: tier for tier, packages in enumerate(LAYERS) for package in packages}


def _package_of(path: Path, root: Path) -> str | None:
    parts = path.relative_to(root).with_suffix("").parts
    if parts == ("__init__",):
        return None
    return parts[0]


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    """Every ``bot.*`` import in a module, module-level or inside a function, with its line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot."):
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("bot.")]
    return found


def upward_imports(root: Path = BOT) -> list[str]:
    offenders = []
    for path in sorted(root.rglob("*.py")):
        own = _package_of(path, root)
        if own is None:
            continue
        for line, module in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            target = module.split(".")[1]
            if target != own and TIER[target] >= TIER[own]:
                offenders.append(f"{path.relative_to(root.parent)}:{line} imports {module}")
    return offenders


def test_every_package_of_bot_has_a_layer() -> None:
    packages = {p.name for p in BOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    packages |= {p.stem for p in BOT.glob("*.py") if p.stem != "__init__"}
    assert packages == set(TIER)


def test_every_import_runs_downward() -> None:
    assert upward_imports() == []


def test_the_layer_check_finds_an_upward_import_even_inside_a_function(tmp_path: Path) -> None:
    tools = tmp_path / "bot" / "tools"
    tools.mkdir(parents=True)
    (tools / "x.py").write_text("import os\n\n\ndef f():\n    from bot.agent.loop import run_agent\n")
    (tools / "y.py").write_text("from bot.shell.api import analyze_bash\nfrom bot.tools.x import f\n")
    assert upward_imports(tmp_path / "bot") == ["bot/tools/x.py:5 imports bot.agent.loop"]


def _module_graph() -> dict[str, set[str]]:
    modules = {}
    for path in BOT.rglob("*.py"):
        name = ".".join(path.relative_to(BOT.parent).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # what runs at import time
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot"):
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return cycles


def test_no_import_cycle_between_modules() -> None:
    assert import_cycles(_module_graph()) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_a_package_that_re_exports_says_so_in_all() -> None:
    """A package's ``__init__`` either re-exports nothing or lists its public surface in ``__all__``
    (the CLI's registers its commands, which is not a re-export)."""
    unlisted = []
    for init in sorted(BOT.rglob("__init__.py")):
        if init.parent in (BOT, BOT / "cli"):
            continue
        tree = ast.parse(init.read_text(encoding="utf-8"))
        imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        names = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        if [
            n for n in imports if not (isinstance(n, ast.ImportFrom) and n.module == "__future__")
        ] and "__all__" not in names:
            unlisted.append(str(init.relative_to(BOT.parent)))
    assert unlisted == []


#: "Under about 600 lines, one concept per module" (style.md); the margin lets a module grow by a
#: function before it must be split, not by a concept.
MAX_MODULE_LINES = 650


def test_no_module_is_over_about_600_lines() -> None:
    long = {}
    for path in BOT.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > MAX_MODULE_LINES:
            long[str(path.relative_to(BOT.parent))] = lines
    assert long == {}
