"""Parsing: from a command string to simple commands whose words have their quoting resolved.

``fast`` flattens the common shapes in one pass; ``walk`` is the general tree-sitter walker it
falls back to, with ``redirects`` and ``heredoc`` for what follows a command and ``words`` for
turning word nodes into values the way bash does. ``syntax`` holds the resulting types.
"""
