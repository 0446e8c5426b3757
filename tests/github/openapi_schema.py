"""Validate JSON against GitHub's REST description (OpenAPI 3.0.3), as vendored in the fixtures.

OpenAPI 3.0 schemas are JSON Schema with a twist: ``nullable: true`` instead of a ``null`` type.
``to_json_schema`` rewrites that, and the result is checked by ``jsonschema`` (draft 2020-12)
with the two formats the description uses (``uri``, ``date-time``) checked for real.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft202012Validator, FormatChecker

from tests.conftest import FIXTURES

DESCRIPTION = FIXTURES / "github-rest-subset.json"


def to_json_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {
        key: to_json_schema(value)
        for key, value in node.items()
        if key not in ("nullable", "example", "examples", "discriminator") and not key.startswith("x-")
    }
    if node.get("nullable") is True:
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


_formats = FormatChecker(formats=())


@_formats.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if isinstance(value, str):
        if "T" not in value:
            raise ValueError(f"not an RFC 3339 date-time: {value!r}")
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


@_formats.checks("uri")
def _uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme and parts.netloc)


@cache
def description() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DESCRIPTION.read_text())
    return data


@cache
def _components() -> dict[str, Any]:
    converted: dict[str, Any] = to_json_schema(description()["components"])
    return converted


def operations() -> dict[str, tuple[str, str, dict[str, Any]]]:
    """operationId → (METHOD, path template, operation object)."""
    found = {}
    for template, item in description()["paths"].items():
        for method, op in item.items():
            if isinstance(op, dict) and "operationId" in op:
                found[op["operationId"]] = (method.upper(), template, op)
    return found


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        section, name = node["$ref"].split("/")[-2:]
        node = description()["components"][section][name]
    return node


def response_schema(operation: str, status: int) -> dict[str, Any] | None:
    """The JSON schema of ``operation``'s response ``status``; ``basic-error`` for an undescribed
    error status (a 502, a 401: GitHub's error body); ``None`` when there is no body (304)."""
    op = operations()[operation][2]
    response = op["responses"].get(str(status))
    if response is None:
        if status >= 400:
            return {"$ref": "#/components/schemas/basic-error"}
        raise AssertionError(f"{operation} has no {status} response in the description")
    content = _resolve(response).get("content", {}).get("application/json")
    return None if content is None else to_json_schema(content["schema"])


def request_schema(operation: str) -> dict[str, Any] | None:
    body = operations()[operation][2].get("requestBody")
    if body is None:
        return None
    return to_json_schema(_resolve(body)["content"]["application/json"]["schema"])


def errors(schema: dict[str, Any], instance: Any) -> list[str]:
    """Every violation, as ``path: message`` lines (empty when valid)."""
    root = {**schema, "components": _components()}
    validator = Draft202012Validator(root, format_checker=_formats)
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    ]
