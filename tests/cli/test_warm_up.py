"""The run's warm-up imports: what it imports ahead exists, and the model SDK is left for the first
request to load unless the provider needs it before (Bedrock, Vertex) or the set-up is long (GitHub)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from bot.cli.warm_up import RUN_MODULES, SDK, modules_for


@pytest.mark.parametrize("name", RUN_MODULES)
def test_every_module_warmed_up_exists(name: str) -> None:
    # A renamed module would otherwise be skipped in silence (the thread leaves failures to the
    # main thread) and the warm-up would quietly stop helping.
    module, _, function = name.partition(":")
    assert importlib.util.find_spec(module) is not None, name
    assert not function or callable(getattr(importlib.import_module(module), function)), name


@pytest.mark.parametrize(
    ("local", "provider", "with_sdk"),
    [(True, "anthropic", False), (False, "anthropic", True), (True, "bedrock", True), (True, "vertex", True)],
)
def test_the_sdk_is_warmed_up_only_where_it_is_needed_before_the_first_request(
    local: bool, provider: str, with_sdk: bool
) -> None:
    modules = modules_for(local=local, provider=provider)
    assert (SDK in modules) is with_sdk and modules[: len(RUN_MODULES)] == RUN_MODULES


def test_the_warm_up_thread_imports_the_modules_and_not_the_sdk() -> None:
    code = (
        "import sys; from bot.cli.warm_up import RUN_MODULES, warm_up\n"
        "warm_up(RUN_MODULES).join(60)\n"
        "from bot.agent import first_request\n"
        "print(all(m.partition(':')[0] in sys.modules for m in RUN_MODULES), 'anthropic' in sys.modules,"
        " len(first_request._tls_contexts))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["True", "False", "1"], out.stderr[-1000:]  # the TLS context is built too
