"""The decision for a whole command string (seeds 4.6.2): checks, parse, compound aggregation.

1. the text-level security checks (:mod:`bot.shell.judge.security_checks`) — any hit is "ask";
2. the tree-sitter parse — "too complex" is "ask", "parser unavailable" goes to the conservative
   fallback below;
3. every simple command, in order, with the directory and environment earlier ones leave behind
   (:mod:`bot.shell.judge.command`); scripts handed to ``sh -c``/``eval`` recurse through here;
4. aggregation: any deny → deny, any ask → ask, any command no rule covers → unmatched, else allow.

A command that cannot be judged still gets its deny rules applied on a best-effort split
(:func:`best_effort_rule`), so the denial names the rule the maintainer wrote.
"""

from __future__ import annotations

import os
import re
import shlex

from bot.shell.judge.command import MAX_SUBCOMMANDS, Judge
from bot.shell.judge.known_output import rewrite
from bot.shell.judge.loops import unroll_for
from bot.shell.judge.rule_match import canonical
from bot.shell.judge.scan import Options
from bot.shell.judge.security_checks import text_findings
from bot.shell.judge.verdict import ALLOW_NEUTRAL, State, Verdict, combine
from bot.shell.parse.syntax import Assignment, Parsed, ParseUnavailable, ScopeMarker, SimpleCommand, TooComplex, Word
from bot.shell.parse.walk import parse_command
from bot.shell.paths.link_makers import EXTRACTORS, LINK_MAKERS
from bot.shell.paths.listings import plain_listing, reader_fed_by_listing
from bot.shell.paths.resolve import within
from bot.shell.programs.git import git_subcommand_position

_ROUGH_SPLIT = re.compile(r"\|\||&&|\$\(|<\(|>\(|[;|&\n()`{}]")
_SKIPPABLE = frozenset(
    {
        "env",
        "sudo",
        "doas",
        "timeout",
        "nice",
        "nohup",
        "command",
        "builtin",
        "exec",
        "xargs",
        "time",
        "stdbuf",
        "setsid",
        "ionice",
        "eval",
        "then",
        "do",
        "else",
        "if",
        "while",
        "!",
    }
)
_AND_CHAIN = frozenset({"&&", "|", "|&"})
_CONCURRENT = frozenset({"&", "|", "|&"})
_PLAIN_COMMAND = re.compile(r"^[A-Za-z0-9_./:=@%+,\- '\"]+$")


def decide_command(command: str, options: Options, cwd: str) -> Verdict:
    """The verdict for ``command`` run from ``cwd`` under ``options``."""
    judge = Judge(options, lambda script, state, depth: _decide(script, options, state, depth, judge))
    return _decide(command, options, State(cwd), 0, judge)


def _decide(command: str, options: Options, state: State, depth: int, judge: Judge) -> Verdict:
    finding = text_findings(command)
    if (finding is not None and finding.check_id == 8) or (finding is None and "PWD" in command):
        known = _known_output(command, options, state, depth, judge)
        if known is not None:
            return known
    if finding is not None:
        rule = best_effort_rule(command, options)
        if rule is not None:
            return rule
        check = _git_commit_check(finding.check_id, command)
        return Verdict("ask", finding.message, check_id=check, source="safety")
    outcome = parse_command(command)
    if isinstance(outcome, TooComplex):
        rule = best_effort_rule(command, options)
        if rule is not None:
            return rule
        unrolled = (
            unroll_for(command, state.cwd if not state.others else None)
            if outcome.reason.endswith("a for loop")
            else None
        )
        if unrolled is not None:
            return _as_written(_decide(unrolled, options, state, depth, judge), " (in the loop's body)")
        check = _git_commit_check(outcome.check_id, command)
        return Verdict("ask", f"the command is too complex to judge: {outcome.reason}", check_id=check)
    if isinstance(outcome, ParseUnavailable):
        return _fallback(command, outcome, state, judge)
    if len(outcome.commands) > MAX_SUBCOMMANDS:
        rule = best_effort_rule(command, options)
        return rule or Verdict("deny", f"the command has more than {MAX_SUBCOMMANDS} subcommands", source="safety")
    if "&" in outcome.operators and _makes_links(outcome):
        # A background job runs alongside the rest: what one creates, the other may use, in any order.
        return Verdict(
            "ask",
            "a background job (&) runs alongside a command that may create symbolic links "
            "(run them as separate commands)",
        )
    if depth == 0 and len(outcome.commands) > 1 and options.rules.deny.rules:
        whole = " ".join(command.split())
        found = options.rules.deny.first(whole, whole.split(" ", 1)[0])
        if found is not None:
            return Verdict("deny", f"a deny rule forbids `{whole}`", found.rule.ref, source="rule")
    saved = judge.depth, judge.paths.chained, judge.paths.concurrent, judge.paths.listing_reader
    judge.paths.listing_reader = _reader_fed_by_plain_listing(outcome, state, options)
    judge.depth = depth
    # In an `&&` chain (pipes aside) what follows a `cd` runs only if the `cd` ran and succeeded.
    judge.paths.chained = _AND_CHAIN.issuperset(outcome.operators)
    # Once anything runs alongside, it does for every nested part too.
    judge.paths.concurrent = judge.paths.concurrent or (
        not _CONCURRENT.isdisjoint(outcome.operators) and not all(map(_writes_nothing, outcome.commands))
    )
    try:
        return run_items(outcome, state, judge)
    finally:
        judge.depth, judge.paths.chained, judge.paths.concurrent, judge.paths.listing_reader = saved


