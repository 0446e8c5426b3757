"""Response bodies of the GitHub stand-in, shaped like GitHub's REST description.

Pure functions from the stand-in's in-memory records to the JSON GitHub would send, one per
schema of ``tests/fixtures/upstream/github-rest-subset.json`` that the stand-in returns
(``simple-user``, ``full-repository``/``repository``, ``issue``, ``issue-comment``,
``pull-request``/``pull-request-simple``, ``pull-request-review-comment``, ``reaction``,
``repository-collaborator-permission``, ``git-ref``, ``check-run``, ``basic-error``,
``validation-error``). Every required field is present with the declared type; URLs point back at
the stand-in (PyGithub follows the ``url`` fields it is given, e.g. to edit a comment).
A test validates every response the stand-in sends against those schemas.
"""

from __future__ import annotations

import base64
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

JSON = dict[str, Any]

REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
DOCS = "https://docs.github.com/rest"


@dataclass(frozen=True, slots=True)
class Urls:
    """Where the stand-in lives: ``api`` ends in ``/api/v3`` (GitHub Enterprise layout)."""

    api: str
    web: str


# ----- records (the stand-in's state; mutable, guarded by the server's lock) ---------------------


@dataclass(slots=True)
class User:
    login: str
    id: int
    type: str = "User"


@dataclass(slots=True)
class Repo:
    owner: User
    name: str
    id: int
    default_branch: str
    private: bool
    created_at: str
    #: Legacy permission and role name per login, e.g. ``{"alice": ("write", "maintain")}``.
    collaborators: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def full_name(self) -> str:
        return f"{self.owner.login}/{self.name}"


@dataclass(slots=True)
class Issue:
    number: int
    id: int
    title: str
    body: str | None
    user: User
    created_at: str
    updated_at: str
    state: str = "open"
    closed_at: str | None = None
    is_pull: bool = False


@dataclass(slots=True)
class Comment:
    id: int
    issue_number: int
    body: str
    user: User
    created_at: str
    updated_at: str


@dataclass(slots=True)
class Pull:
    number: int
    id: int
    title: str
    body: str | None
    user: User
    head_ref: str
    head_repo: Repo
    base_ref: str
    created_at: str
    updated_at: str
    draft: bool = False
    state: str = "open"
    closed_at: str | None = None
    maintainer_can_modify: bool = False


@dataclass(slots=True)
class ReviewComment:
    id: int
    pull_number: int
    body: str
    path: str
    diff_hunk: str
    commit_id: str
    user: User
    created_at: str
    updated_at: str
    in_reply_to: int | None = None
    line: int | None = None
    side: str = "RIGHT"


@dataclass(slots=True)
class Reaction:
    id: int
    content: str
    user: User
    created_at: str
    #: ``("issue", number)``, ``("issue_comment", id)`` or ``("review_comment", id)``.
    subject: tuple[str, int]


@dataclass(slots=True)
class CheckRun:
    id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    started_at: str | None
    completed_at: str | None
    details_url: str | None = None
    external_id: str | None = None
    output: JSON = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PullStats:
    head_sha: str
    base_sha: str
    commits: int = 0
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0


# ----- builders ------------------------------------------------------------------------------------


def node_id(kind: str, ident: int) -> str:
    return base64.b64encode(f"{kind}{ident}".encode()).decode()


def user_json(user: User, urls: Urls) -> JSON:
    api = f"{urls.api}/users/{quote(user.login)}"
    return {
        "login": user.login,
        "id": user.id,
        "node_id": node_id("04:User", user.id),
        "avatar_url": f"{urls.web}/avatars/u/{user.id}",
        "gravatar_id": "",
        "url": api,
        "html_url": f"{urls.web}/{quote(user.login)}",
        "followers_url": f"{api}/followers",
        "following_url": f"{api}/following{{/other_user}}",
        "gists_url": f"{api}/gists{{/gist_id}}",
        "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{api}/subscriptions",
        "organizations_url": f"{api}/orgs",
        "repos_url": f"{api}/repos",
        "events_url": f"{api}/events{{/privacy}}",
        "received_events_url": f"{api}/received_events",
        "type": user.type,
        "site_admin": False,
    }


