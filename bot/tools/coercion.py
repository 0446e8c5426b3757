"""Lenient parsing of what models send (seeds 13.2, ``semanticBoolean`` / ``semanticNumber``).

Models sometimes send ``"true"`` for ``true`` or ``"42"`` for ``42``. Rather than fail the call, the
tool accepts the obvious meaning: ``"true"``, ``"1"``, ``"yes"`` → ``True``; ``"42"`` → ``42``;
``"4.2"`` → ``4.2``. Anything else is left for the schema to reject with a clear message.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

_TRUE = frozenset({"true", "1", "yes", "y", "on"})
_FALSE = frozenset({"false", "0", "no", "n", "off"})


def coerce_bool(value: Any) -> Any:
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    return value


def coerce_number(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            return value
        return int(number) if number.is_integer() else number
    return value


SemanticBool = Annotated[bool, BeforeValidator(coerce_bool)]
SemanticInt = Annotated[int, BeforeValidator(coerce_number)]
SemanticFloat = Annotated[float, BeforeValidator(coerce_number)]