def _known_output(command: str, options: Options, state: State, depth: int, judge: Judge) -> Verdict | None:
    """``make -j$(nproc)``, ``"$(pwd)"``, ``$PWD``: substitutions whose output is known in shape
    are judged as the command with that output in their place, plus the commands they run
    (:mod:`bot.shell.judge.known_output`); ``None`` when there is one of any other kind."""
    toplevel = _workspace_top(state.logical, options.paths.roots) if "--show-toplevel" in command else None
    rewritten = rewrite(command, state.logical, certain=not state.others, toplevel=toplevel)
    if rewritten is None or rewritten.command == command:
        return None
    verdicts = []
    for inner in rewritten.fixed:
        verdict = _decide(inner, options, state.copy(), depth + 1, judge)
        # A fixed form that only prints a number or a hash needs no allow rule of its own; a deny or
        # ask rule on it still applies.
        verdicts.append(ALLOW_NEUTRAL if verdict.kind == "nomatch" else verdict)
    # A process substitution's command runs in a subshell, alongside the command.
    verdicts.extend(_decide(inner, options, state.copy(), depth + 1, judge) for inner in rewritten.judged)
    verdicts.append(_decide(rewritten.command, options, state, depth, judge))
    return _as_written(combine(verdicts), " (judged with $PWD and each known $(...) replaced by its value)")


def _as_written(verdict: Verdict, note: str) -> Verdict:
    """The verdict on a rewritten command, told about the command as written: the note says what
    was judged, and only prefix rules are suggested (an exact rule written from the rewrite,
    `Bash(make -j1)` or one round of a loop, would not match the command)."""
    if verdict.kind == "allow":
        return verdict
    prefixes = tuple(s for s in verdict.suggestions if s.endswith(":*)"))
    return verdict._replace(reason=verdict.reason + note, suggestions=prefixes)


_LINK_PROGRAMS = LINK_MAKERS | EXTRACTORS | {"git"}
#: Programs that open no file for writing whatever their options (``git`` only with these
#: subcommands, which write inside ``.git`` at most): a pipeline of them makes no repository
#: alongside a git in a subdirectory (``cd src && git log | head``).
_FILTERS = frozenset({"cd", "echo", "printf", "true", "head", "tail", "grep", "egrep", "fgrep", "wc", "cut", "cat"})
_FILTERS |= frozenset({"tr", "nl", "tac", "rev", "column", "pwd"})
_GIT_READS = frozenset({"status", "log", "diff", "show", "ls-files", "rev-parse", "blame", "grep", "shortlog"})


def _reader_fed_by_plain_listing(parsed: Parsed, state: State, options: Options) -> bool:
    """``git ls-files | xargs wc -l | tail -1``: a reader fed from a listing of plain workspace
    files, then filters that write nothing."""
    operators = parsed.operators
    if state.cwd is None or not operators or operators.count("|") != len(operators):
        return False
    fed = reader_fed_by_listing(parsed.commands)
    if fed is None:
        return False
    if any(isinstance(item, ScopeMarker) and item.branch for item in parsed.items):
        return False  # only the subshell of each pipeline part, no condition or loop
    if not all(map(_writes_nothing, parsed.commands[2:])):
        return False
    return plain_listing(fed[0], state.cwd, options.paths.roots, options.denied_path)


def _writes_nothing(command: SimpleCommand) -> bool:
    for redirect in command.redirects:
        reads = redirect.op in ("<", "<<", "<<<", "<<-")
        if not (reads or redirect.is_fd_dup or (redirect.target is not None and redirect.target.value == "/dev/null")):
            return False
    values = [w.value for w in command.argv]
    if not values:
        return not command.assignments
    if values[0] == "git":
        sub = git_subcommand_position(values)
        return sub is not None and values[sub] in _GIT_READS
    return values[0] in _FILTERS


def _makes_links(parsed: Parsed) -> bool:
    return any(w.value.rsplit("/", 1)[-1] in _LINK_PROGRAMS for c in parsed.commands for w in c.argv)


