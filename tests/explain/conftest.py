"""Fixtures borrowed from other suites: the GitHub world of tests/github (stand-in, bare origin,
checkout) and the agent-loop harness of tests/agent (recorded cassettes, captured requests)."""

from tests.agent.conftest import anyio_backend, harness
from tests.github.conftest import world

__all__ = ["anyio_backend", "harness", "world"]