# (field, suffix) of a repository's hypermedia URLs, as GitHub spells them.
_REPO_LINKS = (
    ("archive_url", "/{archive_format}{/ref}"),
    ("assignees_url", "/assignees{/user}"),
    ("blobs_url", "/git/blobs{/sha}"),
    ("branches_url", "/branches{/branch}"),
    ("collaborators_url", "/collaborators{/collaborator}"),
    ("comments_url", "/comments{/number}"),
    ("commits_url", "/commits{/sha}"),
    ("compare_url", "/compare/{base}...{head}"),
    ("contents_url", "/contents/{+path}"),
    ("contributors_url", "/contributors"),
    ("deployments_url", "/deployments"),
    ("downloads_url", "/downloads"),
    ("events_url", "/events"),
    ("forks_url", "/forks"),
    ("git_commits_url", "/git/commits{/sha}"),
    ("git_refs_url", "/git/refs{/sha}"),
    ("git_tags_url", "/git/tags{/sha}"),
    ("hooks_url", "/hooks"),
    ("issue_comment_url", "/issues/comments{/number}"),
    ("issue_events_url", "/issues/events{/number}"),
    ("issues_url", "/issues{/number}"),
    ("keys_url", "/keys{/key_id}"),
    ("labels_url", "/labels{/name}"),
    ("languages_url", "/languages"),
    ("merges_url", "/merges"),
    ("milestones_url", "/milestones{/number}"),
    ("notifications_url", "/notifications{?since,all,participating}"),
    ("pulls_url", "/pulls{/number}"),
    ("releases_url", "/releases{/id}"),
    ("stargazers_url", "/stargazers"),
    ("statuses_url", "/statuses/{sha}"),
    ("subscribers_url", "/subscribers"),
    ("subscription_url", "/subscription"),
    ("tags_url", "/tags"),
    ("teams_url", "/teams"),
    ("trees_url", "/git/trees{/sha}"),
)


def repo_json(repo: Repo, urls: Urls, *, open_issues: int = 0) -> JSON:
    """Both ``full-repository`` and ``repository`` (the union of their required fields)."""
    api = f"{urls.api}/repos/{repo.full_name}"
    host = urls.web.split("://", 1)[-1]
    data: JSON = {
        "id": repo.id,
        "node_id": node_id("010:Repository", repo.id),
        "name": repo.name,
        "full_name": repo.full_name,
        "owner": user_json(repo.owner, urls),
        "private": repo.private,
        "html_url": f"{urls.web}/{repo.full_name}",
        "description": None,
        "fork": False,
        "url": api,
    }
    data.update({name: f"{api}{suffix}" for name, suffix in _REPO_LINKS})
    data.update(
        {
            "git_url": f"git://{host}/{repo.full_name}.git",
            "ssh_url": f"git@{host}:{repo.full_name}.git",
            "clone_url": f"{urls.web}/{repo.full_name}.git",
            "svn_url": f"{urls.web}/{repo.full_name}",
            "mirror_url": None,
            "homepage": None,
            "language": None,
            "forks_count": 0,
            "forks": 0,
            "stargazers_count": 0,
            "watchers_count": 0,
            "watchers": 0,
            "size": 0,
            "default_branch": repo.default_branch,
            "open_issues_count": open_issues,
            "open_issues": open_issues,
            "is_template": False,
            "topics": [],
            "has_issues": True,
            "has_projects": True,
            "has_wiki": True,
            "has_pages": False,
            "has_downloads": True,
            "has_discussions": False,
            "archived": False,
            "disabled": False,
            "visibility": "private" if repo.private else "public",
            "pushed_at": repo.created_at,
            "created_at": repo.created_at,
            "updated_at": repo.created_at,
            "permissions": {"admin": True, "maintain": True, "push": True, "triage": True, "pull": True},
            "allow_rebase_merge": True,
            "allow_squash_merge": True,
            "allow_merge_commit": True,
            "license": None,
            "network_count": 0,
            "subscribers_count": 0,
        }
    )
    return data


def issue_json(repo: Repo, issue: Issue, urls: Urls, *, comments: int) -> JSON:
    api = f"{urls.api}/repos/{repo.full_name}"
    url = f"{api}/issues/{issue.number}"
    kind = "pull" if issue.is_pull else "issues"
    data: JSON = {
        "id": issue.id,
        "node_id": node_id("05:Issue", issue.id),
        "url": url,
        "repository_url": api,
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": f"{urls.web}/{repo.full_name}/{kind}/{issue.number}",
        "number": issue.number,
        "state": issue.state,
        "state_reason": None,
        "title": issue.title,
        "body": issue.body,
        "user": user_json(issue.user, urls),
        "labels": [],
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "locked": False,
        "active_lock_reason": None,
        "comments": comments,
        "closed_at": issue.closed_at,
        "created_at": issue.created_at,
        "updated_at": issue.updated_at,
        "author_association": association(repo, issue.user),
    }
    if issue.is_pull:
        pulls = f"{api}/pulls/{issue.number}"
        web = f"{urls.web}/{repo.full_name}/pull/{issue.number}"
        data["pull_request"] = {
            "url": pulls,
            "html_url": web,
            "diff_url": f"{web}.diff",
            "patch_url": f"{web}.patch",
            "merged_at": None,
        }
    return data


