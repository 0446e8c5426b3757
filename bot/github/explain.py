"""The GitHub side of ``bot policy explain``: an event's trigger explained, and ``@bot explain``.

With an event, :func:`explain_trigger` says whether it starts a run, for whom, and on which branch
the work would land — :func:`bot.github.events.decide_trigger`'s decision, the one a run makes;
the event name comes from the caller or, like GitHub's own webhook routing, from the payload's shape.

``@bot explain``: the answer is the policy's explanation, posted on the thread, with no model call.

The policy explained is the one a run would use: the workflow's policies plus the repository's
own policy file, read from the default branch (never from a pull request's head), through the same
:func:`bot.orchestration.session.policy_layers` a run calls. Only someone the run would accept
(authorized before this is reached) gets the answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.github.events import EventError

#: The instruction that asks for the explanation (after the trigger phrase, case-insensitive).
COMMAND = "explain"


def is_explain_request(trigger: Any) -> bool:
    prompt = (getattr(trigger, "prompt", None) or "").strip().rstrip(".!?").strip().lower()
    return prompt == COMMAND and getattr(trigger, "issue", None) is not None


async def answer_explain(run: Any, trigger: Any, api: Any) -> int:
    """Post the explanation as a comment on the issue or pull request; 0 when it was posted."""
    import anyio

    from bot.core.secrets import secret
    from bot.explain.compute import explain_policy
    from bot.explain.render import render_markdown
    from bot.github.outputs import write_outputs, write_step_summary
    from bot.orchestration.git import GitWorkspace
    from bot.orchestration.session import TrustedFiles, policy_layers

    def trusted_files() -> TrustedFiles:
        git = GitWorkspace(run.config.workspace.resolve(), token=secret("GITHUB_TOKEN"), private=(run.output_dir,))
        base = api.default_branch()
        git.fetch(base)
        return TrustedFiles(lambda path: git.read_file(base, path), f"the default branch ({base})")

    trusted = await anyio.to_thread.run_sync(trusted_files)
    layers, _ = policy_layers(run.config, trusted)
    explanation = await explain_policy(
        layers, workspace=run.config.workspace, allow=list(run.config.allow), deny=list(run.config.deny)
    )
    where = f"pull request #{trigger.pr}" if trigger.pr is not None else f"issue #{trigger.issue}"
    body = render_markdown(explanation, title=f"What I may do here ({trusted.label})") + (
        f"\n<sub>Asked by @{trigger.actor} on {where}; computed from the policy, no model was called.</sub>\n"
    )
    target = trigger.pr if trigger.pr is not None else trigger.issue
    await anyio.to_thread.run_sync(api.create_issue_comment, target, body)
    write_step_summary(body)
    write_outputs({"conclusion": "explained"})
    print(f"explained the policy on {where}")
    return 0


def infer_event_name(payload: Any) -> str:
    """The event a payload belongs to, from its keys (webhook payloads carry no name of their own)."""
    if not isinstance(payload, dict):
        raise EventError("the event payload is not a JSON object")
    if "comment" in payload:
        if "pull_request" in payload:
            return "pull_request_review_comment"
        return "issue_comment"
    if "review" in payload and "pull_request" in payload:
        return "pull_request_review"
    if "issue" in payload:
        return "issues"
    if "schedule" in payload:
        return "schedule"
    if "inputs" in payload or "workflow" in payload:
        return "workflow_dispatch"
    if "client_payload" in payload:
        return "repository_dispatch"
    if "pull_request" in payload:
        return "pull_request"
    raise EventError("cannot tell which event this payload is: give --event-name")


def explain_trigger(event_path: Path, event_name: str | None, settings: Any) -> dict[str, Any]:
    from bot.github.events import decide_trigger, load_event_text

    try:
        text = event_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EventError(f"{event_path}: no such event file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EventError(f"{event_path}: cannot be read ({exc})") from None
    payload = load_event_text(text, str(event_path))
    name = event_name or infer_event_name(payload)
    trigger = decide_trigger(name, payload, settings)
    data = trigger.dry_run_json()
    data["event_name"] = name
    data["actor"] = trigger.actor
    return data
