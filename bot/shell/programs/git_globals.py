"""git's global options (those before the command), in one place for the program table and the path
extractor.
"""

from __future__ import annotations

#: Global options followed by a value (``--git-dir x`` or ``--git-dir=x``; ``-C``/``-c`` only separate).
GIT_GLOBAL_VALUE = frozenset(
    {
        "-C",
        "-c",
        "--config-env",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--super-prefix",
        "--shallow-file",
        "--attr-source",
    }
)


GIT_GLOBAL_FLAGS = frozenset(
    {
        "-p",
        "--paginate",
        "-P",
        "--no-pager",
        "--bare",
        "--no-replace-objects",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-advice",
        "--no-lazy-fetch",
        "--html-path",
        "--man-path",
        "--info-path",
        "--exec-path",
    }
)
