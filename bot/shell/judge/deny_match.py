"""Deny and ask rules match every spelling of what they name (a deny rule that one spelling of the
program slips past denies nothing).

A ``Bash(...)`` rule matches a command's text from its start; for an *allow* rule that is the
point (it approves what it spells out, no more). A *deny* rule must hold however the command is
spelled: ``Bash(rm -rf:*)`` against ``rm -fr``, ``rm -r -f``, ``rm --recursive --force`` and
``rm src -rf``; ``Bash(git push --force:*)`` against ``git push origin main -f`` and ``+main``;
``Bash(kubectl delete:*)`` against ``kubectl -n prod delete``; ``Bash(npm publish:*)`` against
``npm --silent publish`` and ``npm pub``. So a deny or ask rule without wildcards inside also
matches *loosely*:

* the rule's operands (``delete``, ``push``) appear in the command's words in the same order,
  not necessarily next to each other (options of any program may stand between); npm also reads
  a unique abbreviation of a command (``npm pub``);
* the rule's options appear among the command's, as the program reads them: short bundles split
  into letters, long options by their abbreviations, and per-program synonyms (``-R`` for ``-r``,
  ``--recursive`` for ``-r``, ``+ref``/``--force-with-lease``/``--mirror`` for ``--force``).

Loose matching can only deny more (a word ``push`` elsewhere, as in ``git log --grep push``,
matches ``Bash(git push:*)``): the safe direction for a deny rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatchcase

from bot.shell.programs.getopt import long_name

#: ``program → {spelling → canonical option}``.
_SYNONYMS: dict[str, dict[str, str]] = {
    "rm": {"-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d", "--interactive=never": "-f"},
    "git": {
        "--force": "-f",
        "--force-with-lease": "-f",
        "--force-if-includes": "-f",
        "--mirror": "-f",
        "-D": "-D",
        "-M": "-M",
        "--delete": "-d",
        "--hard": "--hard",
        "--no-verify": "-n",
    },
    "cp": {"--recursive": "-r", "-R": "-r", "--force": "-f"},
    "chmod": {"--recursive": "-R"},
    "chown": {"--recursive": "-R"},
    "kubectl": {"--force": "--force"},
    "docker": {"--force": "-f"},
}
#: Long options each program's parser accepts abbreviated (for ``--force-w``, ``--har``).
_LONG_NAMES: dict[str, tuple[str, ...]] = {
    "rm": (
        "--recursive",
        "--force",
        "--dir",
        "--interactive",
        "--verbose",
        "--preserve-root",
        "--no-preserve-root",
        "--one-file-system",
    ),
    "git": (
        "--force",
        "--force-with-lease",
        "--force-if-includes",
        "--mirror",
        "--delete",
        "--hard",
        "--soft",
        "--mixed",
        "--merge",
        "--keep",
        "--no-verify",
        "--tags",
        "--all",
        "--prune",
        "--set-upstream",
    ),
    "cp": ("--recursive", "--force"),
    "chmod": ("--recursive", "--reference", "--changes", "--verbose", "--silent", "--quiet"),
    "chown": ("--recursive", "--reference", "--changes", "--verbose", "--silent", "--quiet"),
}
#: Other names programs accept for a command word: ``program → {alias → canonical}``.
_ALIASES: dict[str, dict[str, str]] = {
    "npm": {
        **dict.fromkeys(
            ("i", "add", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall"), "install"
        ),
        "t": "test",
        "tst": "test",
        "run-script": "run",
        "rum": "run",
        "urn": "run",
        **dict.fromkeys(("un", "rm", "r", "remove", "unlink"), "uninstall"),
        "c": "config",
        "x": "exec",
    },
    "docker": {"remove": "rm", "container": "", "image": "", "rmi": "rmi"},
    "kubectl": {
        "po": "pod",
        "pods": "pod",
        "svc": "service",
        "services": "service",
        "deploy": "deployment",
        "deployments": "deployment",
        "ns": "namespace",
        "namespaces": "namespace",
    },
}
#: Programs that run a unique abbreviation of a command (npm's ``pub`` is ``publish``).
_ABBREVIATING = frozenset({"npm"})


def loosely_matches(rule_words: Sequence[str], values: Sequence[str], program: str) -> bool:
    """Does the command ``values`` (``values[0]`` is ``program``'s path) do what the deny rule
    whose literal words are ``rule_words`` (``rule_words[0]`` is the program) names?"""
    if len(rule_words) < 2 or any("*" in w for w in rule_words):
        return False
    operands = [w for w in rule_words[1:] if not w.startswith("-")]
    options = [w for w in rule_words[1:] if w.startswith("-")]
    words = list(values[1:])
    aliases = _ALIASES.get(program, {})
    plain = [aliases.get(w, w) for w in words if not w.startswith(("-", "+"))]
    plain = [part for w in plain for part in (w.split("/", 1) if program == "kubectl" else [w]) if part]
    plain = [aliases.get(w, w) for w in plain]
    if program == "git":  # a refspec names both its ends: `HEAD:main` pushes to main, `:main` deletes it
        plain, deleting = _refspec_ends(plain, words)
        if deleting:
            words.append("-d")
    if program == "docker" and "rmi" in operands:  # `docker image rm` is `docker rmi`
        plain = ["rmi" if w == "rm" and "image" in words else w for w in plain]
    if operands and not _in_order(operands, plain, program):
        return False
    if options:
        wanted = _canonical_options(options, program)
        present = _canonical_options(words, program)
        if not wanted <= present:
            return False
    return True


def _in_order(wanted: list[str], words: list[str], program: str) -> bool:
    position = 0
    for word in words:
        target = wanted[position]
        if program == "chmod":
            word, target = _chmod_mode(word), _chmod_mode(target)
        if (
            word == target
            or (program in _ABBREVIATING and len(word) >= 3 and target.startswith(word))
            or (not _GLOB_CHARS.isdisjoint(word) and fnmatchcase(target, word))
        ):  # `git pu?h`
            position += 1
            if position == len(wanted):
                return True
    return False


def _refspec_ends(plain: list[str], words: list[str]) -> tuple[list[str], bool]:
    ends: list[str] = []
    deleting = False
    for word in [*plain, *(w for w in words if w.startswith("+") and ":" in w)]:
        if ":" not in word or "://" in word:
            ends.append(word)
            continue
        source, _, destination = word.lstrip("+").partition(":")
        ends.extend(part for part in (source, destination) if part)
        deleting = deleting or (not source and bool(destination))
    return ends, deleting


_GLOB_CHARS = frozenset("*?[")
_SYMBOLIC = re.compile(r"([ugoa]*)([-+=])([rwxXstugo]*)")


def _chmod_mode(word: str) -> str:
    """A mode as the bits it sets for user, group and others: ``0777``, ``1777`` and ``a+rwx``
    all read ``777`` (special bits and leading zeros aside)."""
    if word.isdigit() and set(word) <= set("01234567"):
        return word.lstrip("0")[-3:].rjust(3, "0")
    bits = {"u": 0, "g": 0, "o": 0}
    for clause in word.split(","):
        match = _SYMBOLIC.fullmatch(clause)
        if match is None:
            return word
        who, op, perms = match.groups()
        value = (4 if "r" in perms else 0) | (2 if "w" in perms else 0) | (1 if "x" in perms or "X" in perms else 0)
        if any(c in perms for c in "ugo"):  # `g=u` copies another class's bits: assume all of them
            value = 7
        for person in who.replace("a", "ugo") or "ugo":
            bits[person] = value if op == "=" else (bits[person] | value if op == "+" else bits[person] & ~value)
    return f"{bits['u']}{bits['g']}{bits['o']}"


def _canonical_options(words: Sequence[str], program: str) -> set[str]:
    synonyms = _SYNONYMS.get(program, {})
    longs = _LONG_NAMES.get(program, ())
    found: set[str] = set()
    for word in words:
        if word.startswith("+") and program == "git" and len(word) > 1:
            found.add("-f")  # `git push origin +main` forces
            continue
        if word in synonyms:  # an option with its value (`--interactive=never`)
            found.add(synonyms[word])
            continue
        if word.startswith("--"):
            name = word.partition("=")[0]
            name = long_name(name, longs) or name if longs else name
            found.add(synonyms.get(name, name))
        elif word.startswith("-") and len(word) > 1:
            for letter in word[1:]:
                option = "-" + letter
                found.add(synonyms.get(option, option))
    if program == "git" and "-D" in found:  # `git branch -D` is `-d -f`
        found |= {"-d", "-f"}
    if program == "git" and {"-d", "-f"} <= found:
        found.add("-D")
    return found
