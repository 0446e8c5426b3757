"""One leg of a fleet: a ``bot run`` in one repository's checkout, and the leg's record.

The leg is the workflow asking, as a scheduled run is: the event handed to ``bot run`` is a
``schedule`` event for the target repository (the fleet file, read from the fleet's home
repository's default branch, is the authority; there is no actor to check on the target). The run
is a child process with an environment built here from an allowlist, so the repository it works on
(``GITHUB_REPOSITORY``) is the target, not the home repository the workflow runs in.

Whatever happens — no checkout, a refused push, a model error, a crash — the leg writes
``leg.json`` next to the run's ``outcome.json``: a failed leg is a row in the report, not a lost run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.fleet.spec import FleetSpec, Limits

#: The leg's record, read by ``bot fleet report``.
LEG_FILE = "leg.json"
#: What the child's step outputs are written to (read back for the conclusion).
CHILD_OUTPUT = "run-output.txt"
#: How much of a failed run's stderr the record keeps: enough for the error, not a transcript.
MAX_ERROR_CHARS = 2_000
#: On top of the run's own wall-time limit: set-up, the push and the report after the model stops.
GRACE_SECONDS = 600
#: The runner's variables a run needs unchanged: where it is, where its summary goes, its identity.
PASSED_THROUGH = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "CI",
    "GITHUB_ACTIONS",
    "RUNNER_TEMP",
    "GITHUB_API_URL",
    "GITHUB_SERVER_URL",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_ATTEMPT",
    "GITHUB_STEP_SUMMARY",
    "BOT_MODEL",
    "ANTHROPIC_BASE_URL",
)
#: The credentials the run itself needs (it captures them out of its environment at start-up).
SECRETS = ("GITHUB_TOKEN", "ANTHROPIC_API_KEY")


@dataclass(frozen=True, slots=True)
class Leg:
    spec: FleetSpec
    repository: str
    workspace: Path
    output_dir: Path
    replay: Path | None = None
    #: The fleet file's directory: relative policy files are read from there (the home checkout).
    base_dir: Path = Path(".")


def leg_event(spec: FleetSpec, repository: str) -> dict[str, Any]:
    """The event the leg's run decides on: a scheduled run of this repository."""
    return {"schedule": f"fleet {spec.name}", "repository": {"full_name": repository}}


def policies(spec: FleetSpec, base_dir: Path) -> list[str]:
    """Preset names as they are; a policy file relative to the fleet file's directory, absolute."""
    out = []
    for item in spec.policy:
        path = base_dir / item
        out.append(str(path.resolve()) if "/" in item or path.is_file() else item)
    return out


def child_environment(
    leg: Leg, environ: Mapping[str, str], secrets: Mapping[str, str | None], event_path: Path
) -> dict[str, str]:
    """What ``bot run`` receives: the runner basics, the target as its repository, the fleet's task
    and limits as its inputs, and the two credentials it needs. Nothing else of ours."""
    env = {k: environ[k] for k in PASSED_THROUGH if k in environ}
    env.update({k: v for k, v in secrets.items() if v})
    limits: Limits = leg.spec.target(leg.repository).limits
    env.update(
        {
            "GITHUB_REPOSITORY": leg.repository,
            "GITHUB_WORKSPACE": str(leg.workspace),
            "GITHUB_EVENT_NAME": "schedule",
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_OUTPUT": str(leg.output_dir / CHILD_OUTPUT),
            "BOT_OUTPUT_DIR": str(leg.output_dir),
            "BOT_PROMPT": leg.spec.prompt,
            "BOT_POLICY": " ".join(policies(leg.spec, leg.base_dir)),
        }
    )
    for name, value in (
        ("BOT_MAX_TURNS", limits.max_turns),
        ("BOT_MAX_BUDGET_USD", limits.max_budget_usd),
        ("BOT_TIMEOUT_MINUTES", limits.timeout_minutes),
    ):
        if value is not None:
            env[name] = f"{value:g}" if isinstance(value, float) else str(value)
    if leg.replay is not None:
        env["BOT_REPLAY"] = str(leg.replay.resolve())
    return env


def bot_command() -> list[str]:
    """This installation's ``bot``: the script next to the interpreter, else the interpreter itself.
    Isolated (``-I``): the leg runs in its checkout, and ``-c`` would put that directory first on
    the import path before ``bot.cli`` had loaded (as action.yml starts the bot)."""
    script = Path(sys.executable).parent / "bot"
    if script.is_file():
        return [sys.executable, "-I", str(script)]
    return [sys.executable, "-I", "-c", "from bot.cli import main; main()"]


def run_leg(leg: Leg, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Run the leg and write its record; returns the record. Never raises for a failed run."""
    from bot.core.redact import redact
    from bot.core.secrets import process_secrets, secret

    environ = os.environ if environ is None else environ
    leg.output_dir.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {"fleet": leg.spec.name, "repository": leg.repository, "exit_code": None, "error": None}
    if not (leg.workspace / ".git").exists():
        record["error"] = f"no checkout of {leg.repository} at {leg.workspace} (the checkout step failed?)"
        return _write(leg, record)
    event_path = leg.output_dir / "leg-event.json"
    event_path.write_text(json.dumps(leg_event(leg.spec, leg.repository)), encoding="utf-8")
    env = child_environment(leg, environ, {name: secret(name) for name in SECRETS}, event_path)
    limits = leg.spec.target(leg.repository).limits
    timeout = limits.timeout_minutes * 60 + GRACE_SECONDS if limits.timeout_minutes else None
    try:
        # env: built above from an allowlist (the runner basics, the target repository, the fleet's
        # inputs and the run's two credentials); cwd: the checkout, as a workflow step would have.
        done = subprocess.run(
            [*bot_command(), "run"],
            env=env,
            cwd=leg.workspace,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        record["error"] = f"the run did not end within {timeout:.0f} s and was stopped"
        return _write(leg, record)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    record["exit_code"] = done.returncode
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip())[-MAX_ERROR_CHARS:]
        record["error"] = redact(tail, process_secrets()) or f"bot run exited with {done.returncode}"
    record["outputs"] = read_outputs(leg.output_dir / CHILD_OUTPUT)
    return _write(leg, record)


def _write(leg: Leg, record: dict[str, Any]) -> dict[str, Any]:
    (leg.output_dir / LEG_FILE).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return record


def read_outputs(path: Path) -> dict[str, str]:
    """A ``GITHUB_OUTPUT`` file (``name<<DELIMITER`` blocks, or ``name=value`` lines)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, UnicodeDecodeError):
        return {}
    out: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, _, delimiter = line.partition("<<")
            try:
                end = lines.index(delimiter, i + 1)
            except ValueError:
                break
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, sep, value = line.partition("=")
        if sep:
            out[name] = value
        i += 1
    return out
