"""``@bot explain``: the answer is the policy's explanation, posted on the thread, with no model call.

The policy explained is the one a run would use: the workflow's policies plus the repository's
own policy file, read from the default branch (never from a pull request's head), through the same
:func:`bot.orchestration.session.policy_layers` a run calls. Only someone the run would accept
(authorized before this is reached) gets the answer.
"""

from __future__ import annotations

from typing import Any

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
