"""From a GitHub event to a decision: does this event start a run, and what is the task?

A pure function of the event name, its payload and the trigger settings (no API call, no
checkout): ``bot run --dry-run`` prints exactly this. Authorization of the actor against the
collaborator-permission API happens next, in :mod:`bot.github.authorize`.

Supported: ``issue_comment`` (on an issue or a PR), ``pull_request_review_comment``,
``pull_request_review``, ``issues`` (opened / assigned / labeled), ``workflow_dispatch``,
``schedule`` and ``repository_dispatch``; any other event answers "not triggered". Trust: every
string taken from the payload (titles, bodies, comments) is untrusted and only ever becomes quoted
data in the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.core.bounded import MAX_DEPTH, MAX_EVENT_BYTES, load_json
from bot.errors import BotError, ConfigError
from bot.orchestration.branches import slugify

SUPPORTED_EVENTS = (
    "issue_comment",
    "pull_request_review_comment",
    "pull_request_review",
    "issues",
    "workflow_dispatch",
    "schedule",
    "repository_dispatch",
)
DEFAULT_TRIGGER_PHRASE = "@bot"
#: Issue actions that can start a run (with a label or assignee trigger configured).
ISSUE_ACTIONS = ("opened", "assigned", "labeled")


class EventError(BotError):
    """The event payload is malformed or unsupported. The message says which and why."""


@dataclass(frozen=True, slots=True)
class TriggerSettings:
    trigger_phrase: str = DEFAULT_TRIGGER_PHRASE
    #: The bot's own login (``github-actions[bot]`` or an app's): its comments never trigger.
    bot_login: str | None = "github-actions[bot]"
    #: Bots allowed to trigger (still permission-checked). ``*`` allows every bot.
    allowed_bots: frozenset[str] = frozenset()
    #: ``issues`` events trigger only when this label is added / this user is assigned.
    label_trigger: str | None = None
    assignee_trigger: str | None = None
    #: When set, ``issues: opened`` triggers if the body mentions the phrase.
    #: The workflow's own prompt (``workflow_dispatch`` / ``schedule`` when the payload has none).
    prompt: str | None = None
    #: The policy's scheduled task, used by ``schedule`` when the workflow gives no prompt.
    scheduled_task: str | None = None
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class Trigger:
    """What ``bot run --dry-run --json`` prints (the first seven fields), plus what the run needs."""

    triggered: bool
    reason: str
    kind: str
    issue: int | None = None
    pr: int | None = None
    branch: str | None = None
    prompt: str = ""
    # ---- not printed by the dry run -------------------------------------------------------
    event_name: str = ""
    repository: str | None = None
    actor: str | None = None
    actor_is_bot: bool = False
    comment_id: int | None = None
    #: ``issue`` for issue/PR conversation comments, ``review`` for review comments.
    comment_kind: str | None = None
    base_branch: str | None = None
    #: ``owner/name`` of a PR's head repository (differs from ``repository`` for a fork).
    head_repository: str | None = None
    #: Untrusted text for the prompt, each quoted as data: title, body, comment, diff hunk.
    context: dict[str, str] = field(default_factory=dict)
    #: A new comment without the phrase: the text of a possible reply to a pending question.
    reply_text: str | None = None

    @property
    def is_fork(self) -> bool:
        return self.pr is not None and self.head_repository is not None and self.head_repository != self.repository

    def dry_run_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: data[k] for k in ("triggered", "reason", "kind", "issue", "pr", "branch", "prompt")}


def load_event_text(text: str, source: str) -> Any:
    """An event payload (the text of ``GITHUB_EVENT_PATH``, named ``source`` in errors), decoded
    within bounds: GitHub's 25 MB payload cap and :data:`~bot.core.bounded.MAX_DEPTH` levels. A
    payload carries text anyone can write; a malformed or bomb-shaped one is an :class:`EventError`."""
    try:
        return load_json(text, source=source, max_bytes=MAX_EVENT_BYTES, max_depth=MAX_DEPTH)
    except ConfigError as exc:
        raise EventError(f"not a usable event payload: {exc}") from None


def decide_trigger(event_name: str, payload: Any, settings: TriggerSettings = TriggerSettings()) -> Trigger:
    """Whether ``event_name`` with ``payload`` starts a run. Any event GitHub may send answers: one
    the bot does not run on is ``triggered: False`` with a reason (a workflow that also listens to
    ``pull_request`` must not fail its job). A malformed payload of an event the bot reads is an
    :class:`EventError`."""
    if not isinstance(payload, Mapping):
        raise EventError(f"the {event_name} payload must be a JSON object")
    if event_name not in SUPPORTED_EVENTS:
        return _unsupported(event_name, payload)
    match event_name:
        case "issue_comment":
            return _issue_comment(payload, settings)
        case "pull_request_review_comment":
            return _review_comment(payload, settings)
        case "pull_request_review":
            return _review(payload, settings)
        case "issues":
            return _issues(payload, settings)
        case "workflow_dispatch":
            return _dispatch(payload, settings)
        case "schedule":
            return _schedule(payload, settings)
        case _:
            return _repository_dispatch(payload, settings)


def _unsupported(event_name: str, payload: Mapping[str, Any]) -> Trigger:
    actor, is_bot = _login(payload.get("sender"))
    action = payload.get("action")
    what = f"{event_name} ({action})" if isinstance(action, str) else event_name
    return Trigger(
        False,
        f"the bot does not run on {what} events; it runs on {', '.join(SUPPORTED_EVENTS)}",
        kind=event_name,
        event_name=event_name,
        repository=_repo(payload),
        actor=actor,
        actor_is_bot=is_bot,
    )


# ----- mentions ---------------------------------------------------------------------------------


def visible_text(body: str) -> str:
    """What someone *said*: the Markdown as GitHub shows it, without what it hides or marks as not
    a request. Hidden: HTML comments (an unterminated ``<!--`` hides the rest, as a browser does),
    tags with their attributes, code (fenced, indented, inline spans). Not a request: quoted lines
    (a lazy line after a quote still counts). Blocks are found by a CommonMark parser; what is left
    of them is the source text, so links and formatting reach the prompt as written."""
    from markdown_it import MarkdownIt  # only when an event is read

    text = re.sub(r"\r\n?", "\n", body).replace("\x00", "\ufffd")
    lines = text.split("\n")
    shown: list[str] = []
    quoted = 0
    seen: set[tuple[int, int]] = set()
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        if token.type == "blockquote_open":
            quoted += 1
        elif token.type == "blockquote_close":
            quoted -= 1
        if token.type not in ("inline", "html_block") or token.map is None or tuple(token.map) in seen:
            continue  # code blocks, rules, reference definitions: nothing said
        a, b = token.map
        seen.add((a, b))
        if token.type == "html_block":
            if quoted:
                continue
            part, rest_hidden = _visible_html("\n".join(lines[a:b]))
        else:
            part, rest_hidden = _visible_inline("\n".join(ln for ln in lines[a:b] if not ln.lstrip().startswith(">")))
        shown.append(part)
        if rest_hidden:
            break
    return "\n".join(shown)


_TAG = re.compile(r"</?[A-Za-z][^>]*>?")


def _visible_html(chunk: str) -> tuple[str, bool]:
    """An HTML block's shown text: comments and tags go; ``True`` when a comment never ends."""
    out: list[str] = []
    i = 0
    while True:
        start = chunk.find("<!--", i)
        if start < 0:
            out.append(chunk[i:])
            break
        out.append(chunk[i:start])
        end = chunk.find("-->", start + 4)
        if end < 0:
            return _TAG.sub(" ", "".join(out)), True
        out.append(" ")
        i = end + 3
    return _TAG.sub(" ", "".join(out)), False