def association(repo: Repo, user: User) -> str:
    if user.login == repo.owner.login:
        return "OWNER"
    permission = repo.collaborators.get(user.login, ("none", ""))[0]
    return "COLLABORATOR" if permission in ("admin", "write") else "NONE"


def comment_json(repo: Repo, comment: Comment, urls: Urls, *, reactions: dict[str, int]) -> JSON:
    api = f"{urls.api}/repos/{repo.full_name}"
    url = f"{api}/issues/comments/{comment.id}"
    return {
        "id": comment.id,
        "node_id": node_id("012:IssueComment", comment.id),
        "url": url,
        "html_url": f"{urls.web}/{repo.full_name}/issues/{comment.issue_number}#issuecomment-{comment.id}",
        "body": comment.body,
        "user": user_json(comment.user, urls),
        "created_at": comment.created_at,
        "updated_at": comment.updated_at,
        "issue_url": f"{api}/issues/{comment.issue_number}",
        "author_association": association(repo, comment.user),
        "reactions": rollup(f"{url}/reactions", reactions),
    }


def rollup(url: str, counts: dict[str, int]) -> JSON:
    data: JSON = {"url": url, "total_count": sum(counts.values())}
    data.update({name: counts.get(name, 0) for name in REACTIONS})
    return data


def _branch(repo: Repo, ref: str, sha: str, urls: Urls) -> JSON:
    return {
        "label": f"{repo.owner.login}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": user_json(repo.owner, urls),
        "repo": repo_json(repo, urls),
    }


def _link(href: str) -> JSON:
    return {"href": href}


def pull_json(
    repo: Repo, pull: Pull, urls: Urls, stats: PullStats, *, comments: int, review_comments: int, full: bool = True
) -> JSON:
    """``pull-request`` (``full``) or ``pull-request-simple`` (the list endpoint's items)."""
    api = f"{urls.api}/repos/{repo.full_name}"
    url = f"{api}/pulls/{pull.number}"
    issue = f"{api}/issues/{pull.number}"
    web = f"{urls.web}/{repo.full_name}/pull/{pull.number}"
    statuses = f"{api}/statuses/{stats.head_sha}"
    data: JSON = {
        "url": url,
        "id": pull.id,
        "node_id": node_id("011:PullRequest", pull.id),
        "html_url": web,
        "diff_url": f"{web}.diff",
        "patch_url": f"{web}.patch",
        "issue_url": issue,
        "commits_url": f"{url}/commits",
        "review_comments_url": f"{url}/comments",
        "review_comment_url": f"{api}/pulls/comments{{/number}}",
        "comments_url": f"{issue}/comments",
        "statuses_url": statuses,
        "number": pull.number,
        "state": pull.state,
        "locked": False,
        "title": pull.title,
        "user": user_json(pull.user, urls),
        "body": pull.body,
        "labels": [],
        "milestone": None,
        "active_lock_reason": None,
        "created_at": pull.created_at,
        "updated_at": pull.updated_at,
        "closed_at": pull.closed_at,
        "merged_at": None,
        "merge_commit_sha": None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "head": _branch(pull.head_repo, pull.head_ref, stats.head_sha, urls),
        "base": _branch(repo, pull.base_ref, stats.base_sha, urls),
        "_links": {
            "self": _link(url),
            "html": _link(web),
            "issue": _link(issue),
            "comments": _link(f"{issue}/comments"),
            "review_comments": _link(f"{url}/comments"),
            "review_comment": _link(f"{api}/pulls/comments{{/number}}"),
            "commits": _link(f"{url}/commits"),
            "statuses": _link(statuses),
        },
        "author_association": association(repo, pull.user),
        "auto_merge": None,
        "draft": pull.draft,
    }
    if full:
        data.update(
            {
                "merged": False,
                "mergeable": None,
                "rebaseable": None,
                "mergeable_state": "unknown",
                "merged_by": None,
                "comments": comments,
                "review_comments": review_comments,
                "maintainer_can_modify": pull.maintainer_can_modify,
                "commits": stats.commits,
                "additions": stats.additions,
                "deletions": stats.deletions,
                "changed_files": stats.changed_files,
            }
        )
    return data


