"""The stand-in's operations: one function per operationId of GitHub's REST description.

``ROUTES`` maps a method and a path under ``/api/v3`` to the operationId and its implementation.
Operations get a ``Call`` (the repository, path parameters, query, JSON body and the authenticated
user) over the ``Store`` (:mod:`bot.testing.github_standin_store`) and return
``(status, body[, headers])`` or raise ``Reply`` with GitHub's error shape. The caller holds the lock.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from bot.testing.github_standin_shapes import (
    JSON,
    REACTIONS,
    CheckRun,
    Comment,
    Issue,
    Pull,
    Reaction,
    ReviewComment,
    check_run_json,
    comment_json,
    issue_json,
    permission_json,
    pull_json,
    reaction_json,
    ref_json,
    repo_json,
    review_comment_json,
    validation_json,
)
from bot.testing.github_standin_store import (
    Call,
    Operation,
    Reply,
    Result,
    invalid,
    not_found,
    now,
    paginate,
)

API_PREFIX = "/api/v3"


def _repo_url(call: Call) -> str:
    return f"{call.store.urls.api}/repos/{call.state.repo.full_name}"


def _get_repo(call: Call) -> Result:
    open_issues = sum(1 for i in call.state.issues.values() if i.state == "open")
    return 200, repo_json(call.state.repo, call.store.urls, open_issues=open_issues)


def _issue_of(call: Call) -> Issue:
    issue = call.state.issues.get(call.number("issue_number"))
    if issue is None:
        raise not_found()
    return issue


def _issue_data(call: Call, issue: Issue) -> JSON:
    count = sum(1 for c in call.state.comments.values() if c.issue_number == issue.number)
    return issue_json(call.state.repo, issue, call.store.urls, comments=count)


def _get_issue(call: Call) -> Result:
    return 200, _issue_data(call, _issue_of(call))


def _comment_data(call: Call, comment: Comment) -> JSON:
    counts = call.store.reaction_counts("issue_comment", comment.id)
    return comment_json(call.state.repo, comment, call.store.urls, reactions=counts)


def _list_comments(call: Call) -> Result:
    issue = _issue_of(call)
    items = [_comment_data(call, c) for c in call.state.comments.values() if c.issue_number == issue.number]
    return paginate(call, items, f"{_repo_url(call)}/issues/{issue.number}/comments")


def _create_comment(call: Call) -> Result:
    issue = _issue_of(call)
    body = call.text("body", required=True) or ""
    comment = call.store.new_comment(call.state, issue.number, body, call.user)
    data = _comment_data(call, comment)
    return 201, data, {"Location": data["url"]}


def _comment_of(call: Call) -> Comment:
    comment = call.state.comments.get(call.number("comment_id"))
    if comment is None:
        raise not_found()
    return comment


def _get_comment(call: Call) -> Result:
    return 200, _comment_data(call, _comment_of(call))


def _update_comment(call: Call) -> Result:
    comment = _comment_of(call)
    comment.body = call.text("body", required=True) or ""
    comment.updated_at = now()
    return 200, _comment_data(call, comment)


def _pull_data(call: Call, pull: Pull, *, full: bool = True) -> JSON:
    state = call.state
    comments = sum(1 for c in state.comments.values() if c.issue_number == pull.number)
    reviews = sum(1 for c in state.review_comments.values() if c.pull_number == pull.number)
    return pull_json(
        state.repo,
        pull,
        call.store.urls,
        call.store.stats(state, pull),
        comments=comments,
        review_comments=reviews,
        full=full,
    )


def _list_pulls(call: Call) -> Result:
    wanted = call.arg("state") or "open"
    if wanted not in ("open", "closed", "all"):
        raise invalid("state must be open, closed or all", "PullRequest", "state")
    head = call.arg("head")
    base = call.arg("base")
    pulls = []
    for pull in call.state.pulls.values():
        if wanted != "all" and pull.state != wanted:
            continue
        # GitHub ignores a head filter that lacks the "owner:" part and lists every PR.
        if head and ":" in head and head != f"{pull.head_repo.owner.login}:{pull.head_ref}":
            continue
        if base and pull.base_ref != base:
            continue
        pulls.append(pull)
    pulls.sort(key=lambda p: p.number, reverse=(call.arg("direction") or "desc") == "desc")
    return paginate(call, [_pull_data(call, p, full=False) for p in pulls], f"{_repo_url(call)}/pulls")


def _create_pull(call: Call) -> Result:
    head = call.text("head", required=True) or ""
    base = call.text("base", required=True) or ""
    title = call.text("title")
    if title is None:
        raise invalid("title is required", "PullRequest", "title", "missing_field")
    state = call.state
    owner, _, branch = head.rpartition(":")
    head_repo = call.text("head_repo")
    head_state = state
    if head_repo:
        head_state = call.store.repos.get(head_repo.lower()) or state
    elif owner and owner.lower() != state.repo.owner.login.lower():
        head_state = call.store.repos.get(f"{owner}/{state.repo.name}".lower()) or head_state
        if head_state is state:
            raise invalid(f"no fork of {state.repo.full_name} owned by {owner}", "PullRequest", "head")
    head_sha = call.store.branch_sha(head_state, branch)
    base_sha = call.store.branch_sha(state, base)
    if base_sha is None:
        raise invalid(f"base branch {base!r} does not exist", "PullRequest", "base")
    if head_sha is None:
        raise invalid(f"head branch {branch!r} does not exist", "PullRequest", "head")
    if head_sha == base_sha:
        raise Reply(
            422,
            validation_json(
                "Validation Failed",
                {"resource": "PullRequest", "code": "custom", "message": f"No commits between {base} and {branch}"},
            ),
        )
    for pull in state.pulls.values():
        if (
            pull.state == "open"
            and pull.head_ref == branch
            and pull.head_repo is head_state.repo
            and pull.base_ref == base
        ):
            raise Reply(
                422,
                validation_json(
                    "Validation Failed",
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": f"A pull request already exists for {head_state.repo.owner.login}:{branch}.",
                    },
                ),
            )
    draft = bool(call.field("draft"))
    pull = call.store.new_pull(state, head_state, branch, base, title, call.text("body"), call.user, draft)
    pull.maintainer_can_modify = bool(call.field("maintainer_can_modify"))
    data = _pull_data(call, pull)
    return 201, data, {"Location": data["url"]}


def _pull_of(call: Call) -> Pull:
    pull = call.state.pulls.get(call.number("pull_number"))
    if pull is None:
        raise not_found()
    return pull


def _get_pull(call: Call) -> Result:
    return 200, _pull_data(call, _pull_of(call))


def _update_pull(call: Call) -> Result:
    pull = _pull_of(call)
    issue = call.state.issues[pull.number]
    if (title := call.text("title")) is not None:
        pull.title = issue.title = title
    if isinstance(call.body, dict) and "body" in call.body:
        pull.body = issue.body = call.text("body")
    if (wanted := call.text("state")) is not None:
        if wanted not in ("open", "closed"):
            raise invalid("state must be open or closed", "PullRequest", "state")
        pull.state = issue.state = wanted
        pull.closed_at = issue.closed_at = now() if wanted == "closed" else None
    if (base := call.text("base")) is not None:
        if call.store.branch_sha(call.state, base) is None:
            raise invalid(f"base branch {base!r} does not exist", "PullRequest", "base")
        pull.base_ref = base
    pull.updated_at = issue.updated_at = now()
    return 200, _pull_data(call, pull)


def _review_data(call: Call, comment: ReviewComment) -> JSON:
    return review_comment_json(
        call.state.repo, comment, call.store.urls, reactions=call.store.reaction_counts("review_comment", comment.id)
    )


def _list_review_comments(call: Call) -> Result:
    pull = _pull_of(call)
    items = [_review_data(call, c) for c in call.state.review_comments.values() if c.pull_number == pull.number]
    return paginate(call, items, f"{_repo_url(call)}/pulls/{pull.number}/comments")


def _create_review_comment(call: Call) -> Result:
    pull = _pull_of(call)
    body = call.text("body", required=True) or ""
    reply_to = call.field("in_reply_to")
    if isinstance(reply_to, int):
        return _reply(call, pull, reply_to, body)
    path = call.text("path", required=True) or ""
    commit = call.text("commit_id", required=True) or ""
    line = call.field("line") if isinstance(call.field("line"), int) else None
    stamp = now()
    comment = ReviewComment(
        call.store.next_id(),
        pull.number,
        body,
        path,
        "@@ -1 +1 @@",
        commit,
        call.user,
        stamp,
        stamp,
        line=line,
        side=call.text("side") or "RIGHT",
    )
    call.state.review_comments[comment.id] = comment
    data = _review_data(call, comment)
    return 201, data, {"Location": data["url"]}


def _reply(call: Call, pull: Pull, parent_id: int, body: str) -> Result:
    parent = call.state.review_comments.get(parent_id)
    if parent is None or parent.pull_number != pull.number:
        raise not_found()
    root = parent.in_reply_to or parent.id  # replies join the thread of its first comment
    comment = ReviewComment(
        call.store.next_id(),
        pull.number,
        body,
        parent.path,
        parent.diff_hunk,
        parent.commit_id,
        call.user,
        now(),
        now(),
        in_reply_to=root,
        line=parent.line,
        side=parent.side,
    )
    call.state.review_comments[comment.id] = comment
    data = _review_data(call, comment)
    return 201, data, {"Location": data["url"]}


def _create_reply(call: Call) -> Result:
    return _reply(call, _pull_of(call), call.number("comment_id"), call.text("body", required=True) or "")


def _permission(call: Call) -> Result:
    login = unquote(call.params["username"])
    user = next((u for name, u in call.store.users.items() if name.lower() == login.lower()), None)
    if user is None:
        raise not_found()
    repo = call.state.repo
    if user.login == repo.owner.login:
        legacy, role = "admin", "admin"
    else:
        default = ("none", "none") if repo.private else ("read", "read")
        legacy, role = repo.collaborators.get(user.login, default)
    return 200, permission_json(legacy, role, user, call.store.urls)


def _react(call: Call, subject: tuple[str, int]) -> Result:
    content = call.text("content", required=True)
    if content not in REACTIONS:
        raise invalid(f"content must be one of {', '.join(REACTIONS)}", "Reaction", "content")
    for reaction in call.store.reactions:
        if reaction.subject == subject and reaction.content == content and reaction.user is call.user:
            return 200, reaction_json(reaction, call.store.urls)
    reaction = Reaction(call.store.next_id(), content, call.user, now(), subject)
    call.store.reactions.append(reaction)
    return 201, reaction_json(reaction, call.store.urls)


def _react_issue_comment(call: Call) -> Result:
    return _react(call, ("issue_comment", _comment_of(call).id))


def _react_issue(call: Call) -> Result:
    return _react(call, ("issue", _issue_of(call).number))


def _react_review_comment(call: Call) -> Result:
    comment = call.state.review_comments.get(call.number("comment_id"))
    if comment is None:
        raise not_found()
    return _react(call, ("review_comment", comment.id))


def _list_comment_reactions(call: Call) -> Result:
    comment = _comment_of(call)
    content = call.arg("content")
    items = [
        reaction_json(r, call.store.urls)
        for r in call.store.reactions
        if r.subject == ("issue_comment", comment.id) and content in (None, r.content)
    ]
    return paginate(call, items, f"{_repo_url(call)}/issues/comments/{comment.id}/reactions")


def _get_ref(call: Call) -> Result:
    ref = unquote(call.params["ref"]).removeprefix("refs/")
    sha = call.store.branch_sha(call.state, ref.removeprefix("heads/")) if ref.startswith("heads/") else None
    if sha is None:
        raise not_found()
    return 200, ref_json(call.state.repo, ref, sha, call.store.urls)


def _check_fields(call: Call, run: CheckRun) -> None:
    body = call.body if isinstance(call.body, dict) else {}
    for name in ("name", "details_url", "external_id", "started_at", "completed_at", "status", "conclusion"):
        if name in body:
            value = call.text(name)
            setattr(run, name, value)
    if isinstance(body.get("output"), dict):
        run.output = dict(body["output"])
    if "conclusion" in body and run.conclusion is not None:
        run.status = "completed"
        run.completed_at = run.completed_at or now()
    if run.status == "completed" and run.conclusion is None:
        raise invalid("conclusion is required when status is completed", "CheckRun", "conclusion", "missing_field")


def _create_check_run(call: Call) -> Result:
    name = call.text("name", required=True) or ""
    run = CheckRun(call.store.next_id(), name, call.text("head_sha", required=True) or "", "queued", None, now(), None)
    _check_fields(call, run)
    call.state.check_runs[run.id] = run
    return 201, check_run_json(call.state.repo, run, call.store.urls)


def _update_check_run(call: Call) -> Result:
    run = call.state.check_runs.get(call.number("check_run_id"))
    if run is None:
        raise not_found()
    _check_fields(call, run)
    return 200, check_run_json(call.state.repo, run, call.store.urls)


_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
#: (method, path under /api/v3, operationId of the REST description, implementation)
ROUTES: tuple[tuple[str, str, str, Operation], ...] = (
    ("GET", "", "repos/get", _get_repo),
    ("GET", "/issues/(?P<issue_number>[^/]+)", "issues/get", _get_issue),
    ("GET", "/issues/(?P<issue_number>[^/]+)/comments", "issues/list-comments", _list_comments),
    ("POST", "/issues/(?P<issue_number>[^/]+)/comments", "issues/create-comment", _create_comment),
    ("GET", "/issues/comments/(?P<comment_id>[^/]+)", "issues/get-comment", _get_comment),
    ("PATCH", "/issues/comments/(?P<comment_id>[^/]+)", "issues/update-comment", _update_comment),
    ("GET", "/pulls", "pulls/list", _list_pulls),
    ("POST", "/pulls", "pulls/create", _create_pull),
    ("GET", "/pulls/(?P<pull_number>[^/]+)", "pulls/get", _get_pull),
    ("PATCH", "/pulls/(?P<pull_number>[^/]+)", "pulls/update", _update_pull),
    ("GET", "/pulls/(?P<pull_number>[^/]+)/comments", "pulls/list-review-comments", _list_review_comments),
    ("POST", "/pulls/(?P<pull_number>[^/]+)/comments", "pulls/create-review-comment", _create_review_comment),
    (
        "POST",
        "/pulls/(?P<pull_number>[^/]+)/comments/(?P<comment_id>[^/]+)/replies",
        "pulls/create-reply-for-review-comment",
        _create_reply,
    ),
    ("GET", "/collaborators/(?P<username>[^/]+)/permission", "repos/get-collaborator-permission-level", _permission),
    (
        "GET",
        "/issues/comments/(?P<comment_id>[^/]+)/reactions",
        "reactions/list-for-issue-comment",
        _list_comment_reactions,
    ),
    (
        "POST",
        "/issues/comments/(?P<comment_id>[^/]+)/reactions",
        "reactions/create-for-issue-comment",
        _react_issue_comment,
    ),
    ("POST", "/issues/(?P<issue_number>[^/]+)/reactions", "reactions/create-for-issue", _react_issue),
    (
        "POST",
        "/pulls/comments/(?P<comment_id>[^/]+)/reactions",
        "reactions/create-for-pull-request-review-comment",
        _react_review_comment,
    ),
    ("GET", "/git/ref/(?P<ref>.+)", "git/get-ref", _get_ref),
    ("POST", "/check-runs", "checks/create", _create_check_run),
    ("PATCH", "/check-runs/(?P<check_run_id>[^/]+)", "checks/update", _update_check_run),
)
_COMPILED = tuple((m, re.compile(API_PREFIX + _REPO + p + "/?"), o, f) for m, p, o, f in ROUTES)
#: The operationIds the stand-in implements.
OPERATIONS = tuple(o for _, _, o, _ in ROUTES)


def route(method: str, path: str) -> tuple[str | None, dict[str, str], Operation | None]:
    for verb, pattern, operation, op in _COMPILED:
        match = pattern.fullmatch(path)
        if match and verb == method:
            return operation, match.groupdict(), op
    return None, {}, None
