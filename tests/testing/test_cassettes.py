"""The cassette authoring helper writes the Messages API's streaming format exactly."""

from __future__ import annotations

import json
import random
from itertools import pairwise

import pytest

from bot.testing.cassettes import (
    HttpError,
    Ids,
    SseEvent,
    Text,
    ToolCall,
    Turn,
    Usage,
    build_cassette,
    cassette_yaml,
    script_responses,
    split_json,
    turn_events,
)
from tests.cassettes.scripts import CASSETTES, cassette_path


def events_of(turn: Turn) -> list[SseEvent]:
    return turn_events(turn, Ids("t"), random.Random(1))


@pytest.mark.parametrize("name", sorted(CASSETTES))
def test_each_committed_cassette_is_what_its_script_builds(name: str) -> None:
    assert cassette_path(name).read_text() == cassette_yaml(CASSETTES[name], seed=name), (
        f"{name}.yaml is stale: run `python -m tests.cassettes.scripts`"
    )


@pytest.mark.parametrize(
    ("case", "value"),
    [
        ("plain", {"file_path": "src/calc.py"}),
        ("escapes", {"content": 'line one\nline "two"\tand a backslash \\ end'}),
        ("unicode escapes", {"text": "caf\u00e9 \u2603 \U0001f600"}),
        ("nested", {"todos": [{"content": "a", "status": "pending"}], "n": 12345, "ok": True}),
    ],
)
def test_tool_json_is_split_at_odd_places_but_never_inside_an_escape(case: str, value: dict[str, object]) -> None:
    raw = json.dumps(value)  # ASCII-escaped, so \\uXXXX sequences appear too
    for seed in range(30):
        chunks = split_json(raw, random.Random(seed))
        assert "".join(chunks) == raw, case
        position = 0
        for chunk in chunks[:-1]:
            position += len(chunk)
            backslashes = len(raw[:position]) - len(raw[:position].rstrip("\\"))
            assert backslashes % 2 == 0, f"{case}: a chunk ends inside an escape"
            assert not any(raw[position - k : position - k + 2] == "\\u" for k in range(1, 6)), case


def test_a_turn_has_the_apis_event_order_and_index_fields() -> None:
    events = events_of(Turn([Text("Reading."), ToolCall("Read", {"file_path": "a.py"})]))
    names = [e.name for e in events]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    starts = [e.data for e in events if e.name == "content_block_start"]
    assert [(s["index"], s["content_block"]["type"]) for s in starts] == [(0, "text"), (1, "tool_use")]
    assert starts[1]["content_block"]["input"] == {} and starts[1]["content_block"]["id"].startswith("toolu_01")
    tool_deltas = [e.data["delta"] for e in events if e.name == "content_block_delta" and e.data["index"] == 1]
    assert tool_deltas[0] == {"type": "input_json_delta", "partial_json": ""}
    assert json.loads("".join(d["partial_json"] for d in tool_deltas)) == {"file_path": "a.py"}
    stops = [e.data["index"] for e in events if e.name == "content_block_stop"]
    assert stops == [0, 1]


def test_usage_is_in_message_start_and_cumulative_in_message_delta() -> None:
    events = events_of(
        Turn([Text("hi")], usage=Usage(10, 20, cache_read_input_tokens=30, cache_creation_input_tokens=40))
    )
    start = events[0].data["message"]["usage"]
    assert (start["input_tokens"], start["output_tokens"], start["cache_read_input_tokens"]) == (10, 1, 30)
    assert start["cache_creation"] == {"ephemeral_5m_input_tokens": 40, "ephemeral_1h_input_tokens": 0}
    delta = events[-2].data
    assert delta["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert delta["usage"]["output_tokens"] == 20 and delta["usage"]["cache_creation_input_tokens"] == 40


def test_a_cut_stream_ends_in_the_middle_of_an_event() -> None:
    [response] = script_responses([Turn([Text("a"), ToolCall("Read", {"file_path": "x"})], cut_after_block=0)])
    body = response.body.decode()
    assert "message_stop" not in body and not body.endswith("\n\n")
    assert body.rsplit("\n\n", 1)[0].endswith('"type":"content_block_stop","index":0}')


def test_an_overload_mid_stream_is_an_error_event() -> None:
    events = events_of(Turn([Text("a"), Text("b")], error_after_block=0))
    assert events[-1].name == "error" and events[-1].data["error"]["type"] == "overloaded_error"
    assert events[-2].name == "content_block_stop"


def test_errors_are_json_bodies_with_the_apis_headers() -> None:
    cassette = build_cassette([HttpError(529, retry_after=3)])
    response = cassette["interactions"][0]["response"]
    assert response["status"]["code"] == 529
    assert response["headers"]["x-should-retry"] == ["true"] and response["headers"]["retry-after"] == ["3"]
    assert response["headers"]["request-id"][0].startswith("req_011C")
    assert json.loads(response["body"]["string"])["error"]["type"] == "overloaded_error"


def test_ids_are_deterministic_for_a_seed() -> None:
    assert build_cassette([Turn([Text("x")])], seed="a") == build_cassette([Turn([Text("x")])], seed="a")
    assert build_cassette([Turn([Text("x")])], seed="a") != build_cassette([Turn([Text("x")])], seed="b")


def test_paced_events_carry_their_release_times() -> None:
    events = events_of(
        Turn(
            [Text("one two three four", seconds=1.0), ToolCall("Read", {"file_path": "x"}, seconds=0.5)],
            first_token_s=0.2,
        )
    )
    assert events[0].at_s == 0.2
    assert events[-1].at_s == pytest.approx(1.7)
    assert all(a.at_s <= b.at_s for a, b in pairwise(events))
