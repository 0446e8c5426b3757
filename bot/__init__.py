"""A headless coding-agent runner for GitHub and CI.

Layers, bottom first (``docs/architecture.md`` maps them; ``tests/test_architecture.py`` keeps every
import running downward): ``errors``, ``core``, ``permissions``, ``interface`` (the Tool interface),
``shell``, ``tools``, ``mcp``, ``runtime``, ``agent``, ``explain``, ``orchestration``, then the
adapters ``github``, ``local`` and ``fleet``, and ``cli`` on top. ``testing`` holds the fakes we ship.
"""

__version__ = "0.1.0"
