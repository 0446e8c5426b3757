"""JSON, YAML and TOML are read within bounds: a clear error that names the file, the line and the
limit, never a ``RecursionError`` traceback or minutes spent expanding an alias bomb."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable

import pytest

from bot.core.bounded import (
    MAX_DEPTH,
    MAX_INPUT_DEPTH,
    check_input_bounds,
    json_nesting_problem,
    load_json,
    load_toml,
    nesting_depth,
)
from bot.core.bounded_yaml import load_yaml
from bot.errors import ConfigError

DEEP = 10_000

#: The classic "billion laughs" in YAML: nine levels, each referring nine times to the one before.
BILLION_LAUGHS = (
    "\n".join(
        ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        + [
            f"{chr(ord('a') + k)}: &{chr(ord('a') + k)} [{','.join(['*' + chr(ord('a') + k - 1)] * 9)}]"
            for k in range(1, 9)
        ]
    )
    + "\n"
)

#: The same explosion through merge keys: every level merges the one before nine times under new keys.
MERGE_BOMB = (
    "\n".join(
        ["l0: &l0 {k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7, k8: 8}"]
        + [f"l{k}: &l{k} {{" + ", ".join(f"m{j}: {{<<: *l{k - 1}}}" for j in range(9)) + "}" for k in range(1, 9)]
    )
    + "\n"
)


def test_json_nested_ten_thousand_deep_is_a_config_error_with_the_line() -> None:
    text = '{\n  "permissions":\n' + "[" * DEEP + "]" * DEEP + "}"
    with pytest.raises(ConfigError) as caught:
        load_json(text, source=".github/bot-policy.json")
    message = str(caught.value)
    assert message.startswith(".github/bot-policy.json:3: ")
    assert f"at most {MAX_DEPTH}" in message


def test_json_at_the_limit_is_read() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert nesting_depth(text) == (MAX_DEPTH, MAX_DEPTH - 1)
    assert load_json(text, source="x.json") is not None


def test_brackets_inside_json_strings_do_not_count() -> None:
    text = json.dumps({"a": "[" * 500 + '\\"{' * 100})
    assert load_json(text, source="x.json") == {"a": "[" * 500 + '\\"{' * 100}


@pytest.mark.parametrize(
    ("description", "text", "fragment"),
    [
        ("too large", "[" + "1," * 600_000 + "1]", "at most 1,048,576 are read"),
        ("a syntax error", '{"a": 1,\n "b": }', "x.json:2: invalid JSON"),
        ("a comment", '// no\n{"a": 1}', "comments are not allowed"),
        ("an integer too long to convert", "1" * 5_000, "invalid JSON"),
    ],
)
def test_json_errors_name_the_file(description: str, text: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=r"x\.json") as caught:
        load_json(text, source="x.json")
    assert fragment in str(caught.value), description


def peak_bytes_of(call: Callable[[], object]) -> int:
    """The most memory ``call`` held at once: a refusal before expanding holds kilobytes, an
    expansion gigabytes (measured by allocation, not by a clock a busy machine slows)."""
    tracemalloc.start()
    try:
        call()
    except ConfigError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_billion_laughs_is_refused_before_it_expands() -> None:
    assert peak_bytes_of(lambda: load_yaml(BILLION_LAUGHS, source=".github/bot-policy.yml")) < 10_000_000
    with pytest.raises(ConfigError) as caught:
        load_yaml(BILLION_LAUGHS, source=".github/bot-policy.yml")
    assert str(caught.value).startswith(".github/bot-policy.yml:")
    assert "alias" in str(caught.value)


def test_a_merge_key_bomb_is_refused_before_it_expands() -> None:
    with pytest.raises(ConfigError, match="alias"):
        load_yaml(MERGE_BOMB, source="p.yml", max_aliases=1_000)  # under the alias count: the size stops it
    assert peak_bytes_of(lambda: load_yaml(MERGE_BOMB, source="p.yml", max_aliases=1_000)) < 10_000_000


def test_a_few_aliases_expanding_a_lot_are_refused_by_size() -> None:
    # 30 aliases: under the count, but 2^30 values once expanded.
    text = "a0: &a0 [x, y]\n" + "".join(f"a{k}: &a{k} [*a{k - 1}, *a{k - 1}]\n" for k in range(1, 16))
    with pytest.raises(ConfigError, match="expanded, more than"):
        load_yaml(text, source="p.yml")


def test_yaml_nested_ten_thousand_deep_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=f"at most {MAX_DEPTH}") as caught:
        load_yaml("permissions: " + "[" * DEEP + "]" * DEEP + "\n", source="p.yml")
    assert "p.yml:1:" in str(caught.value)


def test_yaml_deep_through_a_chain_of_aliases_is_refused() -> None:
    text = "a0: &a0 [1]\n" + "".join(f"a{k}: &a{k} [*a{k - 1}]\n" for k in range(1, 90))
    with pytest.raises(ConfigError, match="with its aliases expanded, nested more than"):
        load_yaml(text, source="p.yml")


def test_a_yaml_alias_to_its_own_container_is_refused() -> None:
    with pytest.raises(ConfigError, match="refers to the node that contains it"):
        load_yaml("a: &a [1, *a]\n", source="p.yml")


def test_real_yaml_with_anchors_and_merge_keys_is_read() -> None:
    text = (
        "defaults: &defaults\n  allow: [Read, Grep]\n  deny: [Bash(rm:*)]\n"
        "fix:\n  <<: *defaults\n  ask: [Edit]\nreview:\n  <<: *defaults\n"
    )
    data = load_yaml(text, source="p.yml")
    assert data["fix"] == {"allow": ["Read", "Grep"], "deny": ["Bash(rm:*)"], "ask": ["Edit"]}
    assert data["review"]["allow"] == ["Read", "Grep"]


def test_too_many_aliases_are_refused_with_the_line() -> None:
    text = "a: &a 1\nb: [" + ", ".join(["*a"] * 150) + "]\n"
    with pytest.raises(ConfigError, match="more than 100 YAML aliases") as caught:
        load_yaml(text, source="p.yml")
    assert "p.yml:2:" in str(caught.value)


def test_toml_nested_ten_thousand_deep_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=f"at most {MAX_DEPTH}"):
        load_toml("x = " + "[" * DEEP + "]" * DEEP + "\n", source="p.toml")


def test_toml_strings_and_comments_do_not_count() -> None:
    text = "a = '[[[['\nb = \"{{{{\"\nc = '''\n[[[[[\n'''\n# [[[[[[\n[t]\nd = [[1], [2]]\n"
    assert nesting_depth(text, toml=True)[0] == 2
    assert load_toml(text, source="p.toml")["t"]["d"] == [[1], [2]]


def test_a_deep_tool_input_is_an_error_the_model_can_correct() -> None:
    value: object = "leaf"
    for _ in range(DEEP):
        value = {"a": [value]}
    message = check_input_bounds(value)
    assert message is not None
    assert message.startswith("InputValidationError:") and f"{MAX_INPUT_DEPTH} levels" in message
    assert check_input_bounds({"command": "ls", "options": {"a": [1, {"b": 2}]}}) is None


def test_deep_tool_input_text_is_caught_before_it_is_decoded() -> None:
    assert json_nesting_problem('{"a": ' + "[" * DEEP + "]" * DEEP + "}") is not None
    assert json_nesting_problem('{"command": "echo ' + "[" * 100 + '"}') is None
