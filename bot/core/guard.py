"""The secret guard between tools and the model: tool output redacted, canaries stopped, counted.

Trust model. A tool's output is untrusted and may hold a secret the bot knows: ``.git/config``'s
persisted checkout credential read with Read or Grep, an environment dump in a file, a token an MCP
server echoes. The guard is the one place every tool result passes before the model sees it
(``bot.runtime.pipeline`` calls :meth:`SecretGuard.screen` on whatever a tool's ``map_result``
produced, and on error results): known secret values in all their leak forms and well-known secret
shapes are redacted (:class:`~bot.core.redact.Redactor`), and the call is counted, so the run's
summary can say that redaction happened. A canary (:mod:`bot.core.canary`) in a tool's input
(:meth:`SecretGuard.check_input`) or output raises :class:`~bot.errors.CanaryTripped`, which the
pipeline never turns into a tool result: the run ends.

The run's guard is a service on the tool context: ``context.services[GUARD_SERVICE]``. Without one
(a test, ``bot tools call``) :func:`guard_of` gives a guard that redacts the process's secrets and
knows no canaries.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.core.canary import Canaries
from bot.core.redact import Redactor
from bot.core.secrets import process_secrets
from bot.core.services import ServiceKey, Services

#: ``ToolUseContext.services`` key of the run's :class:`SecretGuard`.
GUARD_SERVICE: ServiceKey[SecretGuard] = ServiceKey("secret_guard")
#: Tool results nest content a few levels deep (blocks, a resource's contents); anything deeper is
#: replaced rather than walked, so hostile output cannot exhaust the stack of the screening itself.
MAX_CONTENT_DEPTH = 32
NESTED_TOO_DEEP = "[content nested too deeply to be screened for secrets; omitted]"

#: Keys whose string values are structure, not content: never redacted (a ``type`` of "text").
_STRUCTURAL_KEYS = frozenset(
    {"type", "media_type", "tool_use_id", "tool_name", "id", "name", "mime_type", "mimeType", "cache_control"}
)


@dataclass(slots=True)
class RedactionCounter:
    """How many tool results had something redacted in this run, and from which tools."""

    by_tool: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def tool_results(self) -> int:
        return sum(self.by_tool.values())

    def record(self, tool_name: str) -> None:
        with self._lock:
            self.by_tool[tool_name] += 1

    def summary(self) -> str | None:
        """``"3 tool results had secrets redacted (Read ×2, Bash)"``, or ``None`` when none had."""
        total = self.tool_results
        if not total:
            return None
        tools = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in self.by_tool.most_common())
        noun = "tool result" if total == 1 else "tool results"
        return f"{total} {noun} had secrets redacted before the model saw them ({tools})"


class SecretGuard:
    """One per run: the redactor for tool results, the run's canaries, the redaction count.

    ``secrets`` defaults to every secret the process knows (:func:`bot.core.secrets.process_secrets`
    with ``extra_names``, the variables a policy marks secret).
    """

    def __init__(
        self,
        secrets: Mapping[str, str] | None = None,
        canaries: Canaries | None = None,
        *,
        extra_names: Iterable[str] = (),
    ) -> None:
        self.extra_names = tuple(extra_names)
        self.canaries = canaries if canaries is not None else Canaries()
        self.redactor = Redactor(process_secrets(self.extra_names) if secrets is None else secrets)
        self.counter = RedactionCounter()

    # ----- the pipeline's two checks ------------------------------------------------------------

    def check_input(self, tool_name: str, value: Any) -> None:
        """Raise ``CanaryTripped`` if a canary is anywhere in a tool call's input (the model's
        arguments: a command, a WebFetch URL, a file's new content). Trips recorded earlier (by a
        tool's own redactor, a background task) are raised here too."""
        self.canaries.raise_if_tripped()
        if not len(self.canaries):
            return
        where = f"the input of a {tool_name} call"
        for text in _strings(value):
            self.canaries.check(text, where)

    def screen(self, tool_name: str, content: Any, *, what: str = "output") -> tuple[Any, bool]:
        """``content`` (a tool_result's: a string, or blocks with nested content) with every text
        redacted, and whether anything was. Raises ``CanaryTripped`` for a canary in it, or a trip
        recorded while the tool ran. Image data and structural fields are left alone."""
        self.canaries.raise_if_tripped()
        where = f"the {what} of a {tool_name} call"
        changed = False

        def one(text: str) -> str:
            nonlocal changed
            self.canaries.check(text, where)
            out = self.redactor(text)
            changed = changed or out != text
            return out

        screened = _map_strings(content, one)
        return screened, changed

    def count(self, tool_name: str) -> None:
        """One more tool result had secrets redacted (once per call, whatever the number of texts)."""
        self.counter.record(tool_name)

    def observe(self, text: str, where: str) -> str:
        """Record a canary in ``text`` as the run's trip (without raising); return ``text``."""
        self.canaries.observe(text, where)
        return text


def guard_of(services: Services) -> SecretGuard:
    """The run's guard from a context's services, or one for the process's secrets without
    canaries when the run installed none."""
    guard = services.get(GUARD_SERVICE)
    if isinstance(guard, SecretGuard):
        return guard
    return SecretGuard()


def tool_redactor(services: Services, extra_names: Iterable[str] = ()) -> Redactor:
    """What a tool redacts its own streamed output with (Bash's lines, a background task's output):
    the process's secrets, the guard's and ``extra_names`` (the policy's secret variables). A canary
    in the text is recorded on the run's guard, not raised — a line callback must not fail
    mid-command — and the pipeline raises the trip when the call returns. The guard is looked up
    when text arrives, so a redactor made before the run installed its guard still reports to it."""

    def check(text: str) -> None:
        guard = services.get(GUARD_SERVICE)
        if isinstance(guard, SecretGuard):
            guard.canaries.observe(text, "a tool's output")

    guard = services.get(GUARD_SERVICE)
    names = (*(guard.extra_names if isinstance(guard, SecretGuard) else ()), *extra_names)
    return Redactor(process_secrets(names), check=check)


def _strings(value: Any) -> Iterable[str]:
    """Every string in a JSON-like value, keys included (a model can put a canary in a key)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                if isinstance(key, str):
                    yield key
                stack.append(inner)
        elif isinstance(item, list | tuple):
            stack.extend(item)


def _map_strings(value: Any, fn: Callable[[str], str], depth: int = 0) -> Any:
    """``value`` with ``fn`` applied to every content string: text blocks, nested content lists,
    anything else a tool or an MCP server returns — but not structural fields and not base64 data
    (an image's bytes are not text the model reads)."""
    if isinstance(value, str):
        return fn(value)
    if depth >= MAX_CONTENT_DEPTH and isinstance(value, list | tuple | Mapping):
        return NESTED_TOO_DEEP
    if isinstance(value, list):
        return [_map_strings(item, fn, depth + 1) for item in value]
    if isinstance(value, tuple):
        return tuple(_map_strings(item, fn, depth + 1) for item in value)
    if isinstance(value, Mapping):
        binary = value.get("type") == "base64"
        return {
            key: inner if key in _STRUCTURAL_KEYS or (binary and key == "data") else _map_strings(inner, fn, depth + 1)
            for key, inner in value.items()
        }
    return value


__all__ = ["GUARD_SERVICE", "RedactionCounter", "SecretGuard", "guard_of", "tool_redactor"]
