"""Judging: the decision for a command string against the Bash rules it is handed.

``decide`` runs the text-level ``security_checks``, parses, and combines the ``verdict`` of each
simple command; ``command`` judges one simple command (rules via ``rule_match``/``deny_match``,
programs via ``bot.shell.programs``, launched commands via ``bot.shell.launch``, paths via
``bot.shell.paths``); ``read_only`` is the seeds' read-only classification; ``prefixes`` the rules a
maintainer could add.
"""
