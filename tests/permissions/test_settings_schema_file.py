"""The published JSON Schema of a policy file: current with the models, usable by an editor
(``jsonschema`` accepts what the loader accepts, and flags what it refuses)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from bot.cli import app
from bot.permissions.settings_model import json_schema, schema_text
from bot.permissions.stack import list_presets, preset_path
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "policies" / "bot-policy.schema.json"
runner = CliRunner()


def test_the_committed_schema_is_current() -> None:
    assert COMMITTED.read_text() == schema_text(), "regenerate: bot policy schema > policies/bot-policy.schema.json"


def test_bot_policy_schema_prints_it() -> None:
    result = runner.invoke(app, ["policy", "schema"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == json_schema()


def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(COMMITTED.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)  # type: ignore[no-any-return]


def test_presets_and_real_claude_code_settings_are_valid() -> None:
    check = validator()
    files = [preset_path(name) for name in list_presets()]
    files += [p for p in (FIXTURES / "claude-settings").glob("*.json") if p.name != "zed-industries__zed.json"]
    assert len(files) > 10 and "bot-policy.schema" not in list_presets()
    for path in files:
        errors = [e.message for e in check.iter_errors(json.loads(path.read_text()))]
        assert errors == [], (path.name, errors)


@pytest.mark.parametrize(
    "document",
    [
        {"permissions": {"allow": "Read"}},
        {"permissions": {"defaultMode": "yolo"}},
        {"permissions": {"alow": []}},
        {"bot": {"sandbox": "sometimes"}},
        {"bot": {"limits": {"max_turns": 0}}},
        {"bot": {"limits": {"turns": 3}}},
        {"bot": {"model": None}},
        {"bot": {"env": {"A-B": "x"}}},
        {"hooks": {"PreToolUse": [{"matcher": "Bash"}]}},
    ],
)
def test_what_the_loader_refuses_an_editor_flags(document: dict[str, object]) -> None:
    assert list(validator().iter_errors(document)), document
