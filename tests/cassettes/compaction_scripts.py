"""Scripts for the context-management cassettes: long sessions that outgrow a small context window.

When the loop asks for a summary is decided by its own measurement, not by the script, so each
interaction is tagged with its purpose (``"task"`` or ``"compaction"``, in the recorded request body)
and :func:`use_compaction_cassette` matches on it: task turns replay in order, summary responses
(or failures) whenever the loop asks for one. Regenerate with
``python -m tests.cassettes.compaction_scripts``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from bot.agent.compaction import SUMMARY_INSTRUCTIONS
from bot.testing.cassettes import HttpError, ScriptItem, Text, ToolCall, Turn, Usage, cassette_yaml

HERE = Path(__file__).resolve().parent
#: The policy override the tests run under: small, so the cassettes stay small.
WINDOW = 20_000
MODULES = 30


def module_name(k: int) -> str:
    return f"pkg/mod_{k:02d}.py"


def module_text(k: int) -> str:
    """About 6,000 characters: a Read of it costs about 2,300 estimated tokens."""
    lines = [f'"""Module {k}: helpers."""', "", "VERSION = 1", ""]
    lines += [
        f"def helper_{k}_{i}(x):\n    return x + {i}  # helper {i} of module {k}, kept short\n" for i in range(80)
    ]
    return "\n".join(lines) + "\n"


def _summary(progress: str) -> Turn:
    return Turn(
        [
            Text(
                "## Task\nBump VERSION from 1 to 2 in every module under pkg/.\n"
                "## Decisions\nOne module at a time: read it, then edit the VERSION line.\n"
                f"## Files changed\n{progress}\n## Open items\nThe remaining modules, in order.\n"
                "## What failed\nNothing.\n## Key facts\nModules are pkg/mod_00.py to pkg/mod_29.py."
            )
        ],
        usage=Usage(input_tokens=900, output_tokens=400, cache_read_input_tokens=11_000),
    )


def _bump(k: int) -> ToolCall:
    return ToolCall("Edit", {"file_path": module_name(k), "old_string": "VERSION = 1", "new_string": "VERSION = 2"})


def long_session() -> tuple[list[ScriptItem], list[ScriptItem]]:
    """60 task turns (read a module, bump it, thirty times) and a closing one; the summaries."""
    task: list[ScriptItem] = []
    for k in range(MODULES):
        task.append(Turn([Text(f"Reading module {k}."), ToolCall("Read", {"file_path": module_name(k)})]))
        task.append(Turn([Text(f"Bumping module {k}."), _bump(k)]))
    task.append(Turn([Text(f"Bumped VERSION to 2 in all {MODULES} modules.")]))
    summaries: list[ScriptItem] = [_summary(f"pkg/mod_00.py … pkg/mod_{k:02d}.py bumped.") for k in range(2, 30, 2)]
    return task, summaries


BIG = 9


def big_module(k: int) -> str:
    """About 10,000 characters: three Reads of these do not fit a 20k window."""
    lines = [f'"""Big module {k}."""', "", "VERSION = 1", ""]
    lines += [
        f"def big_{k}_{i}(x):\n    return x * {i}  # a longer comment line to make module {k} heavy\n"
        for i in range(80)
    ]
    return "\n".join(lines) + "\n"


def big_name(k: int) -> str:
    return f"big_{k}.py"


def _big_task() -> list[ScriptItem]:
    task: list[ScriptItem] = []
    for k in range(BIG):
        task.append(Turn([ToolCall("Read", {"file_path": big_name(k)})]))
        task.append(
            Turn(
                [ToolCall("Edit", {"file_path": big_name(k), "old_string": "VERSION = 1", "new_string": "VERSION = 2"})]
            )
        )
    task.append(Turn([Text(f"Bumped all {BIG} big modules.")]))
    return task


def summary_fails() -> tuple[list[ScriptItem], list[ScriptItem]]:
    """Every attempt at the summary fails (three 529s): the run stops as a limit."""
    return _big_task(), [HttpError(529), HttpError(529), HttpError(529)]


def summary_retried() -> tuple[list[ScriptItem], list[ScriptItem]]:
    """The first attempt at each summary fails, the second succeeds."""
    summaries: list[ScriptItem] = []
    for k in range(4):
        summaries += [HttpError(529), _summary(f"big_0.py … big_{k}.py bumped (about).")]
    return _big_task(), summaries


HAIKU = "claude-haiku-5-5"


def subagent() -> tuple[list[ScriptItem], list[ScriptItem]]:
    """The main agent delegates the big modules to a sub-agent, whose own conversation outgrows the window."""
    sub: list[ScriptItem] = []
    for pair in ((0, 1), (2, 3), (4, 5), (6, 7), (8,)):  # two reads at once: clearing alone cannot keep up
        sub.append(Turn([ToolCall("Read", {"file_path": big_name(k)}) for k in pair], model=HAIKU))
        sub.append(
            Turn(
                [
                    ToolCall(
                        "Edit", {"file_path": big_name(k), "old_string": "VERSION = 1", "new_string": "VERSION = 2"}
                    )
                    for k in pair
                ],
                model=HAIKU,
            )
        )
    sub.append(Turn([Text(f"Bumped all {BIG} big modules.")], model=HAIKU))
    task: list[ScriptItem] = [
        Turn(
            [
                Text("I'll delegate the bump to a helper agent."),
                ToolCall(
                    "Agent",
                    {
                        "description": "Bump the big modules",
                        "subagent_type": "general-purpose",
                        "model": "haiku",
                        "prompt": "Bump VERSION from 1 to 2 in every big_*.py.",
                    },
                ),
            ]
        ),
        *sub,
        Turn([Text("The helper bumped every big module.")]),
    ]
    summaries: list[ScriptItem] = []
    for _ in range(4):
        turn = _summary("big_*.py bumped so far.")
        summaries.append(Turn(turn.blocks, usage=turn.usage, model=HAIKU))
    return task, summaries


def prompt_too_long() -> tuple[list[ScriptItem], list[ScriptItem]]:
    """Under the model's own 200k window, the API still refuses the request as too long (our
    estimate fell short): the loop compacts and runs the turn again."""
    task: list[ScriptItem] = [
        Turn([ToolCall("Read", {"file_path": big_name(0)})]),
        HttpError(
            400, "invalid_request_error", "prompt is too long: 201234 tokens > 200000 maximum", should_retry=False
        ),
        Turn([ToolCall("Edit", {"file_path": big_name(0), "old_string": "VERSION = 1", "new_string": "VERSION = 2"})]),
        Turn([Text("Bumped big_0.py.")]),
    ]
    return task, [_summary("Nothing changed yet: big_0.py read.")]


SCRIPTS = {
    "compaction_long_session": long_session,
    "compaction_summary_fails": summary_fails,
    "compaction_summary_retried": summary_retried,
    "compaction_subagent": subagent,
    "compaction_prompt_too_long": prompt_too_long,
}


def cassette_text(name: str) -> str:
    """The cassette: the task turns, then the summary responses, each request tagged with its purpose."""
    task, summaries = SCRIPTS[name]()
    data: dict[str, Any] = yaml.safe_load(cassette_yaml([*task, *summaries], seed=name))
    for i, interaction in enumerate(data["interactions"]):
        body = json.loads(interaction["request"]["body"])
        body["purpose"] = "task" if i < len(task) else "compaction"
        interaction["request"]["body"] = json.dumps(body)
    header = "# Authored with tests.cassettes.compaction_scripts; regenerate it, do not edit it.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


def cassette_path(name: str) -> Path:
    return HERE / f"{name}.yaml"


def purpose_of(body: Any) -> str:
    """``compaction`` for a summary request, ``task`` otherwise (recorded or live)."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(body or "{}")
    except ValueError:
        return "task"
    if "purpose" in data:
        return str(data["purpose"])
    last = (data.get("messages") or [{}])[-1].get("content")
    texts = [b.get("text") for b in last if isinstance(b, dict)] if isinstance(last, list) else []
    return "compaction" if SUMMARY_INSTRUCTIONS in texts else "task"


@contextmanager
def use_compaction_cassette(name: str) -> Iterator[Any]:
    import vcr

    recorder = vcr.VCR()

    def same_purpose(recorded: Any, live: Any) -> None:
        if purpose_of(recorded.body) != purpose_of(live.body):
            raise AssertionError("a different purpose")

    recorder.register_matcher("purpose", same_purpose)
    with recorder.use_cassette(
        str(cassette_path(name)),
        record_mode="none",
        allow_playback_repeats=False,
        match_on=["method", "path", "purpose"],
    ) as cass:
        yield cass


def main(names: Sequence[str] = tuple(SCRIPTS)) -> None:
    for name in names:
        cassette_path(name).write_text(cassette_text(name), encoding="utf-8")
        print(cassette_path(name))


if __name__ == "__main__":
    main()
