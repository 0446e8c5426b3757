"""What the judge knows about one simple command while it decides (:mod:`bot.shell.judge.command`): the
compiled policy, the wrapper layers of the command and what was found on them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from bot.permissions.path_denials import DeniedPath
from bot.shell.judge.rule_match import RuleSet, canonical
from bot.shell.launch.wrappers import InnerKind
from bot.shell.parse.syntax import WORD_VALUE, Word
from bot.shell.paths.resolve import PathPolicy


@dataclass(frozen=True, slots=True)
class Options:
    rules: RuleSet
    paths: PathPolicy
    edits_allowed: bool
    install_scripts: bool = True
    #: The policy's Read/Edit deny rules on the paths commands use (:mod:`bot.permissions.path_denials`).
    denied_path: DeniedPath | None = None


class Layer:
    """One program of a wrapper chain (``timeout 5 env X=1 make`` has three), with its canonical text."""

    __slots__ = ("_ends", "cwd", "kind", "others", "program", "start", "text", "unsafe_env", "values", "words")

    def __init__(
        self,
        start: int,
        words: tuple[Word, ...],
        kind: InnerKind | None,
        cwd: str | None,
        unsafe_env: bool = False,
        others: tuple[str | None, ...] = (),
    ) -> None:
        self.start = start
        self.words = words
        self.kind = kind
        self.cwd = cwd
        #: Other directories the program may run in (see :attr:`bot.shell.judge.verdict.State.others`).
        self.others = others
        self.unsafe_env = unsafe_env
        values = list(map(WORD_VALUE, words))
        self.values = values
        self.text = " ".join(values)
        #: The program's base name (``/usr/bin/git`` → ``git``).
        self.program = values[0].rsplit("/", 1)[-1] if values else ""
        self._ends: list[int] | None = None

    @property
    def ends(self) -> list[int]:
        """The end offset of each word in :attr:`text` (computed when a rule needs it)."""
        if self._ends is None:
            self._ends = canonical(self.values)[1]
        return self._ends


class ExecInner(NamedTuple):
    """A command run once per item (``find -exec``, ``xargs``), found at word ``at``."""

    at: int
    argv: tuple[Word, ...]
    #: ``"find"``, ``"find-dir"`` (``-execdir``: run in each match's directory) or ``None`` (xargs).
    origin: str | None


class Finder(NamedTuple):
    """The ``find`` whose ``-exec`` commands a scan found: its words and where it may run."""

    words: tuple[str, ...]
    dirs: tuple[str | None, ...]


class InnerScript(NamedTuple):
    """A script a launcher runs (``sh -c S``, ``eval S``), found at word ``at``."""

    at: int
    script: str
    kind: InnerKind
    #: ``eval`` and ``.`` run in the current shell: the script's ``cd`` counts after it.
    same_shell: bool


class Scan:
    """Everything found about one command before the allow rules are consulted."""

    __slots__ = (
        "boundaries",
        "exact_only",
        "exec_inners",
        "explicit",
        "finder",
        "layers",
        "opaque_starts",
        "scripts",
        "stdin_interpreter",
    )

    def __init__(self, layers: list[Layer]) -> None:
        self.layers = layers
        self.explicit: dict[int, str] = {}
        self.boundaries: list[int] = []
        self.exec_inners: list[ExecInner] = []
        #: The ``find`` whose ``-exec`` commands these are.
        self.finder: Finder | None = None
        self.scripts: list[InnerScript] = []
        self.opaque_starts: list[int] = []
        #: Commands read from stdin (``curl x | sh``): only an exact rule approves.
        self.exact_only = False
        #: The interpreter whose program on stdin is the only reason for :attr:`exact_only`
        #: (``python3 - <<EOF``): a rule allowing it with any arguments approves that too. ``""``
        #: once anything else made the command exact-only.
        self.stdin_interpreter: str | None = None


def join_dir(cwd: str, value: str) -> str | None:
    if value.startswith("/"):
        return value
    if value.startswith("~"):
        return None
    return f"{cwd.rstrip('/')}/{value}"
