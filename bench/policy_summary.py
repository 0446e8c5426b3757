"""How many denials the system prompt's policy summary spares a model that follows it.

Proposals: every tool call the model makes in the repository's recorded sessions (the cassettes
under ``tests/cassettes/`` and ``examples/``, read from their SSE bodies), plus the 858 real CI
commands of the shell's benign corpus (``tests/shell/corpus/benign.jsonl``) as Bash calls — the
commands a model proposes when it builds, tests and lints a project.

For each shipped preset, every proposal is decided by the engine (``PolicyChecker``, the pipeline a
run uses) and by a reader of the summary (:mod:`bot.explain.summary`): a call is "allowed by the
summary" only if it uses a tool the summary says needs no rule or is allowed, or a shell command
each of whose parts (split at ``&&``, ``||``, ``;``, ``|``) is listed exactly or as a prefix, names
no "never" rule and uses none of what the summary says needs its own rule (``sh -c``, ``xargs``,
``find -exec``, ``$(…)``, a redirect outside the workspace).

Printed per preset: the engine's denials, the share a summary-following model avoids (it does not
propose them), the denials it would still hit (the summary said yes, the engine said no), and the
calls it would skip needlessly (the summary said no, the engine allows them).

    python bench/policy_summary.py
"""

from __future__ import annotations

import fnmatch
import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

import _common  # noqa: F401  (puts the checkout on sys.path)
import anyio
import yaml

from bot.explain.compute import Explanation, explain_policy
from bot.explain.summary import estimated_tokens, render_summary
from bot.permissions.stack import PolicyLayer, list_presets
from bot.runtime.policy_checker import CheckInput, PolicyChecker

ROOT = Path(__file__).resolve().parents[1]
NEEDS_OWN_RULE = ("$(", "`", "sh -c", "bash -c", "xargs", "-exec", "eval ")
SEPARATORS = ("&&", "||", ";", "|")


def recorded_calls() -> list[tuple[str, dict[str, Any], str]]:
    """(tool, input, where) for every tool_use block in the recorded cassettes."""
    out: list[tuple[str, dict[str, Any], str]] = []
    for path in sorted([*(ROOT / "tests" / "cassettes").glob("*.yaml"), *(ROOT / "examples").glob("*.yaml")]):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for interaction in data.get("interactions") or []:
            body = interaction.get("response", {}).get("body", {}).get("string") or ""
            current: list[Any] | None = None
            for line in body.splitlines():
                if not line.startswith("data: "):
                    continue
                try:
                    event = json.loads(line[6:])
                except ValueError:
                    continue
                kind = event.get("type")
                if kind == "content_block_start" and event["content_block"].get("type") == "tool_use":
                    current = [event["content_block"]["name"], ""]
                elif kind == "content_block_delta" and current and event["delta"].get("type") == "input_json_delta":
                    current[1] += event["delta"]["partial_json"]
                elif kind == "content_block_stop" and current:
                    try:
                        payload = json.loads(current[1] or "{}")
                    except ValueError:
                        payload = None  # a cut stream (the max-tokens cassette): nothing was proposed
                    if isinstance(payload, dict):
                        out.append((current[0], payload, path.name))
                    current = None
    return out


def corpus_calls() -> list[tuple[str, dict[str, Any], str]]:
    lines = (ROOT / "tests" / "shell" / "corpus" / "benign.jsonl").read_text(encoding="utf-8").splitlines()
    return [("Bash", {"command": json.loads(line)["command"]}, "benign corpus") for line in lines if line.strip()]


def _part_allowed(part: str, e: Explanation) -> bool:
    try:
        words = shlex.split(part)
    except ValueError:
        return False
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]
    if not words:
        return True
    canonical = " ".join(words)
    for rule, _ in e.bash_denied:
        literal = rule[len("Bash(") : -1].removesuffix(" *").removesuffix(":*")
        if canonical == literal or canonical.startswith(literal + " "):
            return False
    for view in e.bash_rules:
        if view.kind == "exact" and canonical == view.literal:
            return True
        if view.kind == "prefix" and (canonical == view.literal or canonical.startswith(view.literal + " ")):
            return True
        if view.kind == "wildcard" and fnmatch.fnmatchcase(canonical, view.rule[len("Bash(") : -1]):
            return True
    return False


def summary_allows_bash(command: str, e: Explanation) -> bool:
    if any(marker in command for marker in NEEDS_OWN_RULE) or "\n" in command.strip():
        return False
    if ">" in command and any(t.startswith(("/", "~")) for t in command.split(">", 1)[1].split()[:1]):
        return False
    parts = [command]
    for sep in SEPARATORS:
        parts = [p for chunk in parts for p in chunk.split(sep)]
    return all(_part_allowed(p.split(">", 1)[0].strip(), e) for p in parts)


def summary_allows(tool: str, payload: dict[str, Any], e: Explanation) -> bool:
    standing = {t.name: t for t in e.tools}.get(tool)
    if standing is None:
        return False
    if tool == "Bash":
        if standing.standing in ("allowed", "mode"):
            return True
        return isinstance(payload.get("command"), str) and summary_allows_bash(payload["command"], e)
    if standing.standing in ("no rule needed", "allowed", "mode"):
        return True
    if standing.standing == "workspace reads":
        path = str(payload.get("file_path") or payload.get("path") or "")
        return not path.startswith(("/", "~"))
    return False


async def measure(preset: str, calls: list[tuple[str, dict[str, Any], str]], workspace: Path) -> dict[str, int]:
    layers = [PolicyLayer("preset", preset=preset)]
    explanation = await explain_policy(layers, workspace=workspace, examples=False)
    counts = {"calls": len(calls), "denied": 0, "avoided": 0, "still_denied": 0, "needless": 0}
    with PolicyChecker(workspace=workspace, layers=layers) as checker:
        for tool, payload, _ in calls:
            denied = not (await checker.check(CheckInput(tool, payload))).allowed
            said_yes = summary_allows(tool, payload, explanation)
            counts["denied"] += denied
            counts["avoided"] += denied and not said_yes
            counts["still_denied"] += denied and said_yes
            counts["needless"] += (not denied) and not said_yes
    counts["summary_tokens"] = estimated_tokens(render_summary(explanation))
    return counts


def main() -> int:
    recorded, corpus = recorded_calls(), corpus_calls()
    print(f"proposals: {len(recorded)} tool calls from recorded sessions, {len(corpus)} corpus commands")
    with tempfile.TemporaryDirectory(prefix="bench-summary-") as tmp:
        workspace = Path(tmp)
        for preset in list_presets():
            for label, calls in (("recorded sessions", recorded), ("recorded + corpus", recorded + corpus)):
                c = anyio.run(measure, preset, calls, workspace)
                denied = c["denied"] or 1
                allowed = (c["calls"] - c["denied"]) or 1
                print(
                    f"{preset:<12} {label:<18} calls {c['calls']:>4}  denied {c['denied']:>4}  "
                    f"avoided {c['avoided']:>4}  ratio {c['avoided'] / denied:.2f}  "
                    f"still denied {c['still_denied']:>3}  "
                    f"needless {c['needless']:>3} of {c['calls'] - c['denied']} allowed "
                    f"(ratio {c['needless'] / allowed:.2f})  summary {c['summary_tokens']} tokens"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
