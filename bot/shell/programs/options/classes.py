"""The option classes of the table, apart from the classifier that assigns them
(:mod:`bot.shell.programs.options.classify`, whose patterns only the generator needs)."""

from __future__ import annotations

CLASSES = ("runs", "program", "loads", "connects", "reads", "writes", "inert")
#: The classes a prefix rule approves only when it spells the option (and its value) out.
EXECUTING = frozenset({"runs", "program", "loads", "connects"})
