"""Who may be asked: bot.limits.max_questions in the policy, the requester from the run's trigger."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.orchestration.session import RunConfig, question_box
from bot.permissions.stack import PolicyLayer, load_policy_stack


def policy(limits: dict[str, object] | None = None):  # type: ignore[no-untyped-def]
    text = json.dumps({"permissions": {"allow": ["Read"]}, **({"bot": {"limits": limits}} if limits else {})})
    return load_policy_stack([PolicyLayer("repository", path="policy.json", text=text)])


def config(tmp_path: Path, requester: str | None, asked: int = 0) -> RunConfig:
    return RunConfig(workspace=tmp_path, scratch_dir=tmp_path / "s", ask_requester=requester, questions_asked=asked)


def test_a_comment_trigger_may_ask_three_questions_by_default(tmp_path: Path) -> None:
    box = question_box(config(tmp_path, "alice", asked=1), policy())
    assert box is not None and box.limit == 3 and box.asked_before == 1 and box.requester == "alice"


def test_nobody_to_answer_means_no_question_box(tmp_path: Path) -> None:
    assert question_box(config(tmp_path, None), policy()) is None


def test_the_policy_turns_questions_off_with_zero(tmp_path: Path) -> None:
    assert question_box(config(tmp_path, "alice"), policy({"max_questions": 0})) is None
    box = question_box(config(tmp_path, "alice"), policy({"max_questions": 1}))
    assert box is not None and box.limit == 1


@pytest.mark.parametrize("value", [-1, 1.5, True, "2"])
def test_a_malformed_question_limit_names_the_key(value: object) -> None:
    with pytest.raises(ConfigError, match=r"bot\.limits\.max_questions"):
        policy({"max_questions": value})
