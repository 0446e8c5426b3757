"""Branch names both modes make from a title or a prompt."""

from __future__ import annotations

import re

#: Characters of a title or prompt kept in a branch name (cut at a word boundary when there is one).
MAX_SLUG_LENGTH = 40


def slugify(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    if len(slug) > MAX_SLUG_LENGTH:  # cut at a word boundary when there is one
        cut = slug[: MAX_SLUG_LENGTH + 1].rfind("-")
        slug = slug[: cut if cut > MAX_SLUG_LENGTH // 2 else MAX_SLUG_LENGTH]
    return slug.rstrip("-") or "task"
