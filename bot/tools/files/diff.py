"""Unified diffs of an edit, fast on large files.

``difflib`` over a whole 10 MB file costs seconds; an edit changes a few lines. The common prefix
and suffix are found first by comparing chunks (memcmp speed), and ``difflib`` only sees the
changed region plus its context lines. Line numbers stay those of the whole file.
"""

from __future__ import annotations

import difflib

#: Lines of context around each change (``diff -u``).
DIFF_CONTEXT_LINES = 3
_CHUNK = 1 << 16


def unified_diff(old: str, new: str, path: str, context: int = DIFF_CONTEXT_LINES) -> str:
    """``diff -u`` of two texts, labelled ``a/<path>`` and ``b/<path>``; ``""`` when equal."""
    if old == new:
        return ""
    prefix = _common_prefix_len(old, new)
    start = old.rfind("\n", 0, prefix) + 1  # the line where the first difference is
    suffix = _common_suffix_len(old, new, limit=min(len(old), len(new)) - start)
    old_end, new_end = len(old) - suffix, len(new) - suffix
    at_boundary = (old_end == start or old[old_end - 1] == "\n") and (new_end == start or new[new_end - 1] == "\n")
    if not at_boundary:
        # extend both to the end of the line; it lies in the common suffix, the same in both texts
        nl = old.find("\n", old_end)
        stop = len(old) if nl < 0 else nl + 1
        new_end += stop - old_end
        old_end = stop
    # context lines around the changed region, from the common prefix and suffix
    ctx_start = start
    for _ in range(context):
        if ctx_start == 0:
            break
        ctx_start = old.rfind("\n", 0, ctx_start - 1) + 1
    ctx_old_end, ctx_new_end = old_end, new_end
    for _ in range(context):
        nl = old.find("\n", ctx_old_end)
        stop = len(old) if nl < 0 else nl + 1
        ctx_new_end += stop - ctx_old_end
        ctx_old_end = stop
    first_line = old.count("\n", 0, ctx_start)
    a = old[ctx_start:ctx_old_end].splitlines()
    b = new[ctx_start:ctx_new_end].splitlines()
    out = [f"--- a/{path}", f"+++ b/{path}"]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        if all(op[0] == "equal" for op in group):
            continue  # only the final newline differs
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(first_line + i1, i2 - i1)} +{_range(first_line + j1, j2 - j1)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(" " + line for line in a[a1:a2])
                continue
            if tag in ("replace", "delete"):
                out.extend("-" + line for line in a[a1:a2])
            if tag in ("replace", "insert"):
                out.extend("+" + line for line in b[b1:b2])
    return "\n".join(out)


def diff_stats(diff: str) -> tuple[int, int]:
    """(lines added, lines removed)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def _range(start: int, length: int) -> str:
    # diff -u: a hunk of one line is written without its length; an empty one names the line before
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _common_prefix_len(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + _CHUNK] == b[i : i + _CHUNK]:
        i += _CHUNK
    hi = min(i + _CHUNK, n)
    while i < hi and a[i] == b[i]:
        i += 1
    return min(i, n)


def _common_suffix_len(a: str, b: str, limit: int) -> int:
    """Length of the common suffix, at most ``limit`` characters."""
    la, lb = len(a), len(b)
    k = 0
    while k + _CHUNK <= limit and a[la - k - _CHUNK : la - k] == b[lb - k - _CHUNK : lb - k]:
        k += _CHUNK
    while k < limit and a[la - k - 1] == b[lb - k - 1]:
        k += 1
    return k
