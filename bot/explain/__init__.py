"""``bot policy explain``: what a run under a policy may do, computed from the engine.

- :mod:`bot.explain.compute` — the explanation: tools and their standing (asked of the pipeline),
  Bash rules with what they never approve, files, network, MCP servers, hooks, limits, sandbox
- :mod:`bot.explain.bash_rules` — one Bash rule in words, from its pattern and the option table
- :mod:`bot.explain.render` — JSON and Markdown
- :mod:`bot.explain.summary` — the compact summary the model gets in its system prompt
- :mod:`bot.explain.readme` — each preset's explanation in ``policies/README.md``

With an event (does it trigger, for whom, on which branch) and ``@bot explain`` on a thread:
:mod:`bot.github.explain`, in the GitHub layer above this one.
"""

from bot.explain.compute import Explanation, explain_policy
from bot.explain.render import explanation_json, render_markdown

__all__ = ["Explanation", "explain_policy", "explanation_json", "render_markdown"]