def _visible_inline(chunk: str) -> tuple[str, bool]:
    """A paragraph's shown text, read left to right as CommonMark does (a tag or a comment that
    starts first wins over a code span); ``True`` when a comment never ends (what follows is
    hidden, or at least not meant: either way, not a request)."""
    from markdown_it.common.html_re import HTML_TAG_RE

    from bot.orchestration.markdown_safety import code_span_end

    out: list[str] = []
    i = 0
    n = len(chunk)
    while i < n:
        c = chunk[i]
        if c == "\\" and i + 1 < n:
            out.append(chunk[i : i + 2])
            i += 2
        elif c == "`":
            end, closed = code_span_end(chunk, i)
            out.append(" " if closed else chunk[i:end])
            i = end
        elif chunk.startswith("<!--", i):
            end = chunk.find("-->", i + 4)
            if end < 0:
                return "".join(out), True
            out.append(" ")
            i = end + 3
        elif c == "<" and (tag := HTML_TAG_RE.match(chunk, i)) is not None:
            out.append(" ")
            i = tag.end()
        else:
            out.append(c)
            i += 1
    return "".join(out), False


def mention_pattern(phrase: str) -> re.Pattern[str]:
    # A mention: not glued to a preceding word or e-mail (`x@bot`), not a longer name (`@botany`).
    return re.compile(rf"(?<![\w@./-]){re.escape(phrase)}(?![\w-])", re.I)


