"""The scripts the model cassettes in this directory are authored from.

Regenerate every cassette with ``python -m tests.cassettes.scripts``; a test fails when a cassette
no longer matches its script. Usage figures follow a real prompt-cached session: the first request
writes the cache, later ones read it and write only the new tail.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bot.testing.cassettes import HttpError, ScriptItem, Text, ToolCall, Turn, Usage, write_cassette

HERE = Path(__file__).resolve().parent
SONNET = "claude-sonnet-5-5"
HAIKU = "claude-haiku-5-5"

CALC_BUGGY = "def add(a, b):\n    return a - b\n"
TEST_CALC = (
    "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    'if __name__ == "__main__":\n    test_add()\n    print("1 passed")\n'
)
TEST_COMMAND = "python test_calc.py"

_TODOS = [
    {"content": "Read calc.py and its test", "status": "in_progress", "activeForm": "Reading calc.py and its test"},
    {"content": "Fix add()", "status": "pending", "activeForm": "Fixing add()"},
    {"content": "Run the test", "status": "pending", "activeForm": "Running the test"},
]

MULTI_TURN_FIX: list[ScriptItem] = [
    Turn(
        [
            Text("I'll plan this, then read the implementation and its test together."),
            ToolCall("TodoWrite", {"todos": _TODOS}),
            ToolCall("Read", {"file_path": "calc.py"}),
            ToolCall("Read", {"file_path": "test_calc.py"}),
        ],
        usage=Usage(input_tokens=12, output_tokens=240, cache_creation_input_tokens=5_120),
    ),
    Turn(
        [
            Text("`add` subtracts instead of adding. Fixing it."),
            ToolCall("Edit", {"file_path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"}),
        ],
        usage=Usage(input_tokens=9, output_tokens=120, cache_read_input_tokens=5_120, cache_creation_input_tokens=640),
    ),
    Turn(
        [ToolCall("Bash", {"command": TEST_COMMAND, "description": "Run the calc test"})],
        usage=Usage(input_tokens=7, output_tokens=60, cache_read_input_tokens=5_760, cache_creation_input_tokens=210),
    ),
    Turn(
        [Text("Fixed `add` in calc.py: it returned `a - b` and now returns `a + b`. `python test_calc.py` passes.")],
        usage=Usage(input_tokens=6, output_tokens=45, cache_read_input_tokens=5_970, cache_creation_input_tokens=95),
    ),
]

_READ_TURN_BLOCKS: list[Text | ToolCall] = [
    Text("Let me read the file."),
    ToolCall("Read", {"file_path": "calc.py"}),
    Text("Then I will summarise it."),
]
RETRIES: list[ScriptItem] = [
    # The connection drops after the Read block is complete (so the Read has started) but mid-response.
    Turn(_READ_TURN_BLOCKS, cut_after_block=1, usage=Usage(input_tokens=3_000)),
    # The API overloads mid-stream: an `event: error` after the first text block.
    Turn(_READ_TURN_BLOCKS, error_after_block=0, usage=Usage(input_tokens=3_000)),
    HttpError(529, "overloaded_error", "Overloaded", retry_after=2),
    Turn(_READ_TURN_BLOCKS, usage=Usage(input_tokens=3_000, output_tokens=80)),
    Turn([Text("calc.py defines `add`, which subtracts.")], usage=Usage(input_tokens=3_100, output_tokens=20)),
]

_BIG = Usage(input_tokens=30_000, output_tokens=600)  # $0.066 a turn at Sonnet 5.5 prices
BUDGET: list[ScriptItem] = [
    Turn([ToolCall("Read", {"file_path": "calc.py"})], usage=_BIG),
    Turn(
        [
            Text("Fixing the sign."),
            ToolCall("Edit", {"file_path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"}),
        ],
        usage=_BIG,
    ),
    # Never requested: the budget is spent after the second turn.
    Turn([ToolCall("Bash", {"command": TEST_COMMAND})], usage=_BIG),
]

TRACKER_TOOL = "mcp__tracker__create_ticket"
TOOL_SEARCH: list[ScriptItem] = [
    Turn(
        [
            Text("I need a way to file a ticket; searching the deferred tools."),
            ToolCall("ToolSearch", {"query": "ticket tracker"}),
        ]
    ),
    Turn([ToolCall(TRACKER_TOOL, {"title": "add() subtracts", "body": "calc.add returns a - b."})]),
    Turn([Text("Filed ticket TCK-1 for the bug.")]),
]

SUBAGENT_WORKTREE: list[ScriptItem] = [
    Turn(
        [
            Text("I'll delegate the typo fix to an isolated agent."),
            ToolCall(
                "Agent",
                {
                    "description": "Fix README typo",
                    "subagent_type": "general-purpose",
                    "model": "haiku",
                    "isolation": "worktree",
                    "prompt": "In README.md, 'Calculater' is misspelt. Fix it to 'Calculator'.",
                },
            ),
        ]
    ),
    Turn([ToolCall("Read", {"file_path": "README.md"})], model=HAIKU),
    Turn(
        [ToolCall("Edit", {"file_path": "README.md", "old_string": "Calculater", "new_string": "Calculator"})],
        model=HAIKU,
    ),
    Turn([Text("Fixed the typo in README.md ('Calculater' → 'Calculator').")], model=HAIKU),
    Turn([Text("The sub-agent fixed the typo; its diff is ready to apply.")]),
]

DENIAL: list[ScriptItem] = [
    Turn(
        [
            Text("I'll remove the stale build directory first."),
            ToolCall("Bash", {"command": "rm -rf build", "description": "Remove build output"}),
        ]
    ),
    Turn(
        [
            Text("Deleting is not allowed here; I'll list what is in build/ instead."),
            ToolCall("Glob", {"pattern": "build/**"}),
        ]
    ),
    Turn(
        [
            Text(
                "I could not delete build/ (the policy denies `rm`). It holds build/out.txt; "
                "a maintainer can remove it."
            )
        ]
    ),
]

REPEATED_DENIAL: list[ScriptItem] = [
    Turn([ToolCall("Bash", {"command": "rm -rf build", "description": "Remove build output"})]),
    Turn(
        [
            Text("Trying again with a narrower path."),
            ToolCall("Bash", {"command": "rm -rf build/out.txt", "description": "Remove the file"}),
        ]
    ),
    Turn([Text("The policy does not let me delete files; build/out.txt stays for a maintainer to remove.")]),
]

BACKGROUND_AGENT: list[ScriptItem] = [
    Turn(
        [
            ToolCall(
                "Agent",
                {
                    "description": "Count TODO notes",
                    "subagent_type": "Explore",
                    "model": "haiku",
                    "run_in_background": True,
                    "prompt": "How many files under src/ contain TODO?",
                },
            )
        ]
    ),
    Turn([Text("The explorer is counting; I'll wait for its report.")]),
    Turn([Text("Two files contain TODO notes.")], model=HAIKU),
    Turn([Text("The explorer found TODO notes in two files.")]),
]

BACKGROUND_AGENT_TASK_OUTPUT: list[ScriptItem] = [
    BACKGROUND_AGENT[0],
    Turn([Text("I'll read the explorer's report when it is ready."), ToolCall("TaskOutput", {"task_id": "agent-1"})]),
    BACKGROUND_AGENT[2],
    Turn([Text("The explorer found TODO notes in two files.")]),
]

MAX_TOKENS_CUT: list[ScriptItem] = [
    Turn(
        [
            Text("Writing the notes file."),
            ToolCall(
                "Write",
                {"file_path": "NOTES.md", "content": "# Notes\n\n" + "A long line of notes. " * 20},
                cut_json=60,
            ),
        ],
        stop_reason="max_tokens",
    ),
    Turn([ToolCall("Write", {"file_path": "NOTES.md", "content": "# Notes\n"})]),
    Turn([Text("Wrote NOTES.md.")]),
]

#: A repository's own agent type (``.claude/agents/code-reviewer.md``): the child runs on the
#: definition's model with the definition's prompt and tools.
CUSTOM_AGENT: list[ScriptItem] = [
    Turn(
        [
            Text("I'll ask the project's reviewer to look at calc.py."),
            ToolCall(
                "Agent",
                {
                    "description": "Review calc.py",
                    "subagent_type": "code-reviewer",
                    "prompt": "Review calc.py for correctness and report findings with line numbers.",
                },
            ),
        ]
    ),
    Turn([ToolCall("Read", {"file_path": "calc.py"})]),
    Turn([Text("Finding: add() subtracts instead of adding (calc.py:2).")]),
    Turn([Text("The reviewer found that add() subtracts instead of adding.")]),
]

CASSETTES: dict[str, Sequence[ScriptItem]] = {
    "multi_turn_fix": MULTI_TURN_FIX,
    "retries": RETRIES,
    "budget": BUDGET,
    "tool_search": TOOL_SEARCH,
    "subagent_worktree": SUBAGENT_WORKTREE,
    "denial": DENIAL,
    "repeated_denial": REPEATED_DENIAL,
    "background_agent": BACKGROUND_AGENT,
    "background_agent_task_output": BACKGROUND_AGENT_TASK_OUTPUT,
    "max_tokens_cut": MAX_TOKENS_CUT,
    "custom_agent": CUSTOM_AGENT,
}


def cassette_path(name: str) -> Path:
    return HERE / f"{name}.yaml"


def main() -> None:
    for name, script in CASSETTES.items():
        print(write_cassette(cassette_path(name), script, seed=name))


if __name__ == "__main__":
    main()
