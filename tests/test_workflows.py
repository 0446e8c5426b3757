"""The shipped workflows and the action follow GitHub's rules: they validate against the Actions
schemas (SchemaStore's, committed as fixtures), third-party actions are pinned by commit SHA with the
tag in a comment, and runs that would collide queue in a concurrency group."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / "workflows").glob("*.yml"))
ACTION = ROOT / "action.yml"
SCHEMAS = FIXTURES / "schemastore"


class _ActionsLoader(yaml.SafeLoader):
    """YAML as Actions reads it: `on:` is a key, not the YAML 1.1 boolean."""


_ActionsLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_ActionsLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.load(path.read_text(), Loader=_ActionsLoader)
    return data


def validator(name: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads((SCHEMAS / name).read_text()))


def test_the_loader_keeps_on_as_a_key() -> None:
    assert "on" in load(ROOT / "workflows" / "bot.yml")


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_each_workflow_validates_against_the_workflow_schema(path: Path) -> None:
    errors = [
        f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator("github-workflow.json").iter_errors(load(path))
    ]
    assert errors == []


def test_the_action_validates_against_the_action_schema() -> None:
    errors = [
        f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator("github-action.json").iter_errors(load(ACTION))
    ]
    assert errors == []


def test_the_schemas_refuse_what_github_refuses() -> None:
    # The schemas are not vacuous: a step with neither run nor uses, and a bad concurrency, fail.
    broken = load(ROOT / "workflows" / "bot.yml")
    broken["jobs"]["bot"]["steps"].append({"name": "nothing"})
    broken["concurrency"] = {"cancel-in-progress": False}
    assert list(validator("github-workflow.json").iter_errors(broken))


USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$", re.M)


@pytest.mark.parametrize("path", [*WORKFLOWS, ACTION], ids=lambda p: p.name)
def test_third_party_actions_are_pinned_by_commit_sha_with_the_tag_in_a_comment(path: Path) -> None:
    found = 0
    for match in USES.finditer(path.read_text()):
        ref, rest = match["ref"], match["rest"]
        if ref.startswith("OWNER/headless-bot@"):  # this action: where the user hosts it
            continue
        found += 1
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{path.name}: {ref} is not pinned by SHA"
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", rest), f"{path.name}: {ref} has no '# vX.Y.Z' tag comment"
    assert found, f"{path.name} uses no third-party action"


def test_runs_that_would_collide_queue() -> None:
    groups = {path.name: load(path).get("concurrency") for path in WORKFLOWS}
    assert all(g and g["cancel-in-progress"] is False for g in groups.values()), groups
    per_conversation = groups["bot.yml"]["group"]
    assert "github.event.issue.number" in per_conversation and "github.event.pull_request.number" in per_conversation
    assert "inputs.prompt" in groups["bot-dispatch.yml"]["group"]
    assert groups["bot-weekly-maintenance.yml"]["group"].startswith("bot-weekly-maintenance")


def test_the_environment_is_cached_by_the_actions_version_and_saved_before_the_model_runs() -> None:
    steps = load(ACTION)["runs"]["steps"]
    names = [s.get("name") for s in steps]
    index = {name: i for i, name in enumerate(names)}
    assert index["Key the environment"] < index["Restore the environment"] < index["Install the bot"]
    assert index["Install the bot"] < index["Save the environment"] < index["Run"]
    restore, save = steps[index["Restore the environment"]], steps[index["Save the environment"]]
    assert restore["uses"].startswith("actions/cache/restore@") and save["uses"].startswith("actions/cache/save@")
    assert restore["with"]["key"] == save["with"]["key"] == "${{ steps.env-key.outputs.key }}"
    assert "GITHUB_ACTION_PATH" in steps[index["Key the environment"]]["run"]  # the action's own files


def test_the_bot_never_takes_its_import_path_from_the_job() -> None:
    """A workflow's ``env: PYTHONPATH: src`` names the workspace, which the model writes: the bot
    runs isolated from it (``python -I``), and the steps that run Python before it ignore it."""
    steps = yaml.safe_load(ACTION.read_text())["runs"]["steps"]
    by_name = {step.get("name"): step for step in steps}
    assert by_name["Run"]["run"].startswith(
        'exec "$RUNNER_TEMP/bot-venv/bin/python" -I "$RUNNER_TEMP/bot-venv/bin/bot" run'
    )
    for name in ("Key the environment", "Install the bot"):
        assert by_name[name]["env"]["PYTHONPATH"] == "", name
    (entrypoint,) = [json.loads(args) for name, args in dockerfile_instructions() if name == "ENTRYPOINT"]
    assert entrypoint[1:3] == ["-I", "/usr/local/bin/bot"]


# ----- the container form ---------------------------------------------------------------------------

CONTAINER_ACTION = ROOT / "container" / "action.yml"
DOCKERFILE = ROOT / "Dockerfile"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    logical: list[str] = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue
        pending += line.rstrip("\\").strip() + " "
        if not line.rstrip().endswith("\\"):
            logical.append(pending.strip())
            pending = ""
    return [(text.split(None, 1)[0].upper(), text.split(None, 1)[1]) for text in logical]


def test_the_image_follows_githubs_rules_for_docker_container_actions() -> None:
    # Docker actions run as the default user (root), GitHub sets the working directory, and the
    # entrypoint is an absolute path in exec form.
    instructions = dockerfile_instructions()
    names = [name for name, _ in instructions]
    assert names[0] == "FROM"
    assert "USER" not in names
    assert "WORKDIR" not in names
    (entrypoint,) = [json.loads(args) for name, args in instructions if name == "ENTRYPOINT"]
    assert entrypoint[0].startswith("/")


def test_the_container_action_validates_and_matches_the_composite_one() -> None:
    container, composite = load(CONTAINER_ACTION), load(ACTION)
    assert list(validator("github-action.json").iter_errors(container)) == []
    assert container["runs"]["using"] == "docker"
    assert container["inputs"].keys() == composite["inputs"].keys()
    assert container["outputs"].keys() == composite["outputs"].keys()
    (run,) = [step for step in composite["runs"]["steps"] if step.get("name") == "Run"]
    assert container["runs"]["env"].keys() == run["env"].keys()
    for name, value in run["env"].items():
        if name != "BOT_OUTPUT_DIR":  # the runner's temp directory is not mounted in the container
            assert container["runs"]["env"][name] == value
