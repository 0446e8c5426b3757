"""The workspace repository: branches, trusted files from the default branch, commits, diffs, pushes.

The only module that imports GitPython. Everything a run does to git goes through
:class:`GitWorkspace`, and failures come out as :class:`bot.errors.GitError` (``PushRejected`` when
the remote refuses a push; the local commit is kept either way).

Trust model:

- The token reaches git as an ``http.<origin>/.extraheader`` given per command through git's
  ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` environment (the environment
  form of ``git -c``): never in a URL, never in ``.git/config``, not on the command line where
  ``ps`` or an error message would show it. An empty value first clears any header persisted by
  ``actions/checkout`` for the same URL, so exactly one ``Authorization`` is sent. Every message we
  raise is scrubbed of the token and its encoded form.
- Our commits run no hooks (``core.hooksPath=/dev/null``, ``--no-verify``): hooks in ``.git/hooks``
  are not the project's code and the model may have written them.
- Policy, hooks, MCP config and instructions are read from the default branch with
  ``git show origin/<default>:<path>``; :meth:`GitWorkspace.changed_paths` says which of them a PR
  head changes, so the summary can say those changes were not applied.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from git import GitCommandError, InvalidGitRepositoryError, NoSuchPathError, PushInfo, Repo

from bot.errors import GitError, PushRejected


@dataclass(frozen=True, slots=True)
class Identity:
    name: str
    email: str


#: GitHub Actions' bot; its noreply address links commits to the app's avatar.
BOT_IDENTITY = Identity("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")

#: Files that configure the bot or the model and must come from the default branch. A trailing
#: ``/`` means everything under that directory. Kept in step with the policy candidates
#: (``bot.permissions.stack``) and instruction files (``bot.agent.prompts``) by a test.
TRUSTED_PATHS = (
    ".github/bot-policy.yml", ".github/bot-policy.yaml", ".github/bot-policy.json", ".github/bot-policy.toml",
    ".claude/", ".mcp.json", "AGENTS.md", "CLAUDE.md",
)
CHECKPOINT_PREFIX = "WIP: checkpoint"
#: Commands that talk to the remote may wait this long (a slow GitHub, a large fetch).
REMOTE_TIMEOUT = 300.0


@dataclass(frozen=True, slots=True)
class CoAuthor:
    """The person who asked. GitHub credits ``login@users.noreply.github.com`` (or ``id+login@…``)."""

    login: str
    name: str | None = None
    user_id: int | None = None

    def trailer(self) -> str:
        email = f"{self.user_id}+{self.login}" if self.user_id else self.login
        return f"Co-authored-by: {self.name or self.login} <{email}@users.noreply.github.com>"


@dataclass(frozen=True, slots=True)
class BranchSetup:
    branch: str
    #: ``created`` (new, from the base), ``reused-remote`` (the remote's branch) or ``reused-local``.
    how: str
    sha: str


@dataclass(frozen=True, slots=True)
class CommitInfo:
    sha: str
    message: str
    checkpoint: bool


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    #: ``added``, ``modified``, ``deleted``, ``renamed``, ``copied`` or ``type-changed``.
    status: str
    additions: int
    deletions: int
    binary: bool
    patch: str
    old_path: str | None = None


@dataclass(frozen=True, slots=True)
class DiffStats:
    files: tuple[FileChange, ...]

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)


@dataclass(frozen=True, slots=True)
class PushResult:
    branch: str
    sha: str
    #: ``created`` (a new remote branch), ``updated`` or ``up-to-date``.
    how: str


_STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied", "T": "type-changed"}
# Flags of a refused push: local rejection (non-fast-forward), the remote's hook or protection.
_REFUSED = PushInfo.REJECTED | PushInfo.REMOTE_REJECTED | PushInfo.REMOTE_FAILURE | PushInfo.ERROR
# Our commits: no hooks, no signing prompts on runners without a key.
_COMMIT_CONFIG = ("-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false")


class GitWorkspace:
    """A git working tree with an optional remote (``origin``) and the token used to reach it."""

    def __init__(self, path: str | Path, *, remote: str = "origin", token: str | None = None,
                 identity: Identity = BOT_IDENTITY) -> None:
        try:
            self._repo = Repo(path)
        except (InvalidGitRepositoryError, NoSuchPathError):
            raise GitError(f"{path} is not a git repository") from None
        if self._repo.bare or self._repo.working_tree_dir is None:
            raise GitError(f"{path} is a bare repository, not a workspace")
        self.root = Path(self._repo.working_tree_dir)
        self.remote = remote
        self.identity = identity
        self.__token = token or None

    def __repr__(self) -> str:  # never the token
        return f"GitWorkspace({str(self.root)!r}, remote={self.remote!r})"

    # ----- plumbing --------------------------------------------------------------------------------

    def _secrets(self) -> list[str]:
        if not self.__token:
            return []
        encoded = base64.b64encode(f"x-access-token:{self.__token}".encode()).decode()
        return [encoded, self.__token]

    def scrub(self, text: str) -> str:
        """``text`` without the token or its encoded header value."""
        for secret in self._secrets():
            text = text.replace(secret, "***")
        return text

    def _env(self) -> dict[str, str]:
        """Per-command configuration: the auth header (see the module docstring), and no prompts."""
        env = {"GIT_TERMINAL_PROMPT": "0", "GCM_INTERACTIVE": "never"}
        if not self.__token or not self.has_remote():
            return env
        header = "AUTHORIZATION: basic " + self._secrets()[0]
        url = self._repo.remote(self.remote).url
        parts = urlsplit(url)
        entries: list[tuple[str, str]] = [("http.extraheader", "")]
        if parts.scheme in ("http", "https") and parts.hostname:
            host = parts.hostname + (f":{parts.port}" if parts.port else "")
            key = f"http.{parts.scheme}://{host}/.extraheader"
            entries += [(key, ""), (key, header)]
        else:
            entries.append(("http.extraheader", header))
        offset = int(os.environ.get("GIT_CONFIG_COUNT", "0") or 0)
        env["GIT_CONFIG_COUNT"] = str(offset + len(entries))
        for index, (key, value) in enumerate(entries, start=offset):
            env[f"GIT_CONFIG_KEY_{index}"] = key
            env[f"GIT_CONFIG_VALUE_{index}"] = value
        return env

    def _git(self, *args: str, remote: bool = False, strip: bool = True, env: Mapping[str, str] | None = None) -> str:
        merged = {**self._env(), **(env or {})} if remote or env else None
        try:
            out: str = self._repo.git.execute(
                ["git", *args], env=merged, strip_newline_in_stdout=strip,
                kill_after_timeout=REMOTE_TIMEOUT if remote else None)
            return out
        except GitCommandError as error:
            raise GitError(self._describe(args, error)) from None

    def _describe(self, args: Sequence[str], error: GitCommandError) -> str:
        command = " ".join(a for a in args if not a.startswith("-c") and "=" not in a)[:80]
        stderr = error.stderr if isinstance(error.stderr, str) else repr(error.stderr)
        detail = stderr.strip().removeprefix("stderr:").strip().strip("'").strip()
        return self.scrub(f"git {command} failed (exit {error.status}): {detail or 'no message'}")

    def _exists(self, rev: str) -> bool:
        try:
            self._repo.git.rev_parse("--verify", "--quiet", f"{rev}^{{commit}}")
            return True
        except GitCommandError:
            return False

    # ----- facts -----------------------------------------------------------------------------------

    def has_remote(self) -> bool:
        return any(r.name == self.remote for r in self._repo.remotes)

    def head_sha(self) -> str:
        return self._git("rev-parse", "HEAD")

    def current_branch(self) -> str | None:
        name = self._git("symbolic-ref", "--quiet", "--short", "HEAD") if not self._repo.head.is_detached else ""
        return name or None

    def has_changes(self) -> bool:
        """Anything to commit: tracked changes or untracked files not ignored."""
        return bool(self._git("status", "--porcelain", "--untracked-files=all"))

    def ref_for(self, branch: str) -> str:
        """``origin/<branch>`` when there is a remote, else the local branch."""
        return f"{self.remote}/{branch}" if self.has_remote() else branch

    # ----- set-up ----------------------------------------------------------------------------------

    def configure_identity(self) -> None:
        """Write the bot's name and e-mail into this repository's config (runners often have none)."""
        with self._repo.config_writer("repository") as config:
            config.set_value("user", "name", self.identity.name)
            config.set_value("user", "email", self.identity.email)

    def fetch(self, branch: str) -> bool:
        """Fetch ``branch`` into ``origin/<branch>``; ``False`` when the remote has no such branch."""
        if not self.has_remote():
            return False
        spec = f"+refs/heads/{branch}:refs/remotes/{self.remote}/{branch}"
        try:
            self._git("fetch", "--no-tags", "--quiet", self.remote, spec, remote=True)
        except GitError as error:
            if "couldn't find remote ref" in str(error).lower():
                return False
            raise
        return True

    def prepare_branch(self, branch: str, *, base: str | None = None) -> BranchSetup:
        """Check out ``branch``: the remote's when it exists (a re-run, or a PR's head), a local one
        (fast-forwarded to the remote's when behind), else a new one from ``base`` (the default
        branch). Without ``base`` a missing branch is an error (a PR head must exist)."""
        on_remote = self.fetch(branch)
        remote_ref = f"{self.remote}/{branch}"
        if self._exists(f"refs/heads/{branch}"):
            self._git("checkout", "--quiet", branch)
            if on_remote and self._is_ancestor("HEAD", remote_ref):
                self._git("merge", "--ff-only", "--quiet", remote_ref)
            return BranchSetup(branch, "reused-local", self.head_sha())
        if on_remote:
            # No --track: CI clones fetch one branch, and tracking needs a matching fetch refspec.
            self._git("checkout", "--quiet", "--no-track", "-b", branch, remote_ref)
            return BranchSetup(branch, "reused-remote", self.head_sha())
        if base is None:
            raise GitError(f"branch {branch} does not exist on {self.remote}")
        start = self.ref_for(base)
        if self.has_remote():
            self.fetch(base)
        if not self._exists(start):
            raise GitError(f"the base branch {base} does not exist ({start})")
        self._git("checkout", "--quiet", "--no-track", "-b", branch, start)
        return BranchSetup(branch, "created", self.head_sha())

    def _is_ancestor(self, older: str, newer: str) -> bool:
        try:
            self._repo.git.merge_base("--is-ancestor", older, newer)
            return True
        except GitCommandError:
            return False

    # ----- trusted files from the default branch -------------------------------------------------

    def read_file(self, branch: str, path: str) -> str | None:
        """A file's text as it is on ``branch`` (``origin/<branch>``), without checking it out;
        ``None`` when the branch does not have it."""
        rev = self.ref_for(branch)
        if not self._exists(rev):
            raise GitError(f"{rev} is not available; fetch the default branch first")
        try:
            data: bytes = self._repo.git.execute(["git", "cat-file", "blob", f"{rev}:{path}"],
                                                 stdout_as_string=False, strip_newline_in_stdout=False)
        except GitCommandError:
            return None
        return data.decode("utf-8", errors="replace")

    def changed_paths(self, base_branch: str, *, paths: Iterable[str] = TRUSTED_PATHS, head: str = "HEAD") -> list[str]:
        """Which of ``paths`` ``head`` changes relative to the default branch (from their merge
        base; when a shallow clone has no merge base, relative to the branch itself)."""
        base = self.ref_for(base_branch)
        try:
            names = self._git("diff", "--name-only", "--no-renames", "-z", f"{base}...{head}")
        except GitError:
            names = self._git("diff", "--name-only", "--no-renames", "-z", base, head)
        wanted = tuple(paths)
        return [name for name in names.split("\0") if name and _matches(name, wanted)]

    # ----- commits ---------------------------------------------------------------------------------

    def commit_all(self, message: str, *, co_authors: Sequence[CoAuthor] = (),
                   checkpoint: bool = False) -> CommitInfo | None:
        """Stage everything (``git add -A``, honouring ``.gitignore``) and commit it as the bot,
        with a ``Co-authored-by`` trailer per co-author. ``None`` when there is nothing to commit."""
        self._git("add", "-A")
        if not self._git("diff", "--cached", "--name-only"):
            return None
        trailers = "\n".join(dict.fromkeys(c.trailer() for c in co_authors))
        full = message.strip() + (f"\n\n{trailers}" if trailers else "") + "\n"
        who = {"GIT_AUTHOR_NAME": self.identity.name, "GIT_AUTHOR_EMAIL": self.identity.email,
               "GIT_COMMITTER_NAME": self.identity.name, "GIT_COMMITTER_EMAIL": self.identity.email}
        self._git(*_COMMIT_CONFIG, "commit", "--quiet", "--no-verify", "-m", full, env=who)
        return CommitInfo(self.head_sha(), full, checkpoint)

    def checkpoint(self, reason: str, *, co_authors: Sequence[CoAuthor] = (),
                   details: str = "") -> CommitInfo | None:
        """Commit unfinished work so it is never lost; the message says it is a checkpoint."""
        body = "The run stopped before it finished; this commit keeps its work as it was."
        message = f"{CHECKPOINT_PREFIX}: {reason}\n\n{body}" + (f"\n\n{details.strip()}" if details.strip() else "")
        return self.commit_all(message, co_authors=co_authors, checkpoint=True)

    # ----- diffs -----------------------------------------------------------------------------------

    def diff(self, base: str, head: str = "HEAD") -> DiffStats:
        """Per-file patches and line counts from ``base`` to ``head`` (both revisions)."""
        flags = ("--no-color", "--no-ext-diff", "-M")
        numstat = self._git("diff", *flags, "--numstat", "-z", base, head, strip=False)
        status = self._git("diff", *flags, "--name-status", "-z", base, head, strip=False)
        patch = self._git("diff", *flags, base, head, strip=False)
        entries = _parse_name_status(status)
        counts = _parse_numstat(numstat)
        chunks = _split_patch(patch)
        if not (len(entries) == len(counts) == len(chunks)):  # defensive: fall back to one diff per file
            chunks = [self._git("diff", *flags, base, head, "--", *([old] if old else []), path, strip=False)
                      for _, path, old in entries]
        files = []
        for (code, path, old), (added, deleted, binary), chunk in zip(entries, counts, chunks, strict=True):
            files.append(FileChange(path, _STATUS.get(code, "modified"), added, deleted, binary, chunk, old))
        return DiffStats(tuple(files))

    # ----- push --------------------------------------------------------------------------------------

    def push(self, branch: str) -> PushResult:
        """Push ``HEAD`` to ``branch`` on the remote. A refusal raises ``PushRejected``; the commit
        stays in the local branch."""
        if not self.has_remote():
            raise GitError(f"there is no remote {self.remote!r} to push to")
        sha = self.head_sha()
        try:
            infos = self._repo.remote(self.remote).push(f"HEAD:refs/heads/{branch}", env=self._env(),
                                                        kill_after_timeout=REMOTE_TIMEOUT)
        except GitCommandError as error:
            raise GitError(self._describe(("push", self.remote, branch), error)) from None
        info = infos[0] if infos else None
        if info is None or info.flags & _REFUSED:
            summary = self.scrub(info.summary.strip()) if info is not None else ""
            failure = getattr(infos, "error", None)
            stderr = self.scrub(str(failure.stderr)).strip() if isinstance(failure, GitCommandError) else ""
            detail = summary or stderr
            why = "the remote branch has commits this run does not have" if "fetch first" in detail or \
                "non-fast-forward" in detail else "the remote refused it"
            raise PushRejected(f"the push of {branch} was rejected ({detail or 'no details'}): {why}. "
                               f"The work is kept in local commit {sha[:12]} on {self.current_branch() or 'HEAD'}.",
                               branch=branch, commit=sha)
        how = "created" if info.flags & PushInfo.NEW_HEAD else \
            "up-to-date" if info.flags & PushInfo.UP_TO_DATE else "updated"
        return PushResult(branch, sha, how)


def _matches(name: str, wanted: Sequence[str]) -> bool:
    return any(name.startswith(p) if p.endswith("/") else name == p for p in wanted)


def _parse_name_status(text: str) -> list[tuple[str, str, str | None]]:
    fields = text.split("\0")
    entries: list[tuple[str, str, str | None]] = []
    index = 0
    while index < len(fields) and fields[index]:
        code = fields[index][0]
        if code in "RC":
            entries.append((code, fields[index + 2], fields[index + 1]))
            index += 3
        else:
            entries.append((code, fields[index + 1], None))
            index += 2
    return entries


def _parse_numstat(text: str) -> list[tuple[int, int, bool]]:
    fields = text.split("\0")
    counts: list[tuple[int, int, bool]] = []
    index = 0
    while index < len(fields) and fields[index]:
        added, deleted, path = fields[index].split("\t", 2)
        binary = added == "-"
        counts.append((0 if binary else int(added), 0 if binary else int(deleted), binary))
        index += 3 if path == "" else 1  # a rename: "+\t-\t" then old and new paths
    return counts


def _split_patch(text: str) -> list[str]:
    """One chunk per ``diff --git`` header (patch lines never start with it: they start with a
    space, ``+``, ``-``, ``@`` or ``\\``)."""
    chunks: list[list[str]] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git "):
            chunks.append([line])
        elif chunks:
            chunks[-1].append(line)
    return ["".join(c) for c in chunks]

