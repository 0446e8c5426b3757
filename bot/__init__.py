"""A headless coding-agent runner for GitHub and CI.

Layers (see ``design.md``): ``bot.tools`` (the Tool interface and built-in tools),
``bot.permissions`` (rules and decisions), ``bot.shell`` (command analysis and execution),
``bot.runtime`` (assembly, pipeline, scheduling, results), ``bot.mcp``, ``bot.agent``,
``bot.github``, and ``bot.cli`` on top.
"""

__version__ = "0.1.0"