def mentions(body: str | None, phrase: str) -> bool:
    return bool(body) and mention_pattern(phrase).search(visible_text(body or "")) is not None


def instruction(body: str, phrase: str) -> str:
    """The request itself: the visible text with the phrase removed, trimmed."""
    text = mention_pattern(phrase).sub(" ", visible_text(body))
    return re.sub(r"[ \t]+", " ", text).strip()


def issue_branch(number: int, title: str) -> str:
    return f"bot/issue-{number}-{slugify(title)}"


# ----- per event ----------------------------------------------------------------------------------


def _obj(payload: Mapping[str, Any], key: str, event: str) -> Mapping[str, Any]:
    value = payload.get(key)
    if not isinstance(value, Mapping):
        raise EventError(f"the {event} payload has no {key!r} object")
    return value


def _int(obj: Mapping[str, Any], key: str, event: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise EventError(f"the {event} payload's {key!r} must be a number")
    return value


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _login(user: Any) -> tuple[str | None, bool]:
    if not isinstance(user, Mapping):
        return None, False
    login = user.get("login")
    is_bot = user.get("type") == "Bot" or (isinstance(login, str) and login.endswith("[bot]"))
    return (login if isinstance(login, str) else None), is_bot


def _repo(payload: Mapping[str, Any]) -> str | None:
    repo = payload.get("repository")
    name = repo.get("full_name") if isinstance(repo, Mapping) else None
    return name if isinstance(name, str) else None


def _refuse_actor(kind: str, actor: str | None, is_bot: bool, settings: TriggerSettings) -> str | None:
    """Why this actor cannot trigger, before any API call (the bot itself; unlisted bots)."""
    if actor is not None and settings.bot_login and actor.lower() == settings.bot_login.lower():
        return f"the {kind} came from the bot itself ({actor}); the bot never triggers itself"
    if is_bot and "*" not in settings.allowed_bots and (actor or "") not in settings.allowed_bots:
        return f"{actor} is a bot that is not listed in allowed_bots"
    return None


def _comment_trigger(
    event: str,
    kind: str,
    payload: Mapping[str, Any],
    comment: Mapping[str, Any],
    settings: TriggerSettings,
    **known: Any,
) -> Trigger:
    # An edit is the editor's request (the ``sender``; editing someone else's comment takes write
    # access): the run is checked against the editor's permission and credited to them.
    author, author_is_bot = _login(comment.get("user") or payload.get("sender"))
    actor, is_bot = author, author_is_bot
    if payload.get("action") == "edited" and isinstance(payload.get("sender"), Mapping):
        actor, is_bot = _login(payload.get("sender"))
    body = _str(comment.get("body"))
    comment_id = comment.get("id") if isinstance(comment.get("id"), int) else None
    base: dict[str, Any] = dict(
        event_name=event,
        kind=kind,
        repository=_repo(payload),
        actor=actor,
        actor_is_bot=is_bot,
        comment_id=comment_id,
        **known,
    )
    action = payload.get("action")
    if action not in ("created", "edited", "submitted"):
        return Trigger(False, f"{event} action {action!r} does not trigger", **base)
    noun = "review" if kind == "review" else "comment"
    # The bot's own comments never trigger, whoever edits them (the author is checked as an actor).
    refusal = _refuse_actor(noun, actor, is_bot, settings) or _refuse_actor(noun, author, False, settings)
    if refusal:
        return Trigger(False, refusal, **base)
    phrase = settings.trigger_phrase
    if not mentions(body, phrase):
        # It may still answer a question a stored session waits on (docs/sessions.md): the run
        # layer checks, since only the session knows.
        reply = visible_text(body).strip() if action == "created" and kind != "review" else None
        return Trigger(False, f"the {noun} does not mention {phrase}", reply_text=reply or None, **base)
    if action == "edited":
        changes = payload.get("changes")
        before = changes.get("body", {}).get("from") if isinstance(changes, Mapping) else None
        if not isinstance(before, str):
            return Trigger(
                False, f"an edited comment without its previous body cannot show that {phrase} was added", **base
            )
        if mentions(before, phrase):
            return Trigger(False, f"the edit did not add {phrase}: it was already there", **base)
    prompt = instruction(body, phrase)
    context = dict(base.pop("context", {}))
    context["comment"] = body
    where = {
        "issue_comment": "an issue comment",
        "pr_comment": "a pull request comment",
        "review_comment": "a review comment",
        "review": "a review",
    }.get(kind, kind)
    return Trigger(True, f"{actor} mentioned {phrase} in {where}", prompt=prompt, context=context, **base)


def _issue_comment(payload: Mapping[str, Any], settings: TriggerSettings) -> Trigger:
    event = "issue_comment"
    issue = _obj(payload, "issue", event)
    comment = _obj(payload, "comment", event)
    number = _int(issue, "number", event)
    title = _str(issue.get("title"))
    context = {"title": title, "body": issue.get("body") or ""}
    if _is_pull_request(issue.get("pull_request")):
        return _comment_trigger(
            event,
            "pr_comment",
            payload,
            comment,
            settings,
            issue=number,
            pr=number,
            comment_kind="issue",
            context=context,
        )
    return _comment_trigger(
        event,
        "issue_comment",
        payload,
        comment,
        settings,
        issue=number,
        branch=issue_branch(number, title),
        comment_kind="issue",
        context=context,
    )


def _is_pull_request(stub: Any) -> bool:
    """An issue's ``pull_request`` stub: absent or null on plain issues today; old servers sent a
    stub with null URLs on every issue."""
    return isinstance(stub, Mapping) and any(stub.get(k) for k in ("url", "html_url", "diff_url", "patch_url"))


def _pull_request_fields(pr: Mapping[str, Any], event: str) -> dict[str, Any]:
    head = _map(pr.get("head"))
    base = _map(pr.get("base"))
    head_repo = _map(head.get("repo"))
    return dict(
        issue=_int(pr, "number", event),
        pr=_int(pr, "number", event),
        branch=head.get("ref") if isinstance(head.get("ref"), str) else None,
        base_branch=base.get("ref") if isinstance(base.get("ref"), str) else None,
        head_repository=head_repo.get("full_name") if isinstance(head_repo.get("full_name"), str) else None,
        context={"title": str(pr.get("title") or ""), "body": str(pr.get("body") or "")},
    )


def _review_comment(payload: Mapping[str, Any], settings: TriggerSettings) -> Trigger:
    event = "pull_request_review_comment"
    pr = _obj(payload, "pull_request", event)
    comment = _obj(payload, "comment", event)
    fields = _pull_request_fields(pr, event)
    fields["context"]["file"] = str(comment.get("path") or "")
    fields["context"]["diff_hunk"] = str(comment.get("diff_hunk") or "")
    return _comment_trigger(event, "review_comment", payload, comment, settings, comment_kind="review", **fields)


def _review(payload: Mapping[str, Any], settings: TriggerSettings) -> Trigger:
    event = "pull_request_review"
    pr = _obj(payload, "pull_request", event)
    review = _obj(payload, "review", event)
    fields = _pull_request_fields(pr, event)
    trigger = _comment_trigger(event, "review", payload, review, settings, **fields)
    # A review's id is not an issue comment: reactions go on the PR instead.
    return Trigger(**{**asdict(trigger), "comment_id": None, "comment_kind": None})


def _issues(payload: Mapping[str, Any], settings: TriggerSettings) -> Trigger:
    event = "issues"
    issue = _obj(payload, "issue", event)
    number = _int(issue, "number", event)
    title = _str(issue.get("title"))
    body = _str(issue.get("body"))
    actor, is_bot = _login(payload.get("sender"))
    base: dict[str, Any] = dict(
        event_name=event,
        kind="issue",
        issue=number,
        branch=issue_branch(number, title),
        repository=_repo(payload),
        actor=actor,
        actor_is_bot=is_bot,
        context={"title": title, "body": body},
    )
    action = payload.get("action")
    refusal = _refuse_actor("event", actor, is_bot, settings)
    if action not in ISSUE_ACTIONS:
        return Trigger(False, f"issues action {action!r} does not trigger", **base)
    if refusal:
        return Trigger(False, refusal, **base)
    prompt = "Resolve the issue quoted below."
    if action == "labeled":
        label = payload.get("label")
        name = label.get("name") if isinstance(label, Mapping) else None
        if settings.label_trigger and name == settings.label_trigger:
            return Trigger(True, f"label {name!r} was added", prompt=prompt, **base)
        if not settings.label_trigger:
            return Trigger(False, f"label {name!r} was added, but no trigger label is set (label_trigger)", **base)
        return Trigger(False, f"label {name!r} is not the trigger label {settings.label_trigger!r}", **base)
    if action == "assigned":
        assignee, _ = _login(payload.get("assignee"))
        if settings.assignee_trigger and assignee == settings.assignee_trigger:
            return Trigger(True, f"the issue was assigned to {assignee}", prompt=prompt, **base)
        if not settings.assignee_trigger:
            return Trigger(
                False,
                f"the issue was assigned to {assignee}, but no trigger assignee is set (assignee_trigger)",
                **base,
            )
        return Trigger(
            False, f"assignee {assignee!r} is not the trigger assignee {settings.assignee_trigger!r}", **base
        )
    if mentions(f"{title}\n{body}", settings.trigger_phrase):
        return Trigger(
            True,
            f"the new issue mentions {settings.trigger_phrase}",
            prompt=instruction(body, settings.trigger_phrase) or prompt,
            **base,
        )
    return Trigger(False, f"the new issue does not mention {settings.trigger_phrase}", **base)


def _run_branch(kind: str, settings: TriggerSettings, prompt: str | None) -> str:
    """One branch per workflow run (two dispatches never push to one branch); outside Actions, where
    there is no run id, one per prompt."""
    if settings.run_id:
        return f"bot/{kind}-{settings.run_id}"
    return f"bot/{kind}-{slugify(prompt or '')}"


def _dispatch(payload: Mapping[str, Any], settings: TriggerSettings) -> Trigger:
    actor, _ = _login(payload.get("sender"))
    return _dispatched(
        "workflow_dispatch",
        payload,
        settings,
        "inputs",
        "workflow_dispatch without a prompt input (inputs.prompt or the action's prompt)",
        f"{actor or 'someone'} dispatched the workflow with a prompt",
    )


def _schedule(payload: Mapping[str, Any], settings: TriggerSettings) -> Trigger:
    prompt = settings.prompt or settings.scheduled_task
    cron = payload.get("schedule")
    base: dict[str, Any] = dict(
        event_name="schedule",
        kind="schedule",
        repository=_repo(payload),
        branch=_run_branch("scheduled", settings, prompt),
    )
    if not prompt:
        return Trigger(
            False,
            "a scheduled run needs a prompt (the action's prompt input or the policy's bot.scheduled_task)",
            **base,
        )
    return Trigger(True, f"scheduled run ({cron})" if cron else "scheduled run", prompt=prompt.strip(), **base)


def _repository_dispatch(payload: Mapping[str, Any], settings: TriggerSettings) -> Trigger:
    return _dispatched(
        "repository_dispatch",
        payload,
        settings,
        "client_payload",
        "repository_dispatch without client_payload.prompt",
        f"repository_dispatch {payload.get('action')!r}",
    )


def _dispatched(
    event: str, payload: Mapping[str, Any], settings: TriggerSettings, source: str, missing: str, reason: str
) -> Trigger:
    """A dispatch event: its prompt from ``payload[source]["prompt"]`` (or the action's prompt).
    A GITHUB_TOKEN may dispatch a workflow (GitHub's exception to "no runs from the token"): the
    bot dispatching itself would loop, so the actor is refused as for comments."""
    container = payload.get(source)
    prompt = container.get("prompt") if isinstance(container, Mapping) else None
    prompt = prompt if isinstance(prompt, str) and prompt.strip() else settings.prompt
    actor, is_bot = _login(payload.get("sender"))
    base: dict[str, Any] = dict(
        event_name=event,
        kind=event,
        repository=_repo(payload),
        actor=actor,
        actor_is_bot=is_bot,
        branch=_run_branch("dispatch", settings, prompt),
    )
    refusal = _refuse_actor("dispatch", actor, is_bot, settings)
    if refusal:
        return Trigger(False, refusal, **base)
    if not prompt:
        return Trigger(False, missing, **base)
    return Trigger(True, reason, prompt=prompt.strip(), **base)
