"""sed's text commands (a, i, c) are literal text; what follows them on another line is a command.
The cases were checked against GNU sed 4.9."""

from __future__ import annotations

import pytest

from bot.shell.programs.sed import unsafe_sed_reason


@pytest.mark.parametrize(
    ("description", "script", "safe"),
    [
        ("append after a regex address", "/\\[features\\]/a plsend = 1", True),
        ("insert a shebang on line 1", "1i #!/usr/bin/env python3", True),
        ("change a line", "2c new text", True),
        ("a ; inside the text is text", "$a done; w /etc/x", True),
        ("classic a\\ with continued lines", "a\\\nfoo\\\nbar", True),
        ("a command on the line after the text", "a\\\nfoo\\\nbar\nw /tmp/x", False),
        ("e after an append line", "a x\ne id", False),
        ("an even number of backslashes ends the text", "a x\\\\\nw /tmp/x", False),
    ],
)
def test_text_commands(description: str, script: str, safe: bool) -> None:
    assert (unsafe_sed_reason(script) is None) is safe, description
