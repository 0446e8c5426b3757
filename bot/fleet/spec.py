"""The fleet file: one task, the repositories it runs in, the policy and the limits of each leg.

A fleet file is YAML, read from the fleet's home repository (trusted, like a workflow file) within
:mod:`bot.core.bounded`'s limits, and validated field by field: an unknown key, a wrong type or a
malformed repository name is a :class:`~bot.errors.ConfigError` naming the file and the line::

    name: bump-actions
    prompt: Bump every actions/* step to its latest major version.
    policy: [fix]
    limits: {max_turns: 30, max_budget_usd: 2, timeout_minutes: 20}
    max_parallel: 4
    repositories:
      - octo/api
      - {repository: octo/web, limits: {max_turns: 50}}
    query: {org: octo, topic: python}      # and/or: every repository of the org with the topic
    exclude: [octo/legacy]

The repositories are the union of the list and the query's answer, less ``exclude``, in the order
written (the query's answer after the list, sorted by name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.errors import ConfigError
from bot.permissions.documents import Document, parse_document

#: GitHub's matrix limit is 256 jobs per workflow run; a fleet larger than that needs two fleets.
MAX_REPOSITORIES = 256
#: What a job matrix may run at once on GitHub-hosted runners is bounded by the plan's concurrency;
#: 20 is the free plan's limit, a sane default ceiling for one fleet.
DEFAULT_MAX_PARALLEL = 4
MAX_PARALLEL_CEILING = 256
#: GitHub's own rules: owner up to 39 characters of letters, digits and inner hyphens; a repository
#: name of letters, digits, ``.``, ``_`` and ``-`` (not ``.`` or ``..``).
REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
OWNER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
TOPIC = re.compile(r"[a-z0-9][a-z0-9-]{0,49}")
FLEET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

_TOP_KEYS = ("name", "prompt", "policy", "limits", "max_parallel", "repositories", "query", "exclude", "home")
_LIMIT_KEYS = ("max_turns", "max_budget_usd", "timeout_minutes")


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits of one leg (each repository's run); ``None`` leaves the policy's own limit."""

    max_turns: int | None = None
    max_budget_usd: float | None = None
    timeout_minutes: float | None = None

    def over(self, base: Limits) -> Limits:
        """These limits where set, else ``base``'s."""
        return Limits(
            self.max_turns if self.max_turns is not None else base.max_turns,
            self.max_budget_usd if self.max_budget_usd is not None else base.max_budget_usd,
            self.timeout_minutes if self.timeout_minutes is not None else base.timeout_minutes,
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "max_turns": self.max_turns,
            "max_budget_usd": self.max_budget_usd,
            "timeout_minutes": self.timeout_minutes,
        }


@dataclass(frozen=True, slots=True)
class Target:
    """One repository named in the file, with its own limits (already merged over the fleet's)."""

    repository: str
    limits: Limits
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Query:
    """Every repository of ``org`` that carries ``topic`` (GitHub's repository search)."""

    org: str
    topic: str | None = None
    line: int | None = None

    def search_terms(self) -> str:
        """The ``q`` of GitHub's repository search: archived repositories cannot take a push."""
        terms = [f"org:{self.org}", "archived:false"]
        if self.topic:
            terms.append(f"topic:{self.topic}")
        return " ".join(terms)


@dataclass(frozen=True, slots=True)
class FleetSpec:
    name: str
    prompt: str
    source: str
    policy: tuple[str, ...] = ("fix",)
    limits: Limits = Limits()
    max_parallel: int = DEFAULT_MAX_PARALLEL
    targets: tuple[Target, ...] = ()
    query: Query | None = None
    exclude: frozenset[str] = field(default_factory=frozenset)
    #: ``owner/name`` of the repository holding the tracking issue; ``None``: the workflow's own.
    home: str | None = None

    def target(self, repository: str) -> Target:
        """The listed entry for ``repository``, or one with the fleet's limits (a query's answer)."""
        for t in self.targets:
            if t.repository.lower() == repository.lower():
                return t
        return Target(repository, self.limits)


