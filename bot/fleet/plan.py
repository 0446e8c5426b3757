"""A fleet's plan: the job matrix (one entry per repository the token can push to) and, for every
other repository, why not — checked up front, so a leg never starts only to find it has no access.

:func:`plan_fleet` does the I/O through a :class:`FleetDirectory` (the PyGithub implementation is
:class:`bot.github.fleet_api.PyGithubFleetApi`); :func:`build_plan` is the pure decision. The plan
is JSON: ``matrix`` goes to ``strategy.matrix`` through ``fromJSON``, and the whole plan is handed
to the report job, so a repository that never got a leg is still a row in the report.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.fleet.spec import FleetSpec, Target
from bot.github.fleet_api import RepositoryAccess


class FleetDirectory(Protocol):
    def access(self, repository: str) -> RepositoryAccess: ...

    def search_repositories(self, terms: str) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Plan:
    fleet: str
    max_parallel: int
    legs: tuple[tuple[Target, RepositoryAccess], ...]
    unreachable: tuple[RepositoryAccess, ...]
    #: Where the query's answer came from (``org:x topic:y``), for the report.
    query: str | None = None

    def matrix(self) -> dict[str, Any]:
        """``strategy.matrix``: ``include`` entries, each a repository and its leg's limits."""
        return {"include": [_entry(target, access) for target, access in self.legs]}

    def as_json(self) -> dict[str, Any]:
        return {
            "fleet": self.fleet,
            "max_parallel": self.max_parallel,
            "query": self.query,
            "matrix": self.matrix(),
            "unreachable": [{"repository": a.repository, "reason": a.reason} for a in self.unreachable],
        }

    def access_lines(self) -> list[str]:
        """One line per repository, for the plan job's log and summary."""
        lines = [f"ok      {a.repository}: {a.reason}" for _, a in self.legs]
        lines += [f"refused {a.repository}: {a.reason}" for a in self.unreachable]
        return lines


def _entry(target: Target, access: RepositoryAccess) -> dict[str, Any]:
    owner, _, name = target.repository.partition("/")
    # owner and name apart: actions/create-github-app-token scopes a token by them.
    entry: dict[str, Any] = {"repository": target.repository, "owner": owner, "name": name}
    entry.update({k: v for k, v in target.limits.as_json().items() if v is not None})
    if access.default_branch:
        entry["default_branch"] = access.default_branch
    return entry


def candidates(spec: FleetSpec, found: Sequence[str]) -> list[Target]:
    """The repositories in the file's order, then the query's, less the excluded, each once."""
    out: list[Target] = []
    seen: set[str] = set()
    for target in (*spec.targets, *(spec.target(name) for name in found)):
        key = target.repository.lower()
        if key in seen or key in spec.exclude:
            continue
        seen.add(key)
        out.append(target)
    return out


def build_plan(spec: FleetSpec, targets: Sequence[Target], access: Sequence[RepositoryAccess]) -> Plan:
    """Pure: split the targets by their access verdicts (same order as ``targets``)."""
    legs = tuple((t, a) for t, a in zip(targets, access, strict=True) if a.reachable)
    unreachable = tuple(a for a in access if not a.reachable)
    return Plan(spec.name, spec.max_parallel, legs, unreachable, spec.query.search_terms() if spec.query else None)


def plan_fleet(spec: FleetSpec, directory: FleetDirectory) -> Plan:
    found = directory.search_repositories(spec.query.search_terms()) if spec.query else []
    targets = candidates(spec, found)
    return build_plan(spec, targets, [directory.access(t.repository) for t in targets])


def load_plan(text: str, source: str) -> dict[str, Any]:
    """A plan written by ``bot fleet plan --plan-file`` (the report job reads it back)."""
    from bot.core.bounded import load_json
    from bot.errors import ConfigError

    data = load_json(text, source=source)
    if not isinstance(data, dict) or not isinstance(data.get("matrix"), dict):
        raise ConfigError(f"{source}: not a fleet plan (no 'matrix')")
    return data


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