def review_comment_json(repo: Repo, comment: ReviewComment, urls: Urls, *, reactions: dict[str, int]) -> JSON:
    api = f"{urls.api}/repos/{repo.full_name}"
    url = f"{api}/pulls/comments/{comment.id}"
    web = f"{urls.web}/{repo.full_name}/pull/{comment.pull_number}#discussion_r{comment.id}"
    pull_url = f"{api}/pulls/{comment.pull_number}"
    data: JSON = {
        "url": url,
        "pull_request_review_id": comment.id,
        "id": comment.id,
        "node_id": node_id("024:PullRequestReviewComment", comment.id),
        "diff_hunk": comment.diff_hunk,
        "path": comment.path,
        "commit_id": comment.commit_id,
        "original_commit_id": comment.commit_id,
        "user": user_json(comment.user, urls),
        "body": comment.body,
        "created_at": comment.created_at,
        "updated_at": comment.updated_at,
        "html_url": web,
        "pull_request_url": pull_url,
        "author_association": association(repo, comment.user),
        "_links": {"self": _link(url), "html": _link(web), "pull_request": _link(pull_url)},
        "start_line": None,
        "original_start_line": None,
        "start_side": None,
        "side": comment.side,
        "subject_type": "line",
        "reactions": rollup(f"{url}/reactions", reactions),
    }
    if comment.line is not None:
        data["line"] = data["original_line"] = comment.line
    if comment.in_reply_to is not None:
        data["in_reply_to_id"] = comment.in_reply_to
    return data


def reaction_json(reaction: Reaction, urls: Urls) -> JSON:
    return {
        "id": reaction.id,
        "node_id": node_id("08:Reaction", reaction.id),
        "user": user_json(reaction.user, urls),
        "content": reaction.content,
        "created_at": reaction.created_at,
    }


def permission_json(permission: str, role_name: str, user: User, urls: Urls) -> JSON:
    data = user_json(user, urls)
    data["role_name"] = role_name
    data["permissions"] = {
        "admin": permission == "admin",
        "maintain": role_name in ("admin", "maintain"),
        "push": permission in ("admin", "write"),
        "triage": permission != "none",
        "pull": permission != "none",
    }
    return {"permission": permission, "role_name": role_name, "user": data}


def ref_json(repo: Repo, ref: str, sha: str, urls: Urls) -> JSON:
    api = f"{urls.api}/repos/{repo.full_name}"
    ident = zlib.crc32(f"{repo.full_name}:{ref}".encode())
    return {
        "ref": f"refs/{ref}",
        "node_id": node_id("03:Ref", ident),
        "url": f"{api}/git/refs/{ref}",
        "object": {"type": "commit", "sha": sha, "url": f"{api}/git/commits/{sha}"},
    }


def check_run_json(repo: Repo, run: CheckRun, urls: Urls) -> JSON:
    api = f"{urls.api}/repos/{repo.full_name}"
    url = f"{api}/check-runs/{run.id}"
    output = run.output
    return {
        "id": run.id,
        "head_sha": run.head_sha,
        "node_id": node_id("08:CheckRun", run.id),
        "external_id": run.external_id,
        "url": url,
        "html_url": f"{urls.web}/{repo.full_name}/runs/{run.id}",
        "details_url": run.details_url,
        "status": run.status,
        "conclusion": run.conclusion,
        "started_at": run.started_at,
        "completed_at": run.completed_at,
        "output": {
            "title": output.get("title"),
            "summary": output.get("summary"),
            "text": output.get("text"),
            "annotations_count": len(output.get("annotations") or []),
            "annotations_url": f"{url}/annotations",
        },
        "name": run.name,
        "check_suite": {"id": run.id},
        "app": None,
        "pull_requests": [],
    }


def error_json(message: str, status: int) -> JSON:
    """``basic-error``: GitHub's body for 401/403/404/5xx."""
    return {"message": message, "documentation_url": DOCS, "status": str(status)}


def validation_json(message: str, *errors: JSON) -> JSON:
    """``validation-error``: GitHub's 422 body."""
    return {"message": message, "documentation_url": DOCS, "errors": list(errors)}
