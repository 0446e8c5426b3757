"""Run-wide objects that layers attach to a tool call's context, found by typed keys.

A tool call carries the run's shared objects (the secret guard, background tasks, the sandbox's
status, the todo list, the sub-agent launcher…). Each belongs to a different layer, so the
container cannot name their types without importing upwards. Instead each owner declares a
``ServiceKey[T]`` next to its type, and ``Services.get(key)`` returns a ``T`` to the type checker:
no layer learns about another, and a wrong type at a call site is a mypy error rather than a
``KeyError`` at run time (the pattern of aiohttp's ``AppKey``).

One ``Services`` object is shared by every context of a run that was derived with
``ToolUseContext.with_``: attaching a service is visible to every later call. A sub-agent gets a
``copy()`` (or ``without(...)``) so what it attaches stays its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


class ServiceKey(Generic[T]):
    """The name of one service and, to the type checker, the type of its value."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ServiceKey({self.name!r})"


class Services:
    """A mutable, shared map from :class:`ServiceKey` to the service it names."""

    __slots__ = ("_items",)

    def __init__(self, items: dict[ServiceKey[Any], Any] | None = None) -> None:
        self._items: dict[ServiceKey[Any], Any] = dict(items or {})

    def get(self, key: ServiceKey[T]) -> T | None:
        return cast("T | None", self._items.get(key))

    def __getitem__(self, key: ServiceKey[T]) -> T:
        return cast("T", self._items[key])

    def __setitem__(self, key: ServiceKey[T], value: T) -> None:
        self._items[key] = value

    def setdefault(self, key: ServiceKey[T], default: T) -> T:
        return cast("T", self._items.setdefault(key, default))

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[ServiceKey[Any]]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def copy(self) -> Services:
        """An independent map holding the same services (for a sub-agent's context)."""
        return Services(self._items)

    def without(self, *keys: ServiceKey[Any]) -> Services:
        """A copy without ``keys``: what a child must not reach (the launcher of more children)."""
        return Services({k: v for k, v in self._items.items() if k not in keys})

    def __repr__(self) -> str:
        return f"Services({', '.join(k.name for k in self._items)})"


__all__ = ["ServiceKey", "Services"]
