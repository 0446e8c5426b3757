"""Sessions end to end (docs/sessions.md), with no network: the GitHub stand-in, a bare origin that
keeps refs/bot/sessions/<n>, the model from cassettes whose requests are captured as sent.

- issue → run → follow-up on the PR → the resumed run's first request holds the earlier
  conversation → the same PR is updated;
- a question → needs-input (checkpoint pushed, question posted) → the requester's reply without the
  mention → resumed with the answer as the question's result → PR;
- a reply from someone without write access, `start over`, a force-push and a policy change.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import bot.agent.replay as replay_module
from bot.testing.cassettes import Text, ToolCall, Turn, write_cassette
from bot.tools.ask_user import WAITING_RESULT
from tests.conftest import FIXTURES
from tests.github.conftest import BRANCH, DEMO_CASSETTE, REPO, TOKEN, World, git

Bodies = list[dict[str, Any]]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Bodies:
    """Every model request body, as the SDK sent it (the replay matches on method and path only)."""
    bodies: Bodies = []
    original = replay_module.use_cassette

    def capturing(path: Any, *, model_hosts: Any = None, **kwargs: Any) -> Any:
        hosts = frozenset(model_hosts or ())
        live = {"on": False}  # vcrpy passes the cassette's own recorded requests through this too, on load

        def before(request: Any) -> Any:
            if request.host not in hosts:
                return None
            if live["on"] and request.body:
                bodies.append(json.loads(request.body))
            return request

        return _Live(original(path, before_record_request=before, **kwargs), live)

    monkeypatch.setattr(replay_module, "use_cassette", capturing)
    return bodies


class _Live:
    def __init__(self, inner: Any, live: dict[str, bool]) -> None:
        self.inner, self.live = inner, live

    def __enter__(self) -> Any:
        entered = self.inner.__enter__()
        self.live["on"] = True
        return entered

    def __exit__(self, *exc: Any) -> Any:
        self.live["on"] = False
        return self.inner.__exit__(*exc)


def session_json(world: World, number: int) -> dict[str, Any]:
    text = subprocess.run(
        ["git", "-C", str(world.origin), "show", f"refs/bot/sessions/{number}:session.json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(text)


def session_refs(world: World) -> list[str]:
    out = git(world.origin, "for-each-ref", "--format=%(refname)", "refs/bot/sessions/")
    return out.split()


def follow_up(world: World, body: str, *, user: str = "alice", on_pr: bool = True) -> Path:
    pr = world.gh.pulls(REPO)[0].number
    target = pr if on_pr else world.issue
    comment = world.gh.add_comment(REPO, target, body, user=user)
    return world.pr_event(pr, comment, body, user=user) if on_pr else _issue_event(world, comment, body, user)


def _issue_event(world: World, comment: int, body: str, user: str) -> Path:
    path = world.event(body, user=user)
    payload = json.loads(path.read_text())
    payload["comment"]["id"] = comment
    path.write_text(json.dumps(payload))
    return path


def cassette(world: World, name: str, *turns: Turn) -> str:
    return str(write_cassette(world.tmp / f"{name}.yaml", list(turns)))


def first_text(body: dict[str, Any]) -> str:
    return "\n".join(
        b.get("text", "") for m in body["messages"] for b in m["content"] if isinstance(b, dict) and b["type"] == "text"
    )


EMPTY_LIST_EDIT = {
    "file_path": "stats.py",
    "old_string": '"""Small statistics helpers."""\n',
    "new_string": '"""Small statistics helpers (empty lists raise ValueError)."""\n',
}


def test_a_follow_up_on_the_pr_resumes_the_issues_session_and_updates_the_same_pr(world: World, sent: Bodies) -> None:
    assert world.run("--replay", str(DEMO_CASSETTE)).exit_code == 0
    pr = world.gh.pulls(REPO)[0].number
    first_conversation = [m for m in sent[-1]["messages"]]
    assert sorted(session_refs(world)) == sorted([f"refs/bot/sessions/{world.issue}", f"refs/bot/sessions/{pr}"])
    stored = session_json(world, pr)
    assert stored["branch"] == BRANCH and stored["threads"] == [world.issue, pr]
    assert stored["messages"][0]["content"][0]["text"] == first_conversation[0]["content"][0]["text"]
    assert "Session kept (the conversation)" in world.gh.comments(REPO, world.issue)[-1].body

    # Someone pushes to the branch and comments before the follow-up.
    other = world.tmp / "other"
    subprocess.run(["git", "clone", "-q", "-b", BRANCH, str(world.origin), str(other)], check=True)
    (other / "NOTES.md").write_text("carol's notes\n")
    git(other, "add", "-A")
    git(other, "-c", "user.name=Carol", "-c", "user.email=carol@example.com", "commit", "-q", "-m", "Add notes")
    git(other, "push", "-q", "origin", BRANCH)
    world.gh.add_comment(REPO, pr, "Please also mention empty lists in the docstring.", user="carol")

    before = len(sent)
    second = cassette(
        world,
        "follow-up",
        Turn([ToolCall("Read", {"file_path": "stats.py"})]),  # a new run has read nothing yet
        Turn([ToolCall("Edit", EMPTY_LIST_EDIT)]),
        Turn([Text("Documented that empty lists raise ValueError.")]),
    )
    result = world.run("--replay", second, event=follow_up(world, "@bot also document the empty-list case"))
    assert result.exit_code == 0, result.output

    resumed = sent[before]
    messages = resumed["messages"]
    # The earlier conversation first, unchanged, then the new request with what changed since.
    assert len(messages) == len(first_conversation) + 2
    assert messages[0]["content"][0]["text"] == first_conversation[0]["content"][0]["text"]
    assert [m["role"] for m in messages[: len(first_conversation)]] == [m["role"] for m in first_conversation]
    new = messages[-1]["content"][0]["text"]
    assert "This is a follow-up" in new and "also document the empty-list case" in new
    assert "people pushed 1 commit(s)" in new and "by Carol <carol@example.com>: Add notes" in new
    assert "Please also mention empty lists in the docstring." in new and 'author="carol"' in new
    pulls = world.gh.pulls(REPO)
    assert len(pulls) == 1 and pulls[0].number == pr
    assert "empty lists raise ValueError" in world.origin_file(BRANCH, "stats.py")
    assert "Continued the earlier session" in world.gh.comments(REPO, pr)[-1].body
    assert session_json(world, pr)["summary"] == "Documented that empty lists raise ValueError."
    # The issue's ref follows too: a follow-up on the issue continues from the latest run.
    assert session_json(world, world.issue) == session_json(world, pr)
    assert world.outputs()["conclusion"] == "success"


QUESTION = {"question": "Should an empty list raise or return 0?", "choices": ["raise ValueError", "return 0"]}


def ask_first(world: World) -> str:
    return cassette(
        world,
        "ask",
        Turn([Text("Starting."), ToolCall("Read", {"file_path": "stats.py"})]),
        Turn([ToolCall("Edit", EMPTY_LIST_EDIT)]),
        Turn([Text("One thing first."), ToolCall("AskUserQuestion", QUESTION)]),
    )


def test_a_question_ends_needs_input_and_the_reply_resumes_with_the_answer_as_its_result(
    world: World, sent: Bodies
) -> None:
    result = world.run("--replay", ask_first(world))
    assert result.exit_code == 0, result.output
    assert world.outputs()["conclusion"] == "needs-input"
    # The work so far is pushed as a checkpoint, the PR a draft; the question addressed to alice.
    subject = git(world.origin, "log", "-1", "--format=%s", BRANCH)
    assert subject.startswith("WIP: checkpoint: needs_input")
    pulls = world.gh.pulls(REPO)
    assert len(pulls) == 1 and pulls[0].draft
    comments = world.gh.comments(REPO, world.issue)
    question = next(c for c in comments if "I have a question" in c.body)
    assert question.body.startswith("@alice I have a question")
    assert "1. raise ValueError\n2. return 0" in question.body
    result_comment = next(c for c in comments if "❓" in c.body)  # the sticky comment, above the question
    assert "Waiting for an answer from @alice" in result_comment.body and result_comment.id < question.id
    stored = session_json(world, world.issue)
    call_id = stored["pending_question"]["tool_use_id"]
    assert stored["pending_question"]["comment_id"] == question.id
    assert stored["messages"][-1]["content"][-1]["content"] == WAITING_RESULT

    before = len(sent)
    reply = cassette(world, "answered", Turn([Text("Kept raising ValueError, as you chose.")]))
    result = world.run("--replay", reply, event=follow_up(world, "1", on_pr=False))
    assert result.exit_code == 0, result.output
    body = sent[before]
    last = body["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result" and last[0]["tool_use_id"] == call_id
    assert "1. raise ValueError" in str(last[0]["content"]) and WAITING_RESULT not in str(last[0]["content"])
    assert world.outputs()["conclusion"] == "success"
    assert len(world.gh.pulls(REPO)) == 1
    after = session_json(world, world.issue)
    assert after["pending_question"] is None and after["questions_asked"] == 1


def test_a_reply_with_the_mention_answers_too(world: World, sent: Bodies) -> None:
    assert world.run("--replay", ask_first(world)).exit_code == 0
    call_id = session_json(world, world.issue)["pending_question"]["tool_use_id"]
    before = len(sent)
    reply = cassette(world, "answered", Turn([Text("Returning 0 for an empty list, as you chose.")]))
    result = world.run("--replay", reply, event=follow_up(world, "@bot 2", on_pr=False))
    assert result.exit_code == 0, result.output
    first = sent[before]["messages"][-1]["content"][0]
    assert first["tool_use_id"] == call_id and "2. return 0" in str(first["content"])


def test_a_reply_from_someone_without_write_access_is_ignored(world: World, sent: Bodies) -> None:
    assert world.run("--replay", ask_first(world)).exit_code == 0
    before, comments = len(sent), len(world.gh.comments(REPO, world.issue))
    result = world.run("--replay", ask_first(world), event=follow_up(world, "2", user="mallory", on_pr=False))
    assert result.exit_code == 0, result.output
    assert "cannot answer" in result.output
    assert world.outputs()["conclusion"] == "skipped"
    assert len(sent) == before and len(world.gh.comments(REPO, world.issue)) == comments + 1  # mallory's own


def test_a_comment_without_the_mention_and_no_question_waiting_starts_nothing(world: World, sent: Bodies) -> None:
    assert world.run("--replay", str(DEMO_CASSETTE)).exit_code == 0
    result = world.run("--replay", str(DEMO_CASSETTE), event=follow_up(world, "thanks!", on_pr=False))
    assert "not triggered" in result.output and world.outputs()["conclusion"] == "skipped"


def test_start_over_drops_the_session(world: World, sent: Bodies) -> None:
    assert world.run("--replay", str(DEMO_CASSETTE)).exit_code == 0
    before = len(sent)
    fresh = cassette(world, "fresh", Turn([Text("Looked again from scratch; nothing to change.")]))
    result = world.run("--replay", fresh, event=follow_up(world, "@bot start over, check it again"))
    assert result.exit_code == 0, result.output
    messages = sent[before]["messages"]
    assert len(messages) == 1 and "follow-up" not in first_text(sent[before])
    assert "Started over" in world.gh.comments(REPO, world.gh.pulls(REPO)[0].number)[-1].body


@pytest.mark.parametrize(
    ("description", "change", "why"),
    [
        ("a force-push", "force_push", "was force-pushed since that run"),
        ("another policy", "policy", "the policy changed since that run"),
    ],
)
def test_a_session_that_no_longer_fits_is_resumed_as_its_summary_saying_why(
    world: World, sent: Bodies, description: str, change: str, why: str
) -> None:
    assert world.run("--replay", str(DEMO_CASSETTE)).exit_code == 0
    policy = "fix"
    if change == "force_push":
        other = world.tmp / "other"
        subprocess.run(["git", "clone", "-q", str(world.origin), str(other)], check=True)
        git(other, "checkout", "-q", "-B", BRANCH, "origin/main")
        (other / "REWRITE.md").write_text("history rewritten\n")
        git(other, "add", "-A")
        git(other, "commit", "-q", "-m", "rewrite")
        git(other, "push", "-q", "--force", "origin", BRANCH)
    else:
        policy = str(world.tmp / "policy.json")
        Path(policy).write_text(json.dumps({"bot": {"extends": "fix"}, "permissions": {"deny": ["WebFetch"]}}))
    before = len(sent)
    later = cassette(world, "later", Turn([Text("Checked.")]))
    result = world.run("--replay", later, event=follow_up(world, "@bot check it"), policy=policy)
    assert result.exit_code == 0, result.output
    messages = sent[before]["messages"]
    assert len(messages) == 1  # no earlier conversation
    text = first_text(sent[before])
    assert why in text and 'label="summary of the earlier run"' in text
    assert why in world.gh.comments(REPO, world.gh.pulls(REPO)[0].number)[-1].body


def test_a_secret_the_model_wrote_is_not_kept_in_the_session(world: World, sent: Bodies) -> None:
    leaky = cassette(world, "leaky", Turn([Text(f"Done. (The token was {TOKEN}.)")]))
    assert world.run("--replay", leaky).exit_code == 0
    raw = json.dumps(session_json(world, world.issue))
    assert TOKEN not in raw and "Done." in raw


@pytest.mark.parametrize(
    ("description", "content"),
    [
        ("not JSON", b"{forged"),
        ("a head git would take for an option", None),
    ],
)
def test_a_forged_session_is_reported_and_the_run_starts_fresh(
    world: World, sent: Bodies, description: str, content: bytes | None
) -> None:
    """Someone with push access wrote refs/bot/sessions/1 by hand: it is data, checked, not obeyed."""
    forged = world.tmp / "forged"
    subprocess.run(["git", "clone", "-q", str(world.origin), str(forged)], check=True)
    if content is None:
        content = json.dumps(
            {"version": 1, "threads": [1], "head": "--output=/tmp/pwned", "policy_hash": "", "stop_reason": "x"}
        ).encode()
    blob = (
        subprocess.run(
            ["git", "-C", str(forged), "hash-object", "-w", "--stdin"], input=content, capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )
    index = {"GIT_INDEX_FILE": str(world.tmp / "forged-index")}
    env = {**os.environ, **index}
    subprocess.run(
        ["git", "-C", str(forged), "update-index", "--add", "--cacheinfo", f"100644,{blob},session.json"],
        env=env,
        check=True,
    )
    tree = subprocess.run(["git", "-C", str(forged), "write-tree"], env=env, capture_output=True, text=True, check=True)
    commit = git(forged, "commit-tree", tree.stdout.strip(), "-m", "forged").strip()
    git(forged, "push", "-q", "origin", f"{commit}:refs/bot/sessions/1")

    result = world.run("--replay", str(DEMO_CASSETTE))
    assert result.exit_code == 0, result.output
    assert len(sent[0]["messages"]) == 1  # started fresh
    assert "The stored session could not be used" in world.gh.comments(REPO, world.issue)[-1].body
    assert not Path("/tmp/pwned").exists()
    assert session_json(world, world.issue)["version"] == 1  # replaced by the run's own


def tool_names(body: dict[str, Any]) -> set[str]:
    return {t["name"] for t in body.get("tools", [])}


def test_only_a_comment_trigger_can_ask(world: World, sent: Bodies) -> None:
    done = cassette(world, "done", Turn([Text("Nothing to do.")]))
    assert world.run("--replay", done).exit_code == 0
    assert "AskUserQuestion" in tool_names(sent[-1])

    payload = json.loads((FIXTURES / "events" / "workflow_dispatch.json").read_text())
    payload["repository"]["full_name"] = REPO
    payload["inputs"] = {"prompt": "tidy the docs"}
    payload["sender"] = {"login": "alice", "type": "User"}
    event = world.tmp / "dispatch.json"
    event.write_text(json.dumps(payload))
    result = world.run("--replay", done, event=event, event_name="workflow_dispatch")
    assert result.exit_code == 0, result.output
    assert "AskUserQuestion" not in tool_names(sent[-1]) and "Read" in tool_names(sent[-1])


def test_the_policy_turns_questions_off(world: World, sent: Bodies) -> None:
    policy = world.tmp / "no-questions.json"
    policy.write_text(json.dumps({"bot": {"extends": "fix", "limits": {"max_questions": 0}}}))
    done = cassette(world, "done", Turn([Text("Nothing to do.")]))
    assert world.run("--replay", done, policy=str(policy)).exit_code == 0
    assert "AskUserQuestion" not in tool_names(sent[-1])