_GIT_COMMIT = re.compile(r"\bgit\b[^;&|\n]*\bcommit\b")


def _git_commit_check(check_id: int | None, command: str) -> int | None:
    """A command substitution in a ``git commit`` is the seeds' check 12."""
    return 12 if check_id == 8 and _GIT_COMMIT.search(command) else check_id


def run_items(parsed: Parsed, state: State, judge: Judge) -> Verdict:
    """Judge each simple command with the state earlier ones leave; subshells restore it."""
    items = parsed.items
    if len(items) == 1 and type(items[0]) is SimpleCommand:
        return judge.command(items[0], state)  # (one command: the loop below comes to this)
    stack: list[State] = []
    verdicts: list[Verdict] = []
    for item in items:
        if isinstance(item, ScopeMarker):
            if item.branch:
                # The body may or may not run: a directory it changes is unknown afterwards.
                if item.enter:
                    stack.append(state.copy())
                else:
                    before = stack.pop()
                    if state.cwd != before.cwd or state.others != before.others:
                        state.cwd = state.pwd = None
                        state.others = ()
            elif item.enter:
                stack.append(state)
                state = state.copy()
            else:
                state = stack.pop()
            continue
        verdict = judge.command(item, state)
        verdicts.append(verdict)
        if verdict.kind == "deny":
            break
    return combine(verdicts)


#: Bounds of :func:`best_effort_rule` (see there).
BEST_EFFORT_STARTS = 2_000
BEST_EFFORT_WORDS = 64


def best_effort_rule(command: str, options: Options) -> Verdict | None:
    """Deny (or ask) rules matched on a rough split of a command the parser could not judge.

    Only for the message: the command is asked (denied) either way. Bounded, so a huge command
    costs linear time: at most :data:`BEST_EFFORT_STARTS` start words, each matched with the next
    :data:`BEST_EFFORT_WORDS` words (a longer exact deny rule is not a rule anyone writes)."""
    deny, ask = options.rules.deny, options.rules.ask
    if not deny.rules and not ask.rules:
        return None
    starts = 0
    for piece in _ROUGH_SPLIT.split(command):
        try:
            words = shlex.split(piece)
        except ValueError:
            words = piece.split()
        for start in range(len(words)):
            starts += 1
            if starts > BEST_EFFORT_STARTS:
                return None
            word = words[start]
            if word.startswith("-") or "=" in word.split("/", 1)[0] or word in _SKIPPABLE:
                continue
            base = word.rsplit("/", 1)[-1]
            for candidate in {word, base}:
                text, _ = canonical([candidate, *words[start + 1 : start + BEST_EFFORT_WORDS]])
                found = deny.first(text, candidate) if deny.rules else None
                if found is not None:
                    return Verdict(
                        "deny",
                        f"a deny rule matches `{text}` in a command that cannot be fully analysed",
                        found.rule.ref,
                        source="rule",
                    )
                found = ask.first(text, candidate) if ask.rules else None
                if found is not None:
                    return Verdict(
                        "ask",
                        f"an ask rule matches `{text}` in a command that cannot be fully analysed",
                        found.rule.ref,
                        source="rule",
                    )
    return None


def _fallback(command: str, outcome: ParseUnavailable, state: State, judge: Judge) -> Verdict:
    """Without tree-sitter: only a single plain command (words and quotes, nothing else) is judged."""
    if "\n" in command or not _PLAIN_COMMAND.match(command):
        return Verdict("ask", f"{outcome.reason}, and the command uses shell syntax")
    try:
        parts = shlex.split(command)
    except ValueError:
        return Verdict("ask", f"{outcome.reason}, and the command does not split into words")
    assigns: list[Assignment] = []
    while parts and "=" in parts[0] and parts[0].split("=", 1)[0].isidentifier():
        name, _, value = parts.pop(0).partition("=")
        assigns.append(Assignment(name, Word(value, value), exported=True))
    words = tuple(Word(p, p, glob=any(c in p for c in "*?[")) for p in parts)
    if not words:
        return Verdict("ask", outcome.reason)
    return judge.command(SimpleCommand(words, tuple(assigns), (), command), state)


def _workspace_top(cwd: str | None, roots: tuple[str, ...]) -> str | None:
    """What ``git rev-parse --show-toplevel`` prints from ``cwd`` when that is the workspace's
    repository: ``cwd`` is in the workspace (the first root) and the workspace has its ``.git``.
    A nested repository on the way (a ``.git`` file, a bare repository) is the git checks' to
    refuse: the inner ``git rev-parse`` is judged where it runs, like every fixed form."""
    if cwd is None or not roots:
        return None
    root = roots[0]
    return root if within(cwd, root) and os.path.lexists(os.path.join(root, ".git")) else None
