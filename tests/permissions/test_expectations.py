"""Expectation files: discovery, and which policy a file tests by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.runtime.policy_expectations import default_policy_for, expectation_files


@pytest.mark.parametrize(
    ("description", "name", "expected"),
    [
        ("the policy with the same name", "fix.expect.jsonl", "fix.json"),
        ("a topic file tests its policy", "fix.bash.expect.jsonl", "fix.json"),
        ("a pending file tests its policy", "fix.bash.expect.jsonl.pending", "fix.json"),
        ("a YAML policy", "team.expect.jsonl", "team.yml"),
        ("no policy next to it", "orphan.expect.jsonl", None),
    ],
)
def test_the_default_policy_of_an_expectation_file(
    tmp_path: Path, description: str, name: str, expected: str | None
) -> None:
    (tmp_path / "fix.json").write_text("{}")
    (tmp_path / "team.yml").write_text("{}")
    found = default_policy_for(tmp_path / name)
    assert (found.name if found else None) == expected, description
    assert found is None or found.is_absolute()


def test_directories_are_searched_recursively_and_files_kept_as_given(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.expect.jsonl").write_text("")
    (tmp_path / "y.expect.jsonl").write_text("")
    (tmp_path / "z.bash.expect.jsonl.pending").write_text("")
    (tmp_path / "notes.jsonl").write_text("")
    assert expectation_files([tmp_path]) == [tmp_path / "a" / "x.expect.jsonl", tmp_path / "y.expect.jsonl"]
    pending = tmp_path / "z.bash.expect.jsonl.pending"
    assert expectation_files([pending]) == [pending]
