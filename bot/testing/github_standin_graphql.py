"""The stand-in's GraphQL endpoint: the two mutations REST has no verb for, a pull request's draft
state (``markPullRequestReadyForReview``, ``convertPullRequestToDraft``), as PyGithub sends them.

GitHub answers a GraphQL error with HTTP 200 and an ``errors`` list; so does this.
"""

from __future__ import annotations

import re
from typing import Any

from bot.testing.github_standin_shapes import node_id
from bot.testing.github_standin_store import Store, now

#: Where PyGithub posts GraphQL for an Enterprise-style ``base_url`` ending in ``/api/v3``.
GRAPHQL_PATH = "/api/graphql"
#: Mutation -> the draft state it leaves the pull request in.
MUTATIONS = {"markPullRequestReadyForReview": False, "convertPullRequestToDraft": True}
#: Operation names for :meth:`GitHubStandIn.fail` and the request log.
GRAPHQL_OPERATIONS = tuple(f"graphql/{name}" for name in MUTATIONS)

_MUTATION = re.compile(r"\bmutation\b[^{]*\{\s*(\w+)\s*\(")


def graphql_operation(body: Any) -> str:
    """``graphql/<mutation>`` for a request the stand-in knows, else ``graphql``."""
    query = body.get("query") if isinstance(body, dict) else None
    found = _MUTATION.search(query) if isinstance(query, str) else None
    return f"graphql/{found.group(1)}" if found and found.group(1) in MUTATIONS else "graphql"


def answer_graphql(store: Store, body: Any) -> tuple[int, Any]:
    operation = graphql_operation(body)
    if operation == "graphql":
        return 200, _error("the stand-in answers only the draft-state mutations", "UNSUPPORTED")
    name = operation.removeprefix("graphql/")
    variables = body.get("variables") if isinstance(body, dict) else None
    given = variables.get("input") if isinstance(variables, dict) else None
    if not isinstance(given, dict):
        return 200, _error("the mutation needs an input", "INVALID")
    ident = given.get("pullRequestId")
    for state in store.repos.values():
        for pull in state.pulls.values():
            if node_id("011:PullRequest", pull.id) == ident:
                pull.draft = MUTATIONS[name]
                pull.updated_at = state.issues[pull.number].updated_at = now()
                payload = {"clientMutationId": given.get("clientMutationId"), "pullRequest": {"isDraft": pull.draft}}
                return 200, {"data": {name: payload}}
    return 200, {
        "data": {name: None},
        **_error(f"Could not resolve to a node with the global id of '{ident}'", "NOT_FOUND"),
    }


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"errors": [{"type": kind, "message": message, "locations": [{"line": 1, "column": 1}]}]}


__all__ = ["GRAPHQL_OPERATIONS", "GRAPHQL_PATH", "MUTATIONS", "answer_graphql", "graphql_operation"]
