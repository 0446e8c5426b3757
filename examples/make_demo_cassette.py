"""Author the demo's model cassette: `python examples/make_demo_cassette.py`.

The demo replays a model session that fixes the bug in `examples/demo-repo` (median of an even
number of values). Only the model's words come from the cassette — in the API's real streaming
format, parsed by the real SDK; every tool call (Read, Bash running the tests, Edit) runs for real.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bot.testing.cassettes import Text, ToolCall, Turn, Usage, write_cassette  # noqa: E402

MODEL = "claude-sonnet-5-5"
#: The task the session answers (README's command): recorded, so a replay with another prompt says so.
PROMPT = "Fix the failing test"
TESTS = "python3 -m unittest -q"
TODOS = [
    {"content": "Read stats.py and its tests", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Reproduce the failure", "status": "in_progress", "activeForm": "Running the tests"},
    {"content": "Fix median() for even counts", "status": "pending", "activeForm": "Fixing median()"},
    {"content": "Run the tests again", "status": "pending", "activeForm": "Running the tests again"},
]


def done(upto: int) -> list[dict[str, str]]:
    return [{**t, "status": "completed" if i < upto else ("in_progress" if i == upto else "pending")}
            for i, t in enumerate(TODOS)]


SCRIPT = [
    Turn([Text("I'll read the module and its tests first."),
          ToolCall("Read", {"file_path": "stats.py"}),
          ToolCall("Read", {"file_path": "test_stats.py"})],
         model=MODEL, usage=Usage(input_tokens=14, output_tokens=120, cache_creation_input_tokens=9_800)),
    Turn([ToolCall("TodoWrite", {"todos": done(1)}),
          ToolCall("Bash", {"command": TESTS, "description": "Run the test suite"})],
         model=MODEL, usage=Usage(input_tokens=10, output_tokens=140, cache_read_input_tokens=9_800,
                                  cache_creation_input_tokens=1_400)),
    Turn([Text("`test_median_even` fails: for an even count `median()` returns the upper middle value "
               "instead of the mean of the two middle values. Fixing it."),
          ToolCall("Edit", {"file_path": "stats.py",
                            "old_string": "        return ordered[middle]\n    return ordered[middle]\n",
                            "new_string": "        return ordered[middle]\n"
                                          "    return (ordered[middle - 1] + ordered[middle]) / 2\n"}),
          ToolCall("TodoWrite", {"todos": done(3)})],
         model=MODEL, usage=Usage(input_tokens=9, output_tokens=210, cache_read_input_tokens=11_200,
                                  cache_creation_input_tokens=900)),
    Turn([ToolCall("Bash", {"command": TESTS, "description": "Run the test suite again"}),
          ToolCall("TodoWrite", {"todos": done(4)})],
         model=MODEL, usage=Usage(input_tokens=8, output_tokens=60, cache_read_input_tokens=12_100,
                                  cache_creation_input_tokens=420)),
    Turn([Text("Fixed `median()` in `stats.py`: for an even number of values it now returns the mean of the "
               "two middle values (`median([4, 1, 3, 2]) == 2.5`) instead of the upper one. "
               f"`{TESTS}` passes (3 tests).")],
         model=MODEL, usage=Usage(input_tokens=7, output_tokens=95, cache_read_input_tokens=12_520,
                                  cache_creation_input_tokens=300)),
]

if __name__ == "__main__":
    path = write_cassette(HERE / "demo.cassette.yaml", SCRIPT, seed="demo", prompt=PROMPT)
    print(f"wrote {path}")
