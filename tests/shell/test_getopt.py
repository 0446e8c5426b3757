"""Options read the way GNU getopt_long and git's parse-options read them."""

from __future__ import annotations

import pytest

from bot.shell.programs.getopt import Option, is_option, long_name, options, short_letters


@pytest.mark.parametrize(
    ("description", "word", "letters", "expected"),
    [
        ("flags only", "-xvz", "fC", [("x", None), ("v", None), ("z", None)]),
        ("a value letter takes the rest of the word", "-xfC", "fC", [("x", None), ("f", "C")]),
        ("a value letter at the end takes the next word", "-xf", "fC", [("x", None), ("f", None)]),
        ("an attached value", "-C/etc", "fC", [("C", "/etc")]),
    ],
)
def test_short_bundles_decode_like_getopt(
    description: str, word: str, letters: str, expected: list[tuple[str, str | None]]
) -> None:
    assert short_letters(word, letters) == expected, description


@pytest.mark.parametrize(
    ("description", "written", "expected"),
    [
        ("exact", "--upload-pack", "--upload-pack"),
        ("abbreviated", "--upload-pa", "--upload-pack"),
        ("one letter is enough for getopt_long", "--u", "--upload-pack"),
        ("a bare -- is no option", "--", None),
        ("not a prefix", "--uploader", None),
        ("a short option is never an abbreviation", "-u", None),
    ],
)
def test_long_options_resolve_abbreviations(description: str, written: str, expected: str | None) -> None:
    assert long_name(written, {"--upload-pack", "--exec"}) == expected, description


def test_is_option_ignores_an_attached_value() -> None:
    assert is_option("--outp=~/.bashrc", {"--output"})
    assert not is_option("--out-of-tree", {"--output"})


def test_options_walk_bundles_values_and_positionals_in_order() -> None:
    argv = ["tar", "-xf", "x.tar", "-C/", "--dir=/etc", "--to-comm", "sh", "file", "--", "-not-an-option"]
    got = list(options(argv, value_letters="fC", value_names={"--directory", "--to-command"}))
    assert got == [
        Option("-x", None, 1, None),
        Option("-f", "x.tar", 1, 2),
        Option("-C", "/", 3, 3),
        Option("--directory", "/etc", 4, 4),
        Option("--to-command", "sh", 5, 6),
        Option("", None, 7, None, "file"),
        Option("", None, 9, None, "-not-an-option"),
    ]


def test_options_can_stop_at_the_first_positional() -> None:
    got = list(options(["npm", "--yes", "exec", "--", "sh"], stop_at_positional=True))
    assert [o.name or o.word for o in got] == ["--yes", "exec", "--", "sh"]


def test_a_value_option_at_the_end_has_no_value() -> None:
    assert list(options(["sort", "-o"], value_letters="o")) == [Option("-o", None, 1, None)]
