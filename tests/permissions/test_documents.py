"""Policy documents in JSON, YAML and TOML: values, the line of every key, syntax errors with lines."""

from __future__ import annotations

import pytest

from bot.errors import ConfigError
from bot.permissions.documents import format_of, parse_document

JSON = """{
  "permissions": {
    "allow": [
      "Read",
      "Edit(src/**)"
    ],
    "deny": ["Read(.env)", "WebFetch"]
  },
  "bot": {"limits": {"max_turns": 5}}
}
"""

YAML = """\
permissions:
  allow:
    - Read
    - Edit(src/**)
  deny: [Read(.env), WebFetch]
bot:
  limits:
    max_turns: 5
"""

TOML = """\
[permissions]
allow = [
  "Read",
  "Edit(src/**)",
]
deny = ["Read(.env)", "WebFetch"]

[bot.limits]
max_turns = 5
"""


@pytest.mark.parametrize(
    ("description", "name", "text", "expected_lines"),
    [
        (
            "JSON",
            "p.json",
            JSON,
            {
                ("permissions", "allow", 1): 5,
                ("permissions", "deny", 1): 7,
                ("bot", "limits", "max_turns"): 9,
                ("permissions",): 2,
            },
        ),
        (
            "YAML",
            "p.yaml",
            YAML,
            {
                ("permissions", "allow", 1): 4,
                ("permissions", "deny", 1): 5,
                ("bot", "limits", "max_turns"): 8,
                ("permissions",): 1,
            },
        ),
        (
            "TOML",
            "p.toml",
            TOML,
            {
                ("permissions", "allow", 1): 4,
                ("permissions", "deny", 1): 6,
                ("bot", "limits", "max_turns"): 9,
                ("permissions",): 1,
            },
        ),
    ],
)
def test_every_format_gives_the_same_data_and_the_lines_of_keys(
    description: str, name: str, text: str, expected_lines: dict[tuple[str | int, ...], int]
) -> None:
    doc = parse_document(text, name)
    assert doc.data == {
        "permissions": {"allow": ["Read", "Edit(src/**)"], "deny": ["Read(.env)", "WebFetch"]},
        "bot": {"limits": {"max_turns": 5}},
    }, description
    for path, line in expected_lines.items():
        assert doc.line(*path) == line, (description, path)


def test_a_missing_position_falls_back_to_the_nearest_parent() -> None:
    doc = parse_document(JSON, "p.json")
    assert doc.line("permissions", "allow", 99) == 3


def test_json_strings_with_escapes_and_brackets_do_not_confuse_the_line_scanner() -> None:
    text = '{\n  "a": "x\\"]}{[",\n  "b": [\n    "\\u00e9",\n    {"c": 1}\n  ]\n}'
    doc = parse_document(text, "p.json")
    assert doc.line("b", 1) == 5 and doc.line("b", 1, "c") == 5 and doc.line("b") == 3


@pytest.mark.parametrize(
    ("description", "name", "text", "line"),
    [
        ("JSON with a trailing comma", "p.json", '{\n  "a": [\n    "x",\n  ]\n}', 4),
        ("JSON that is cut short", "p.json", '{\n  "a": 1,\n', 3),
        ("YAML with a bad indent", "p.yml", "a:\n  - x\n - y\n", 3),
        ("TOML with a missing value", "p.toml", "[a]\nb =\n", 2),
    ],
)
def test_syntax_errors_name_the_file_and_the_line(description: str, name: str, text: str, line: int) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_document(text, name)
    assert caught.value.path == name and caught.value.line == line, (description, str(caught.value))


@pytest.mark.parametrize(
    ("description", "text", "line", "comments"),
    [
        ("a line comment inside an array", '{\n  "allow": [\n    // "Read"\n  ]\n}', 3, True),
        ("a line comment after a value", '{\n  "a": 1 // one\n}', 2, True),
        ("a block comment", '{\n  /* the rules */\n  "a": 1\n}', 2, True),
        ("a trailing comma is not about comments", '{\n  "a": [\n    "x",\n  ]\n}', 4, False),
        ("a single slash is not a comment", '{\n  "a": /x\n}', 2, False),
    ],
)
def test_a_json_comment_is_named_as_the_cause(description: str, text: str, line: int, comments: bool) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_document(text, "p.json")
    assert caught.value.line == line, description
    assert ("comments are not allowed in JSON" in str(caught.value)) is comments, (description, str(caught.value))


def test_the_format_comes_from_the_extension() -> None:
    assert [format_of(n) for n in ("a.json", "a.YAML", "a.yml", "a.toml")] == ["json", "yaml", "yaml", "toml"]
    with pytest.raises(ConfigError, match="unknown policy file type"):
        format_of("policy.ini")


def test_an_empty_yaml_file_is_an_empty_policy() -> None:
    assert parse_document("", "p.yaml").data == {}


# ----- bounds: a policy is one pull request away from anyone ----------------------------------------

_DEEP = 10_000
_LAUGHS = "permissions:\n  allow: [Read]\n" + "".join(
    f"l{k}: &l{k} [{', '.join(['*l' + str(k - 1)] * 9) if k else ', '.join(['lol'] * 9)}]\n" for k in range(9)
)


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    ("description", "name", "text", "fragment"),
    [
        (
            "JSON nested ten thousand deep",
            ".github/bot-policy.json",
            '{"permissions": {"allow": ' + "[" * _DEEP + "]" * _DEEP + "}}",
            "levels deep",
        ),
        (
            "YAML nested ten thousand deep",
            ".github/bot-policy.yml",
            "permissions: " + "[" * _DEEP + "]" * _DEEP,
            "levels deep",
        ),
        ("TOML nested ten thousand deep", ".github/bot-policy.toml", "x = " + "[" * _DEEP + "]" * _DEEP, "levels deep"),
        ("a YAML billion laughs", ".github/bot-policy.yml", _LAUGHS, "alias"),
        ("a YAML alias to itself", ".github/bot-policy.yml", "permissions: &p {allow: [*p]}\n", "alias"),
    ],
)
def test_policy_bombs_are_config_errors_naming_the_file(description: str, name: str, text: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_document(text, name)
    assert str(caught.value).startswith(name + ":"), description
    assert fragment in str(caught.value), description


def test_a_policy_file_that_is_too_large_is_refused() -> None:
    text = '{"permissions": {"allow": [' + ", ".join(['"Read"'] * 200_000) + "]}}"
    with pytest.raises(ConfigError, match="bytes; at most"):
        parse_document(text, ".github/bot-policy.json")