def load_fleet(path: str | Path) -> FleetSpec:
    """Read and validate a fleet file; every problem is a ConfigError naming the file and line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such fleet file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read as a fleet file ({exc})") from None
    return parse_fleet(text, str(path))


def parse_fleet(text: str, source: str) -> FleetSpec:
    doc = parse_document(text, source, "yaml")
    return _Reader(doc, source).fleet()


class _Reader:
    """Validates the document key by key, so each error carries its key's line."""

    def __init__(self, doc: Document, source: str) -> None:
        self.doc = doc
        self.source = source

    def fail(self, message: str, *path: str | int) -> ConfigError:
        line = self.doc.line(*path) if path else None
        where = f"{self.source}:{line}" if line else self.source
        return ConfigError(f"{where}: {message}")

    def fleet(self) -> FleetSpec:
        data = self.doc.data
        if not isinstance(data, dict):
            raise self.fail("a fleet file is a mapping (name, prompt, repositories or query, …)")
        for key in data:
            if key not in _TOP_KEYS:
                raise self.fail(f"unknown key {key!r} (known: {', '.join(_TOP_KEYS)})", key)
        name = self._string(data, "name", required=True)
        if not FLEET_NAME.fullmatch(name):
            raise self.fail(f"name {name!r}: letters, digits, '.', '_' and '-', at most 64", "name")
        prompt = self._string(data, "prompt", required=True).strip()
        if not prompt:
            raise self.fail("prompt is empty", "prompt")
        limits = self._limits(data.get("limits"), ("limits",))
        targets = self._targets(data.get("repositories"), limits)
        query = self._query(data.get("query"))
        if not targets and query is None:
            raise self.fail("give repositories (a list), a query (org and topic), or both")
        if len(targets) > MAX_REPOSITORIES:
            raise self.fail(
                f"{len(targets)} repositories: a job matrix holds at most {MAX_REPOSITORIES}", "repositories"
            )
        max_parallel = data.get("max_parallel", DEFAULT_MAX_PARALLEL)
        if (
            isinstance(max_parallel, bool)
            or not isinstance(max_parallel, int)
            or not 1 <= max_parallel <= MAX_PARALLEL_CEILING
        ):
            raise self.fail(f"max_parallel must be a whole number from 1 to {MAX_PARALLEL_CEILING}", "max_parallel")
        home = data.get("home")
        if home is not None:
            home = self._repository(home, ("home",))
        return FleetSpec(
            name=name,
            prompt=prompt,
            source=self.source,
            policy=self._policy(data.get("policy", ["fix"])),
            limits=limits,
            max_parallel=max_parallel,
            targets=targets,
            query=query,
            exclude=frozenset(r.lower() for r in self._repository_list(data.get("exclude", []), "exclude")),
            home=home,
        )

    def _string(self, data: dict[str, Any], key: str, *, required: bool = False) -> str:
        value = data.get(key)
        if value is None and required:
            raise self.fail(f"{key} is required")
        if not isinstance(value, str):
            raise self.fail(f"{key} must be a string", key)
        return value

    def _policy(self, value: Any) -> tuple[str, ...]:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items or not all(isinstance(v, str) and v.strip() for v in items):
            raise self.fail("policy is a preset name or a policy file, or a list of them", "policy")
        return tuple(v.strip() for v in items)

    def _limits(self, value: Any, path: tuple[str | int, ...], base: Limits = Limits()) -> Limits:
        if value is None:
            return base
        if not isinstance(value, dict):
            raise self.fail(f"limits must be a mapping of {', '.join(_LIMIT_KEYS)}", *path)
        for key in value:
            if key not in _LIMIT_KEYS:
                raise self.fail(f"unknown limit {key!r} (known: {', '.join(_LIMIT_KEYS)})", *path, key)
        turns = value.get("max_turns")
        if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int) or turns < 1):
            raise self.fail("max_turns must be a whole number of at least 1", *path, "max_turns")
        budget = self._positive(value, "max_budget_usd", path)
        minutes = self._positive(value, "timeout_minutes", path)
        return Limits(turns, budget, minutes).over(base)

    def _positive(self, value: dict[str, Any], key: str, path: tuple[str | int, ...]) -> float | None:
        number = value.get(key)
        if number is None:
            return None
        if isinstance(number, bool) or not isinstance(number, int | float) or number <= 0:
            raise self.fail(f"{key} must be a positive number", *path, key)
        return float(number)

    def _repository(self, value: Any, path: tuple[str | int, ...]) -> str:
        if not isinstance(value, str) or not REPOSITORY.fullmatch(value) or value.split("/")[1] in (".", ".."):
            raise self.fail(f"{value!r} is not a repository name (owner/name)", *path)
        return value

    def _repository_list(self, value: Any, key: str) -> list[str]:
        if not isinstance(value, list):
            raise self.fail(f"{key} is a list of owner/name", key)
        return [self._repository(v, (key, i)) for i, v in enumerate(value)]

    def _targets(self, value: Any, limits: Limits) -> tuple[Target, ...]:
        if value is None:
            return ()
        if not isinstance(value, list):
            raise self.fail("repositories is a list of owner/name (or {repository, limits})", "repositories")
        seen: set[str] = set()
        targets: list[Target] = []
        for i, entry in enumerate(value):
            path: tuple[str | int, ...] = ("repositories", i)
            if isinstance(entry, dict):
                for key in entry:
                    if key not in ("repository", "limits"):
                        raise self.fail(f"unknown key {key!r} (known: repository, limits)", *path, key)
                repository = self._repository(entry.get("repository"), (*path, "repository"))
                own = self._limits(entry.get("limits"), (*path, "limits"), limits)
            else:
                repository, own = self._repository(entry, path), limits
            if repository.lower() in seen:
                raise self.fail(f"{repository} is listed twice", *path)
            seen.add(repository.lower())
            targets.append(Target(repository, own, self.doc.line(*path)))
        return tuple(targets)

    def _query(self, value: Any) -> Query | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail("query is a mapping: org, and optionally topic", "query")
        for key in value:
            if key not in ("org", "topic"):
                raise self.fail(f"unknown key {key!r} (known: org, topic)", "query", key)
        org = value.get("org")
        if not isinstance(org, str) or not OWNER.fullmatch(org):
            raise self.fail(f"query.org {org!r} is not an organisation name", "query", "org")
        topic = value.get("topic")
        if topic is not None and (not isinstance(topic, str) or not TOPIC.fullmatch(topic)):
            raise self.fail(f"query.topic {topic!r}: lowercase letters, digits and hyphens", "query", "topic")
        return Query(org, topic, self.doc.line("query"))
