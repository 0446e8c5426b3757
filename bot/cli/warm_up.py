"""Importing, in a thread, what a run needs before its first model request.

A run's start is mostly imports (CPU) with gaps in which the main thread waits: on git while the
checkout is prepared, on bwrap while the sandbox is tested. A thread that imports the modules the
run will ask for next fills those gaps, so they are loaded when the main thread gets there (the
import lock makes the main thread wait for a module the thread is halfway through, never import it
twice). What is imported is what the run imports anyway; only the order changes.

The model SDK is not on the list for the Anthropic API: its first request goes out before the SDK
is needed (:mod:`bot.agent.first_request`), and importing it here would take the CPU from the work
that request waits for. Bedrock and Vertex build their SDK client before the first request, so
for them (and on GitHub, where the set-up waits on the network for longer than the import takes)
the SDK comes last on the list.
"""

from __future__ import annotations

import importlib
import threading

#: What a run imports between its start and its first model request. First the HTTP client and the
#: TLS context of the first request (a ``module:function`` is called once the module is imported):
#: loading the CA bundle releases the GIL, so it overlaps the main thread's imports rather than
#: waiting for them. Then, in the order the run needs them: the Bash analysis and the policy summary
#: (the system prompt), the tools' modules (their definitions are in the request), the rest of the
#: HTTP stack.
RUN_MODULES: tuple[str, ...] = (
    "httpx2",
    "bot.agent.first_request:tls_context",
    "bot.shell.api",
    "bot.explain.compute",
    "bot.explain.summary",
    "bot.tools.registry",
    "httpcore2._async",
    "httpcore2._backends.anyio",
)
SDK = "anthropic"


def modules_for(*, local: bool, provider: str) -> tuple[str, ...]:
    """What to import ahead for a run (a pure decision, tested)."""
    return RUN_MODULES if local and provider == "anthropic" else (*RUN_MODULES, SDK)


def warm_up(modules: tuple[str, ...]) -> threading.Thread:
    """Import ``modules`` in a daemon thread, in order (``module:function``: then call it). A
    module that fails to import is left for the main thread to import again, where its error is
    reported in context."""

    def run() -> None:
        for name in modules:
            module, _, function = name.partition(":")
            try:
                loaded = importlib.import_module(module)
                if function:
                    getattr(loaded, function)()
            except Exception:  # the main thread's own import (or call) reports it
                continue

    thread = threading.Thread(target=run, name="warm-up-imports", daemon=True)
    thread.start()
    return thread
