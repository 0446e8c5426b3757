"""Judging one simple command against the policy (seeds 4.6.2 steps 3–5, 4.6.5, plus wrappers).

For one simple command, in order:

1. its deny and ask rules — on every layer of wrappers (``sudo timeout 5 rm -rf x`` is matched as
   ``rm -rf x`` too, as ``/bin/rm`` by its base name, ``git -C x push`` as ``git push``);
2. the word-level security checks (obfuscated flags, jq, zsh builtins);
3. paths: hard denials (``rm -rf /``, ``~``, the workspace), protected writes, network devices;
   then arguments only known at run time (``$VAR``, globs that could expand into a flag);
4. commands it launches: ``find -exec``/``xargs`` inner commands and ``sh -c`` scripts are judged as
   commands of their own;
5. state: an earlier ``export`` of an unsafe variable, ``git`` outside the repository root, writes
   when the policy allows no edits, ``cd`` out of the workspace;
6. allow rules, from the outermost layer inwards: a rule approves only the words its literal spells
   out when they carry a capability (an inner program, ``git -c``, a path outside the workspace).
   Past a transparent wrapper (``timeout``, ``env``, ``npx``) the inner command may be approved by a
   rule of its own; past a privilege wrapper (``sudo``) it may not.

The result is a :class:`~bot.shell.judge.verdict.Verdict`; :mod:`bot.shell.judge.decide` aggregates them over a
compound command (:func:`~bot.shell.judge.verdict.combine`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase

from bot.shell.judge.deny_match import loosely_matches
from bot.shell.judge.find_exec import find_matches, placed_matches
from bot.shell.judge.no_rule import reads_only, tees
from bot.shell.judge.prefixes import exact_suggestion, suggestion_for
from bot.shell.judge.rule_match import BashPattern, CompiledRule, RuleIndex, canonical, compile_pattern, covers
from bot.shell.judge.runners import runs_project_tool
from bot.shell.judge.scan import ExecInner, Finder, InnerScript, Layer, Options, Scan, join_dir
from bot.shell.judge.security_checks import argv_findings
from bot.shell.judge.verdict import ALLOW_NEUTRAL, ALLOW_READ_ONLY, State, Verdict, combine
from bot.shell.launch.wrappers import unwrap
from bot.shell.parse.assignments import is_safe_assignment, is_safe_env_var
from bot.shell.parse.syntax import Assignment, SimpleCommand, Word
from bot.shell.parse.variables import VARIABLE_SETTERS, exported_names, may_change_programs, set_physical, set_variables
from bot.shell.paths.globbing import expand as expand_glob
from bot.shell.paths.judge import PathJudge
from bot.shell.paths.link_makers import created
from bot.shell.programs.fetchers import other_origin
from bot.shell.programs.flags import git_subcommand_position, program_facts
from bot.shell.programs.hatch import is_hatch_script
from bot.shell.programs.kinds import NEUTRAL_COMMANDS
from bot.shell.programs.recursive_reads import reads_recursively

#: Nested scripts (``sh -c "sh -c '...'"``) deeper than this are too complex.
MAX_NESTING = 3
#: Subcommands per command, nested scripts and inner commands included (seeds
#: ``MAX_SUBCOMMANDS_FOR_SECURITY_CHECK``). Above it the command is denied, not asked.
MAX_SUBCOMMANDS = 50
#: Programs that write no file (what a later git in a subdirectory may rely on: no repository
#: appeared on the way to the workspace's).
_WRITES_NOTHING = frozenset({"cd", "pushd", "popd", "pwd", "true", ":", "echo", "printf"})


ScriptDecider = Callable[[str, State, int], Verdict]


def _any_arguments(pattern: BashPattern, interpreter: str) -> bool:
    """``Bash(python3:*)``/``Bash(python3 *)`` for ``python3``: the rule allows the interpreter with
    any arguments — any script of the workspace — so a program on its stdin is no more than that."""
    if pattern.kind == "prefix":
        return pattern.literal == interpreter
    return pattern.kind == "wildcard" and " ".join(pattern.text.split()) == f"{interpreter} *"


class Judge:
    """Judges simple commands for one decision; counts them against :data:`MAX_SUBCOMMANDS`."""

    def __init__(self, options: Options, decide_script: ScriptDecider, depth: int = 0) -> None:
        self.options = options
        self.decide_script = decide_script
        self.depth = depth
        self.count = 0
        #: Above zero while a launched command (``find -exec``'s, a wrapper's) is judged.
        self._launching = 0
        #: Paths, redirections and ``cd``, with what earlier commands of the compound made.
        self.paths = PathJudge(options)

    # ----- entry --------------------------------------------------------------------------------

    def command(self, cmd: SimpleCommand, state: State) -> Verdict:
        self.count += 1
        if self.count > MAX_SUBCOMMANDS:
            return Verdict("deny", f"the command has more than {MAX_SUBCOMMANDS} subcommands", source="safety")
        if cmd.redirects:
            redirect_verdict = self.paths.redirects(cmd.redirects, state)
            if redirect_verdict is not None:
                return redirect_verdict
        if cmd.kind != "command" or not cmd.argv:
            self.paths.wrote_before = self.paths.wrote_before or bool(cmd.redirects)
            return self._state_only(cmd, state)
        self.paths.writes = []
        if cmd.redirects:
            stdin = [r for r in cmd.redirects if r.op in ("<", "<<", "<<-", "<<<") and (r.fd in (None, 0))]
            self.paths.stdin_written = bool(stdin) and not stdin[-1].dynamic_input
        else:
            self.paths.stdin_written = False
        scan = self._scan(cmd.argv, state)
        verdict = self._program(scan, cmd.argv, cmd.assignments, state)
        values = scan.layers[0].values  # (the argv's values, computed once for the whole judgement)
        if cmd.redirects or values[0] not in _WRITES_NOTHING:
            self.paths.wrote_before = True
        if verdict.kind != "deny":
            paths, trees = created(values, self.paths.writes, state.all_cwds())
            if paths:
                self.paths.created.extend(paths)
            if trees:
                self.paths.created_trees.extend(trees)
            if values[0] == "mkdir":
                # `mkdir -p build && cd build && cmake ..`: a directory made now is a plain directory
                # later (one that exists already, maybe a link, keeps what lstat says).
                for path in self.paths.writes:
                    if not os.path.lexists(path):
                        self.paths.assume_directory(path)
        return verdict

    # ----- statements without a program -----------------------------------------------------------

    def _state_only(self, cmd: SimpleCommand, state: State) -> Verdict:
        for assignment in cmd.assignments:
            # Exported, any name reaches programs (npm reads npm_config_* in lower case too).
            if not is_safe_env_var(assignment.name) if assignment.exported else may_change_programs(assignment.name):
                state.tainted = f"the variable {assignment.name} set earlier in the command is not known to be safe"
        if cmd.argv:
            exported = exported_names(cmd.values)
            unsafe = [name for name in exported if not is_safe_env_var(name)]
            if unsafe:
                # `x=1; export x`: a shell variable set before becomes the environment of what follows.
                state.tainted = f"the variable {unsafe[0]} exported earlier in the command is not known to be safe"
            # `export X=1`: the rules see the assignments as words too.
            values = [*cmd.values, *(f"{a.name}={a.value.value}" for a in cmd.assignments)]
            rules = self.options.rules
            deny = self._rule_match(rules.deny, values) if rules.deny.rules else None
            if deny is not None:
                return Verdict("deny", f"a deny rule forbids `{cmd.text}`", deny.rule.ref, source="rule")
            ask = self._rule_match(rules.ask, values) if rules.ask.rules else None
            if ask is not None:
                return Verdict("ask", f"an ask rule requires approval for `{cmd.text}`", ask.rule.ref, source="rule")
            facts = program_facts(cmd.argv)
            if facts.explicit:
                return Verdict("ask", facts.explicit[0][1], suggestions=exact_suggestion(cmd.values))
        return ALLOW_NEUTRAL

    # ----- programs -----------------------------------------------------------------------------

    def _program(self, scan: Scan, argv: tuple[Word, ...], assigns: tuple[Assignment, ...], state: State) -> Verdict:
        options = self.options
        # 1. deny and ask rules, every layer
        rules = options.rules
        if rules.deny.rules or rules.ask.rules:
            for values in self._rule_views(scan, argv):
                for index, behaviour in ((rules.deny, "deny"), (rules.ask, "ask")):
                    found = self._rule_match(index, values) if index.rules else None
                    if found is not None:
                        text = " ".join(values)
                        if behaviour == "deny":
                            return Verdict("deny", f"a deny rule forbids `{text}`", found.rule.ref, source="rule")
                        return Verdict(
                            "ask", f"an ask rule requires approval for `{text}`", found.rule.ref, source="rule"
                        )
        # 2. word-level security checks
        for layer in scan.layers:
            finding = argv_findings(layer.words)
            if finding is not None:
                return Verdict("ask", finding.message, check_id=finding.check_id, source="safety")
        # 3. paths and run-time arguments
        verdict = self.paths.arguments(scan, argv)
        if verdict is not None:
            return verdict
        # 4. launched commands
        inner_verdicts = self._inners(scan, state) if scan.exec_inners or scan.scripts else []
        if inner_verdicts and any(v.kind == "deny" for v in inner_verdicts):
            return combine(inner_verdicts)
        # 5. state
        if state.tainted:
            return Verdict("ask", state.tainted)
        unsafe = (
            [a for a in assigns if not is_safe_assignment(a.name, a.value.value, a.value.dynamic)] if assigns else []
        )
        program = argv[0].value
        single = len(scan.layers) == 1
        if not single and any(layer.values[0] in ("cd", "pushd", "popd") for layer in scan.layers[1:]):
            return Verdict("ask", "cd through a wrapper changes the directory in a way the analysis does not follow")
        if single and program in ("cd", "pushd", "popd"):
            if unsafe:  # CDPATH=/ cd etc
                listed = ", ".join(a.name for a in unsafe)
                return Verdict("ask", f"cd with {listed} set goes where the analysis cannot follow")
            verdict = self.paths.cd(argv, state)
            if verdict is not None:
                return verdict
        if single and program in VARIABLE_SETTERS:
            # `read PATH < file`, `printf -v HOME %s .`: the environment of what follows changes.
            names = set_variables(program, [w.value for w in argv])
            if any(may_change_programs(n) for n in names):
                state.tainted = f"{program} sets a variable that is not known to be safe"
        if single and program == "set":
            physical = set_physical([w.value for w in argv])
            if physical is not None:
                state.physical = physical
        if single and program in NEUTRAL_COMMANDS and not unsafe and not scan.explicit:
            return combine([ALLOW_NEUTRAL, *inner_verdicts]) if inner_verdicts else ALLOW_NEUTRAL
        # 6. allow rules
        allowed = self._allow(scan, argv, unsafe)
        if allowed is not None:
            rule, covered = allowed
            verdict = Verdict("allow", rule=rule.rule.ref)
            if not inner_verdicts:
                return verdict
            approved = [
                self._inner_verdict(v, i, covered, rule)
                for v, i in zip(inner_verdicts, self._inner_indices(scan), strict=True)
            ]
            return combine([verdict, *approved])
        if self._launcher_only(scan) and not unsafe:
            return combine([ALLOW_NEUTRAL, *inner_verdicts])
        top = self.depth == 0 and not self._launching
        if top and single and not unsafe and not scan.explicit:
            roots = self.options.paths.roots
            if not inner_verdicts and (
                reads_only(argv, state.cwd, roots) or tees(argv, state.cwd, roots, self.options.edits_allowed)
            ):
                return ALLOW_READ_ONLY  # its paths were judged as reads in step 3
            if self._fed_reader(scan) and all(v.kind == "allow" for v in inner_verdicts):
                return combine([ALLOW_READ_ONLY, *inner_verdicts])
        return combine([self._unmatched(scan, argv, unsafe), *inner_verdicts])

    def _rule_views(self, scan: Scan, argv: tuple[Word, ...]) -> list[list[str]]:
        """What deny and ask rules are matched against: every layer, and behind an opaque launcher
        every suffix that starts with a non-option word (``strace -f rm -rf x`` → ``rm -rf x``)."""
        views = [layer.values for layer in scan.layers]
        for layer in scan.layers:
            if any(w.glob for w in layer.words):
                views.append(_globbed_values(layer))  # `git pu?h` is `git push` when ./push exists
        for start in scan.opaque_starts:
            views.extend(
                [w.value for w in argv[j:]] for j in range(start, len(argv)) if not argv[j].value.startswith("-")
            )
        return views

    def _fed_reader(self, scan: Scan) -> bool:
        """``git ls-files | xargs wc -l`` at the top of the line, with the listing proven to print
        only plain, readable workspace files now (:mod:`bot.shell.paths.listings`): xargs appends
        exactly those, so its reader reads what a Read could, and needs no rule if it only reads."""
        return (
            self.paths.listing_reader
            and self.depth == 0
            and not self._launching
            and len(scan.layers) == 1
            and len(scan.exec_inners) == 1
            and not scan.scripts
            and scan.layers[0].values[0] == "xargs"  # `./xargs` is whatever the workspace holds
            and not reads_recursively([w.value for w in scan.exec_inners[0][1]])
        )

    def _launcher_only(self, scan: Scan) -> bool:
        """A shell or ``eval`` (behind transparent wrappers) whose script is judged on its own."""
        innermost = scan.layers[-1]
        return (
            bool(scan.scripts)
            and not scan.explicit
            and not scan.exec_inners
            and all(layer.kind == "transparent" and not layer.unsafe_env for layer in scan.layers[1:])
            and all(kind == "transparent" and start > innermost.start for start, _, kind, _ in scan.scripts)
        )

    def _scan(self, argv: tuple[Word, ...], state: State) -> Scan:
        others = tuple([cwd for cwd, _ in state.others]) if state.others else ()
        layers = [Layer(0, argv, None, state.cwd, others=others)]
        scan = Scan(layers)
        while len(layers) < 8:
            current = layers[-1]
            inners = unwrap(current.words)
            following: Layer | None = None
            for inner in inners:
                start = current.start + inner.start
                if inner.script is not None:
                    same_shell = current.words[0].value == "eval"
                    scan.scripts.append(InnerScript(start, inner.script, inner.kind, same_shell))
                    if inner.kind == "privilege":
                        scan.boundaries.append(start)
                elif inner.kind == "opaque":
                    scan.explicit.setdefault(max(len(argv) - 1, 0), inner.reason or "an opaque launcher")
                    scan.opaque_starts.append(start)
                    if inner.from_stdin:
                        scan.exact_only = True
                        scan.stdin_interpreter = ""
                elif inner.kind == "exec_each" and inner.argv is not None:
                    origin = None
                    if current.program == "find":
                        marker = current.words[inner.start - 1].value if inner.start > 0 else ""
                        origin = "find-dir" if marker in ("-execdir", "-okdir") else "find"
                        scan.finder = Finder(tuple(current.values), (current.cwd, *current.others))
                    scan.exec_inners.append(ExecInner(start, inner.argv, origin))
                elif (
                    inner.argv is not None
                    and following is None
                    and current.program == "hatch"
                    and len(inner.argv) == 1
                    and all(
                        is_hatch_script(inner.argv[0].value, c, self.options.paths.roots)
                        for c in (current.cwd, *current.others)
                    )
                ):
                    continue  # a script of the project, covered by the rule for `hatch run` (npm run's way)
                elif inner.argv is not None and following is None:
                    cwd = current.cwd
                    others = current.others
                    if inner.chdir is not None:
                        chdir = inner.chdir
                        cwd = None if chdir.dynamic or cwd is None else join_dir(cwd, chdir.value)
                        others = tuple(None if chdir.dynamic or o is None else join_dir(o, chdir.value) for o in others)
                    unsafe = current.unsafe_env or any(
                        not is_safe_assignment(a.name, a.value.value, a.value.dynamic) for a in inner.assignments
                    )
                    following = Layer(start, inner.argv, inner.kind, cwd, unsafe, others)
                    scan.boundaries.append(start)
            if following is None:
                break
            layers.append(following)
        return scan

    @staticmethod
    def _inner_indices(scan: Scan) -> list[int]:
        return [start for start, _, _ in scan.exec_inners] + [start for start, _, _, _ in scan.scripts]

    def _inner_verdict(self, verdict: Verdict, index: int, covered: int, rule: CompiledRule) -> Verdict:
        """An inner command the outer rule spells out is approved by that rule (its deny rules and
        checks were already applied)."""
        if verdict.kind == "nomatch" and index <= covered:
            return Verdict("allow", rule=rule.rule.ref)
        return verdict

    # ----- rules --------------------------------------------------------------------------------

    def _rule_match(self, index: RuleIndex, values: Sequence[str]) -> CompiledRule | None:
        found = index.first(" ".join(values), values[0])
        if found is not None:
            return found
        base = values[0].rsplit("/", 1)[-1]
        if base != values[0]:
            found = index.first(" ".join([base, *values[1:]]), base)
            if found is not None:
                return found
        if base == "git" and len(values) > 1 and values[1].startswith("-"):
            sub = git_subcommand_position(values)
            if sub is not None and sub > 1:
                found = index.first(" ".join(["git", *values[sub:]]), "git")
                if found is not None:
                    return found
        # Deny and ask rules hold for every spelling (bot.shell.judge.deny_match); a globbed program
        # name (`/usr/bin/g*t`) may be any rule's program.
        globbed = "*" in base or "?" in base or "[" in base
        for compiled in index.rules if globbed else index.candidates(base):
            pattern = compiled.pattern
            program = pattern.program if globbed else base
            if globbed and not (program and fnmatchcase(program, base)):
                continue
            words = pattern.literal.split()
            if globbed and len(words) == 1 and pattern.kind == "prefix":
                return compiled  # `Bash(sudo:*)` against `/usr/bin/sud? id`
            if pattern.kind != "wildcard" and loosely_matches(words, values, program):
                return compiled
        return None

    def _allow(self, scan: Scan, argv: tuple[Word, ...], unsafe: list[Assignment]) -> tuple[CompiledRule, int] | None:
        allow = self.options.rules.allow
        if not allow.rules:
            return None
        explicit = sorted(scan.explicit) if scan.explicit else []
        boundaries = scan.boundaries
        if boundaries and scan.scripts:
            starts = {layer.start for layer in scan.layers[1:]}
            boundaries = [
                b
                for b in boundaries
                if b in starts or any(b == start and kind == "privilege" for start, _, kind, _ in scan.scripts)
            ]
        for k, layer in enumerate(scan.layers):
            if k > 0 and (layer.kind != "transparent" or layer.unsafe_env or any(i < layer.start for i in explicit)):
                break
            ends: list[int] | Layer
            if k == 0 and unsafe:
                prefix = [f"{a.name}={a.value.value}" for a in unsafe]
                values = prefix + layer.values
                text, ends = canonical(values)
            else:
                prefix = []
                values, text, ends = layer.values, layer.text, layer
            offset = len(prefix) - layer.start
            needed = (
                [i for i in explicit if i >= layer.start] + [b for b in boundaries if b > layer.start]
                if explicit or boundaries
                else []
            )
            found = self._first_covering(scan, argv, text, ends, values[0], offset, needed, len(prefix))
            if found is not None:
                return found
            if values[0] == "git" and not prefix:
                # `git -C . -c user.name=x commit` matches Bash(git commit:*) (Claude Code 2.1.0): the
                # global options are skipped, provided none of them needs spelling out.
                sub = git_subcommand_position(values)
                if sub is not None and sub > 1 and not any(layer.start < i < layer.start + sub for i in explicit):
                    view = ["git", *values[sub:]]
                    view_text, view_ends = canonical(view)
                    shift = 1 - sub - layer.start
                    view_needed = [i for i in needed if i >= layer.start + sub]
                    found = self._first_covering(scan, argv, view_text, view_ends, "git", shift, view_needed, 0)
                    if found is not None:
                        return found
        return None if unsafe else self._through_runner(scan, argv, explicit, boundaries)

    def _through_runner(
        self, scan: Scan, argv: tuple[Word, ...], explicit: list[int], boundaries: list[int]
    ) -> tuple[CompiledRule, int] | None:
        """``Bash(uv run:*)`` (or ``Bash(uv:*)``) approves ``uv run pytest -q`` as ``Bash(pytest:*)``
        would approve ``pytest -q``, for the project's tools only (:mod:`bot.shell.judge.runners`);
        the launched command is judged in full, as under its own prefix rule."""
        if len(scan.layers) != 2 or scan.scripts or scan.exec_inners:
            return None
        outer, inner = scan.layers
        if inner.kind != "transparent" or inner.unsafe_env:
            return None
        if not runs_project_tool(outer.values, inner.start - outer.start, inner.values):
            return None
        if any(i < inner.start for i in explicit):
            return None  # the runner's own option needs a rule that spells it out
        runner_end = outer.ends[inner.start - 1]  # the runner's words, up to the command it runs
        rule = next(
            (
                c
                for c in self.options.rules.allow.candidates(outer.values[0])
                if c.pattern.kind != "exact" and c.pattern.matches(outer.text) and len(c.pattern.literal) <= runner_end
            ),
            None,
        )
        if rule is None:
            return None  # no rule for the runner (one reaching into the command was tried above)
        implicit = CompiledRule(rule.rule, compile_pattern(f"{inner.values[0]}:*"))
        needed = [i for i in explicit if i >= inner.start] + [b for b in boundaries if b > inner.start]
        found = self._first_covering(
            scan, argv, inner.text, inner, inner.values[0], -inner.start, needed, 0, candidates=(implicit,)
        )
        return (rule, found[1]) if found is not None else None

    def _first_covering(
        self,
        scan: Scan,
        argv: tuple[Word, ...],
        text: str,
        ends: list[int] | Layer,
        program: str,
        offset: int,
        needed: list[int],
        prefix_len: int,
        candidates: Sequence[CompiledRule] | None = None,
    ) -> tuple[CompiledRule, int] | None:
        """The first allow rule matching ``text`` whose literal spells out every ``needed`` word
        (indices in ``argv``; ``offset`` maps them into ``ends``, a layer's when it is one)."""
        for compiled in self.options.rules.allow.candidates(program) if candidates is None else candidates:
            pattern = compiled.pattern
            if not pattern.matches(text):
                continue
            if scan.exact_only and pattern.kind != "exact" and not self._stdin_code_granted(pattern, scan):
                continue
            if "://" in pattern.literal and other_origin(pattern.literal, scan.layers[-1].words) is not None:
                continue  # a rule naming a host approves requests to it, not to a second one
            if not (prefix_len or needed or scan.exec_inners or scan.scripts):
                return compiled, -1
            if isinstance(ends, Layer):
                ends = ends.ends
            if prefix_len and not covers(pattern, ends[prefix_len - 1]):
                continue
            # A needed word past the end (``git -c`` with its value missing) cannot be spelled out.
            if not needed or all(0 <= i + offset < len(ends) and covers(pattern, ends[i + offset]) for i in needed):
                if not (scan.exec_inners or scan.scripts):
                    return compiled, -1
                covered = max(
                    (i for i in range(len(argv)) if 0 <= i + offset < len(ends) and covers(pattern, ends[i + offset])),
                    default=-1,
                )
                return compiled, covered
        return None

    def _stdin_code_granted(self, pattern: BashPattern, scan: Scan) -> bool:
        """The interpreter's program on stdin is no more than ``pattern`` grants: it allows the
        interpreter with any arguments, and no deny or ask rule names the interpreter (a
        ``Bash(python -c:*)`` deny rule says inline code is not granted, however it is spelled)."""
        interpreter = scan.stdin_interpreter
        if not interpreter or not _any_arguments(pattern, interpreter):
            return False
        rules = self.options.rules
        return not any(r.pattern.program in (interpreter, "") for r in (*rules.deny.rules, *rules.ask.rules))

    def _unmatched(self, scan: Scan, argv: tuple[Word, ...], unsafe: list[Assignment]) -> Verdict:
        innermost = scan.layers[-1]
        if scan.explicit:
            index = min(scan.explicit)
            reason = (
                f"{scan.explicit[index]}; only a rule that spells out "
                f"`{' '.join(w.value for w in argv[: index + 1])}` allows it"
            )
            # No suggestion: a rule that would allow this spells out the word that runs, loads or
            # connects (a command, a config, a host) — offering it would offer to approve the attack.
            return Verdict("nomatch", reason + " (review that value before writing such a rule)")
        if unsafe:
            names = ", ".join(a.name for a in unsafe)
            return Verdict(
                "nomatch",
                f"the command sets {names}, which can change what it runs",
                suggestions=exact_suggestion([f"{a.name}={a.value.value}" for a in unsafe] + [w.value for w in argv]),
            )
        words = [w.value for w in innermost.words]
        privileged = next((layer for layer in scan.layers if layer.kind == "privilege"), None)
        suggestion = suggestion_for(words)
        if privileged is not None:
            # `sudo apt-get install x` → Bash(sudo apt-get install:*): the wrapper must be spelled out.
            outer = " ".join(w.value for w in argv[: privileged.start])
            inner = suggestion[len("Bash(") : -1] if suggestion else None
            suggestion = f"Bash({outer} {inner})" if inner else None
        text = " ".join(w.value for w in argv)
        return Verdict("nomatch", f"no allow rule covers `{text}`", suggestions=(suggestion,) if suggestion else ())

    # ----- launched commands --------------------------------------------------------------------

    def _inners(self, scan: Scan, state: State) -> list[Verdict]:
        verdicts: list[Verdict] = []
        for _start, inner_argv, origin in scan.exec_inners:
            inner = SimpleCommand(inner_argv, (), (), " ".join(w.value for w in inner_argv))
            inner_state = state.copy()
            if origin == "find-dir":  # run in the directory of each match
                inner_state.cwd = inner_state.pwd = None
                inner_state.others = ()
            problem = None
            if origin is not None and scan.finder is not None:
                problem = find_matches(scan.finder, inner_argv, self.options, self.paths.seen)
                inner = inner._replace(argv=placed_matches(inner_argv, scan.finder))
            fed = self._fed_reader(scan)  # its reader is judged as if written at the top
            self._launching += 0 if fed else 1
            try:
                verdict = self.command(inner, inner_state)
            finally:
                self._launching -= 0 if fed else 1
            verdicts.append(problem if problem is not None and verdict.kind != "deny" else verdict)
        for _start, script, _kind, same_shell in scan.scripts:
            if "\n" in script and any(line.lstrip().startswith("#") for line in script.split("\n")[1:]):
                verdicts.append(
                    Verdict(
                        "ask", "a quoted newline followed by a comment line in a script", check_id=23, source="safety"
                    )
                )
                continue
            if self.depth + 1 > MAX_NESTING:
                verdicts.append(Verdict("ask", f"scripts nested more than {MAX_NESTING} deep"))
                continue
            verdicts.append(self.decide_script(script, state if same_shell else state.copy(), self.depth + 1))
        return verdicts


def _globbed_values(layer: Layer) -> list[str]:
    """The layer's words as bash passes them: each glob replaced by what it matches now (sorted,
    as bash does), or kept when it matches nothing or too much."""
    values: list[str] = []
    cwd = layer.cwd or "/"
    for word in layer.words:
        if not word.glob:
            values.append(word.value)
            continue
        matches = expand_glob(word.value, cwd)
        found = sorted(
            m.path if word.value.startswith("/") else os.path.relpath(m.path, cwd)
            for m in matches or ()
            if not m.partial
        )
        values.extend(found or [word.value])
    return values
