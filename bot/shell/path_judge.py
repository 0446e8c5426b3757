"""The path half of judging a simple command (seeds 4.6.5): path arguments, redirections, ``cd``,
and arguments only known at run time. Mixed into :class:`bot.shell.judge.Judge`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from bot.shell.command_kinds import GLOB_SENSITIVE, OUTPUT_ONLY, WRITER_PROGRAMS
from bot.shell.path_args import PathUse, has_extractor, path_like_arguments, path_uses, symlink_targets
from bot.shell.path_check import Access, check_path, glob_base
from bot.shell.prefixes import exact_suggestion
from bot.shell.program_flags import NO_FACTS, program_facts
from bot.shell.scan import Layer, Options, Scan
from bot.shell.syntax import DYN, Redirect, Word
from bot.shell.verdict import ALLOW_NEUTRAL, State, Verdict


class PathChecks:
    """Needs ``options`` and ``seen`` (the decision's ``lstat`` memo) from the judge."""

    options: Options
    seen: dict[str, int]

    def _paths_and_arguments(self, scan: Scan, argv: tuple[Word, ...]) -> Verdict | None:
        needs_edit = False
        options = self.options
        for layer in scan.layers:
            words = layer.words
            program = layer.program
            facts = program_facts(words, install_scripts=options.install_scripts)
            if facts is not NO_FACTS:
                for index, reason in facts.explicit:
                    scan.explicit.setdefault(layer.start + index, reason)
                if facts.exact_only:
                    scan.exact_only = True
            uses = path_uses(words)
            if facts.in_place:
                uses = [PathUse(u.pos, u.value, "write", u.word) for u in uses]
                needs_edit = True
            if facts.paths:
                uses.extend(facts.paths)
            if program == "ln":
                uses = symlink_targets(words, uses)
            if program not in OUTPUT_ONLY and not has_extractor(program):
                # (a cheap test on the whole text first: most commands name no such place)
                text = layer.text
                if "/" in text or "~" in text or ".." in text:
                    uses.extend(path_like_arguments(words, {u.pos for u in uses}))
            for word in words:
                if word.dynamic or word.glob:
                    verdict = self._run_time_words(program, words, uses, argv)
                    if verdict is not None:
                        return verdict
                    break
            for use in uses:
                outcome = self._path(use, layer, program, scan)
                if outcome == "edit":
                    needs_edit = True
                elif outcome is not None:
                    return outcome
            if facts.git_dirs or program == "git":
                verdict = self._git_location(facts.git_dirs, layer)
                if verdict is not None:
                    return verdict
        if needs_edit and not options.edits_allowed:
            return Verdict("ask", "the command writes files and the policy does not allow edits "
                                  "(add an Edit rule or use acceptEdits mode)")
        return None

    @staticmethod
    def _run_time_words(program: str, words: tuple[Word, ...], uses: list[PathUse],
                        argv: tuple[Word, ...]) -> Verdict | None:
        """Arguments only known at run time (``$VAR``), and globs that could expand into a flag."""
        path_positions = {u.pos for u in uses}
        for offset, word in enumerate(words[1:], start=1):
            if word.dynamic:
                verdict = _dynamic_argument(program, word, offset in path_positions or has_extractor(program))
                if verdict is not None:
                    return verdict
            if word.glob and program in GLOB_SENSITIVE:
                return Verdict("ask", f"the glob {word.text!r} could expand to a file named like a "
                                      f"{program} option",
                               suggestions=exact_suggestion([w.value for w in argv]))
        return None

    def _path(self, use: PathUse, layer: Layer, program: str, scan: Scan) -> Verdict | Literal["edit"] | None:
        value = use.value
        if DYN in value:
            return Verdict("ask", f"the path {use.word.text!r} is only known at run time")
        access = use.access
        if use.word.glob:
            base = glob_base(value)
            if base is None:
                return Verdict("ask", f"the glob {use.word.text!r} can climb out of its directory")
            value = base
            access = "purge" if access in ("delete", "purge") else access
        if layer.cwd is None and not value.startswith(("/", "~")):
            return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
        verdict = check_path(value, layer.cwd or "/", access, self.options.paths, self.seen)
        match verdict.kind:
            case "hard_deny":
                return Verdict("deny", verdict.reason, source="safety")
            case "network":
                return Verdict("ask", verdict.reason, check_id=10, source="safety")
            case "protected":
                return Verdict("deny", verdict.reason, source="safety")
            case "outside":
                scan.explicit.setdefault(layer.start + use.pos, verdict.reason)
            case "ok":
                # find -delete's purge is approved through its inner `rm`; -fprint's write is an edit.
                if access in ("write", "delete", "purge") and program not in WRITER_PROGRAMS and \
                        not (program == "find" and access == "purge"):
                    return "edit"
        return None

    def _git_location(self, dirs: Sequence[PathUse], layer: Layer) -> Verdict | None:
        """git run from another directory than a workspace root could pick up a repository the model
        wrote (a bare repository's config or a nested ``.git``) whose ``core.fsmonitor`` runs code."""
        roots = self.options.paths.roots
        where = layer.cwd
        for use in dirs:
            if where is None or DYN in use.value:
                where = None
                break
            where = check_path(use.value, where, "read", self.options.paths, self.seen).path
        if where is not None and where in roots:
            return None
        shown = where if where is not None else "an unknown directory"
        hint = f" (run it from the workspace root: cd {roots[0]} && git ...)" if roots else ""
        return Verdict("ask", f"git would run in {shown}, not at a workspace root, where a repository "
                              f"the model wrote could run code through its config{hint}")

    def _redirects(self, redirects: tuple[Redirect, ...], state: State) -> Verdict | None:
        policy = self.options.paths
        for redirect in redirects:
            if redirect.target is None or redirect.is_fd_dup:
                continue
            target = redirect.target.value
            if state.cwd is None and not target.startswith(("/", "~")):
                return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
            access: Access = "write" if redirect.writes_file else "read"
            verdict = check_path(target, state.cwd or "/", access, policy, self.seen)
            if verdict.kind == "network":
                return Verdict("ask", verdict.reason, check_id=10, source="safety")
            if verdict.kind == "protected":
                return Verdict("deny", f"output redirection to {target}: {verdict.reason}", source="safety")
            if verdict.kind == "outside":
                check = 10 if access == "write" else 9
                return Verdict("ask", f"redirection to {target}: {verdict.reason}", check_id=check)
            if access == "write" and not verdict.path.startswith("/dev/") and not self.options.edits_allowed:
                return Verdict("ask", f"the command writes {target} and the policy does not allow edits "
                                      "(add an Edit rule or use acceptEdits mode)")
        return None

    def _cd(self, argv: tuple[Word, ...], state: State) -> Verdict | None:
        program = argv[0].value
        if program == "popd" or (len(argv) > 1 and argv[1].value == "-"):
            state.cwd = None
            return ALLOW_NEUTRAL
        uses = path_uses(argv)
        if not uses:
            return ALLOW_NEUTRAL
        use = uses[0]
        if use.word.dynamic or DYN in use.value or use.word.glob:
            return Verdict("ask", f"cd to {use.word.text!r}, a directory only known at run time")
        if state.cwd is None and not use.value.startswith(("/", "~")):
            return Verdict("ask", "the working directory is unknown (after `cd -` or a dynamic cd)")
        verdict = check_path(use.value, state.cwd or "/", "cd", self.options.paths, self.seen)
        if verdict.kind != "ok":
            return Verdict("ask", f"cd {use.value}: {verdict.reason}")
        state.cwd = verdict.path
        return ALLOW_NEUTRAL


def _dynamic_argument(program: str, word: Word, is_path: bool) -> Verdict | None:
    if program in OUTPUT_ONLY:
        return None
    if word.text == "<stdin>":
        return Verdict("ask", f"xargs appends arguments read from stdin to {program}, so its arguments are only "
                              "known at run time")
    if word.splits:
        return Verdict("ask", f"the unquoted {word.text!r} is split into words and globbed at run time")
    if word.value.startswith("\ue000"):
        return Verdict("ask", f"the argument {word.text!r} starts with a value only known at run time "
                              "(it could be a flag)")
    if is_path:
        return Verdict("ask", f"the argument {word.text!r} of {program} is only known at run time")
    return None
