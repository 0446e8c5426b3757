"""The workspace repository: branches, trusted files from the default branch, commits, diffs, pushes.

Everything a run does to git goes through :class:`GitWorkspace` (which finds the repository with
:mod:`bot.orchestration.git_discovery`, or GitPython there), and failures come out as
:class:`bot.errors.GitError` (``PushRejected`` when the remote refuses a push; the local commit is
kept either way).

Trust model (the details are in :mod:`bot.core.host_git`):

- Host-side git never takes configuration or code from the workspace: the git directory is found
  once and sealed before the model runs (a later change stops every git command); each command gets
  an environment built from an allowlist and command-line configuration that turns off fsmonitor,
  hooks, pagers, editors, external diffs and credential helpers; pushes run ``--no-verify``.
- The token reaches git only for remote commands, through a credential helper reading an inherited
  pipe: never in a URL, in ``.git/config``, in the environment or on the command line. Headers that
  ``actions/checkout`` persisted for the server are cleared per command, so exactly one
  ``Authorization`` is sent. Every message we raise is scrubbed of the token and its encoded form.
- Policy, hooks, MCP config and instructions are read from the default branch with
  ``git show origin/<default>:<path>``; :meth:`GitWorkspace.changed_paths` says which of them a PR
  head changes, so the summary can say those changes were not applied.
"""

from __future__ import annotations

import base64
import contextlib
import re
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from bot.core.host_git import GitDirSeal, credential_pipe, hardened_args, host_git_env
from bot.errors import GitError, PushRejected
from bot.orchestration.git_discovery import locate
from bot.orchestration.git_records import (
    GIT_STATUS,
    BranchSetup,
    CommitInfo,
    DiffStats,
    FileChange,
    PushResult,
    parse_name_status,
    parse_numstat,
    push_status,
    split_patch,
)


class PublishTooLarge(GitError):
    """The changes are too large to be checked for secrets before a push: they are not pushed."""


class PushBehind(PushRejected):
    """The remote branch has commits the run's branch lacks (someone pushed meanwhile)."""


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
    ".github/bot-policy.yml",
    ".github/bot-policy.yaml",
    ".github/bot-policy.json",
    ".github/bot-policy.toml",
    ".claude/",
    ".mcp.json",
    "AGENTS.md",
    "CLAUDE.md",
)
CHECKPOINT_PREFIX = "WIP: checkpoint"
#: Commands that talk to the remote may wait this long (a slow GitHub, a large fetch).
REMOTE_TIMEOUT = 300.0
#: Local commands (status, diff, commit) of a large checkout.
LOCAL_TIMEOUT = 600.0
#: The most a push may publish (every commit's message and changes, as text) for the bot to scan it
#: for secrets; more is refused. GitHub refuses files over 100 MB; a few of them is already unusual.
MAX_PUBLISHED_SCAN_BYTES = 256 * 2**20
#: Nested repositories without a commit left out of a commit before giving up.
MAX_SKIPPED_NESTED = 20
_NO_COMMIT = re.compile(r"error: '(.+?)' does not have a commit checked out")


@dataclass(frozen=True, slots=True)
class CoAuthor:
    """The person who asked. GitHub credits ``login@users.noreply.github.com`` (or ``id+login@…``)."""

    login: str
    name: str | None = None
    user_id: int | None = None

    def trailer(self) -> str:
        email = f"{self.user_id}+{self.login}" if self.user_id else self.login
        return f"Co-authored-by: {self.name or self.login} <{email}@users.noreply.github.com>"


class GitWorkspace:
    """A git working tree with an optional remote (``origin``) and the token used to reach it.

    The repository (a ``.git`` directory, or a ``.git`` file of a worktree or submodule) is found
    once, when the workspace is still the runner's (:func:`bot.orchestration.git_discovery.locate`:
    GitPython's discovery, with a fast path for a plain ``.git`` directory); every git command after
    that runs through :meth:`_run` with an environment built from an allowlist and the hardened
    configuration of :mod:`bot.core.host_git`. (GitPython's own command runner always starts from a
    copy of ``os.environ``, so it is not used to run git.) After :meth:`seal`, every command first
    checks that the git directory is still the one sealed.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        remote: str = "origin",
        token: str | None = None,
        identity: Identity = BOT_IDENTITY,
        home: Path | None = None,
        private: Sequence[Path] = (),
    ) -> None:
        found = locate(path)
        self.root, self.git_dir, self.common_dir = found.root, found.git_dir, found.common_dir
        self.remote = remote
        self.identity = identity
        self.__token = token or None
        # The HOME of the bot's git: empty, private, outside the workspace (no ~/.gitconfig of anyone's).
        self._home = home if home is not None else Path(tempfile.mkdtemp(prefix="bot-git-home-"))
        self._seal: GitDirSeal | None = None
        # The bot's own files (the output directory: transcript, outcome) when they lie in the work
        # tree: never staged, so never committed or pushed.
        self._private = tuple(f":(exclude,top){rel}" for rel in _inside(self.root, private))
        # Untracked files that were there before the model ran (what earlier steps of the job left:
        # build output, a cloud login's credentials file) are not the run's work: never committed.
        self._preexisting: tuple[str, ...] = ()

    def __repr__(self) -> str:  # never the token
        return f"GitWorkspace({str(self.root)!r}, remote={self.remote!r})"

    # ----- plumbing --------------------------------------------------------------------------------

    def seal(self) -> GitDirSeal:
        """Record the git directory as it is now (before the model runs); later commands refuse to
        run when it changed (:class:`GitDirTampered`)."""
        self._preexisting = self._untracked()
        self._seal = GitDirSeal.take(self.root, self.git_dir, self.common_dir)
        return self._seal

    def _untracked(self) -> tuple[str, ...]:
        """Untracked, unignored paths now (an untracked directory as one entry)."""
        done = self._run(("status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=all"))
        if done.returncode != 0:
            raise GitError(self._describe(("status",), done))
        entries = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")
        return tuple(e[3:].rstrip("/") for e in entries if e.startswith("?? "))

    def check_seal(self) -> None:
        if self._seal is not None:
            self._seal.check()

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

    def _remote_url(self) -> str:
        return self._git("config", "--get", f"remote.{self.remote}.url")

    def _remote_config(self) -> list[str]:
        """``-c`` arguments for commands that reach the remote: no persisted ``extraheader`` (an
        empty value clears the list; ``actions/checkout`` persists one for the server's URL)."""
        args = ["-c", "http.extraheader="]
        parts = urlsplit(self._remote_url())
        if parts.scheme in ("http", "https") and parts.hostname:
            host = parts.hostname + (f":{parts.port}" if parts.port else "")
            args += ["-c", f"http.{parts.scheme}://{host}/.extraheader="]
        return args

    def _run(
        self,
        args: Sequence[str],
        *,
        remote: bool = False,
        env: Mapping[str, str] | None = None,
        stdout: IO[bytes] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """One host-side git command. Receives: ``PATH``, a private ``HOME``, ``GIT_DIR`` and
        ``GIT_WORK_TREE`` named explicitly, no system/global config, no prompts
        (:func:`host_git_env`); for remote commands also the runner's proxy/CA settings and the token
        through an inherited pipe (never the environment). Configuration that runs programs is
        neutralised on the command line (:data:`HARDENED_CONFIG`)."""
        self.check_seal()
        child_env = host_git_env(git_dir=self.git_dir, work_tree=self.root, home=self._home, remote=remote, extra=env)
        with contextlib.ExitStack() as stack:
            extra: list[str] = []
            fds: tuple[int, ...] = ()
            if remote:
                extra += self._remote_config()
                if self.__token:
                    fd, helper = stack.enter_context(credential_pipe("x-access-token", self.__token))
                    extra += helper
                    fds = (fd,)
            try:
                return subprocess.run(
                    ["git", *hardened_args(), *extra, *args],
                    cwd=self.root,
                    env=child_env,
                    stdout=subprocess.PIPE if stdout is None else stdout,
                    stderr=subprocess.PIPE,
                    stdin=subprocess.DEVNULL,
                    pass_fds=fds,
                    check=False,
                    timeout=REMOTE_TIMEOUT if remote else LOCAL_TIMEOUT,
                )
            except subprocess.TimeoutExpired:
                raise GitError(f"git {args[0]} timed out") from None
            except OSError as exc:
                raise GitError(f"git could not be run: {exc.strerror or exc}") from None

    def _git(self, *args: str, remote: bool = False, strip: bool = True, env: Mapping[str, str] | None = None) -> str:
        done = self._run(args, remote=remote, env=env)
        if done.returncode != 0:
            raise GitError(self._describe(args, done))
        out = done.stdout.decode("utf-8", errors="replace")
        return out.rstrip("\n") if strip else out

    def _describe(self, args: Sequence[str], done: subprocess.CompletedProcess[bytes]) -> str:
        command = " ".join(a for a in args if not a.startswith("-c") and "=" not in a)[:80]
        detail = done.stderr.decode("utf-8", errors="replace").strip()
        return self.scrub(f"git {command} failed (exit {done.returncode}): {detail[:2000] or 'no message'}")

    def _exists(self, rev: str) -> bool:
        return self._run(("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")).returncode == 0

    # ----- facts -----------------------------------------------------------------------------------

    def has_remote(self) -> bool:
        return self._run(("config", "--get", f"remote.{self.remote}.url")).returncode == 0

    def head_sha(self) -> str:
        return self._git("rev-parse", "HEAD")

    def current_branch(self) -> str | None:
        done = self._run(("symbolic-ref", "--quiet", "--short", "HEAD"))
        return done.stdout.decode("utf-8", errors="replace").strip() or None if done.returncode == 0 else None

    def has_changes(self) -> bool:
        """Anything to commit: tracked changes or untracked files not ignored."""
        return bool(self._git("status", "--porcelain", "--untracked-files=all"))

    def ref_for(self, branch: str) -> str:
        """``origin/<branch>`` when there is a remote, else the local branch."""
        return f"{self.remote}/{branch}" if self.has_remote() else branch

    # ----- set-up ----------------------------------------------------------------------------------

    def configure_identity(self) -> None:
        """Write the bot's name and e-mail into this repository's config (runners often have none),
        for the commands the model runs in the checkout. Before the seal: afterwards the config is
        sealed and the bot's own commits name the bot through the environment."""
        self._git("config", "--local", "user.name", self.identity.name)
        self._git("config", "--local", "user.email", self.identity.email)

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
        return self._run(("merge-base", "--is-ancestor", older, newer)).returncode == 0

    # ----- trusted files from the default branch -------------------------------------------------

    def read_file(self, branch: str, path: str) -> str | None:
        """A file's text as it is on ``branch`` (``origin/<branch>``), without checking it out;
        ``None`` when the branch does not have it."""
        rev = self.ref_for(branch)
        if not self._exists(rev):
            raise GitError(f"{rev} is not available; fetch the default branch first")
        done = self._run(("cat-file", "blob", f"{rev}:{path}"))
        if done.returncode != 0:
            return None
        return done.stdout.decode("utf-8", errors="replace")

    def list_files(self, branch: str, directory: str) -> list[str]:
        """The names of the regular files directly in ``directory`` on ``branch`` (no links, no
        subdirectories), without checking it out; empty when the branch has no such directory."""
        rev = self.ref_for(branch)
        done = self._run(("ls-tree", "-z", f"{rev}:{directory}"))
        if done.returncode != 0:
            return []
        names = []
        for entry in done.stdout.decode("utf-8", errors="replace").split("\0"):
            meta, _, name = entry.partition("\t")
            if meta.split(" ")[:2] in (["100644", "blob"], ["100755", "blob"]):
                names.append(name)
        return sorted(names)

    def changed_paths(self, base_branch: str, *, paths: Iterable[str] = TRUSTED_PATHS, head: str = "HEAD") -> list[str]:
        """Which of ``paths`` ``head`` changes relative to the default branch (from their merge
        base; when a shallow clone has no merge base, relative to the branch itself)."""
        wanted = tuple(paths)
        return [name for name in self.changed_files(base_branch, head) if _matches(name, wanted)]

    def changed_files(self, base_branch: str, head: str = "HEAD") -> list[str]:
        """Every path ``head`` changes relative to the default branch (see :meth:`changed_paths`)."""
        base = self.ref_for(base_branch)
        try:
            names = self._git("diff", "--name-only", "--no-renames", "-z", f"{base}...{head}")
        except GitError:
            names = self._git("diff", "--name-only", "--no-renames", "-z", base, head)
        return [name for name in names.split("\0") if name]

    # ----- commits ---------------------------------------------------------------------------------

    def commit_all(
        self, message: str, *, co_authors: Sequence[CoAuthor] = (), checkpoint: bool = False
    ) -> CommitInfo | None:
        """Stage everything (``git add -A``, honouring ``.gitignore``) and commit it as the bot,
        with a ``Co-authored-by`` trailer per co-author. ``None`` when there is nothing to commit."""
        self._stage_all()
        if not self._git("diff", "--cached", "--name-only"):
            return None
        trailers = "\n".join(dict.fromkeys(c.trailer() for c in co_authors))
        full = message.strip() + (f"\n\n{trailers}" if trailers else "") + "\n"
        self._git("commit", "--quiet", "--no-verify", "-m", full, env=self._identity_env())
        return CommitInfo(self.head_sha(), full, checkpoint)

    def _stage_all(self) -> None:
        """``git add -A``, leaving out nested repositories without a commit (a ``git init`` in a
        subdirectory would otherwise make the whole commit fail and the work unsaved), the bot's own
        files and what was untracked before the seal."""
        excluded: list[str] = []
        kept_out = [*self._private, *(f":(exclude,top,literal){p}" for p in self._preexisting)]
        for _ in range(MAX_SKIPPED_NESTED):
            # Through a file: the pre-existing untracked paths may be more than a command line holds.
            specs = [".", *kept_out, *(f":(exclude){p}" for p in excluded)]
            with tempfile.NamedTemporaryFile("wb", suffix=".pathspec") as listing:
                listing.write(b"\0".join(s.encode("utf-8", errors="surrogateescape") for s in specs))
                listing.flush()
                done = self._run(("add", "-A", f"--pathspec-from-file={listing.name}", "--pathspec-file-nul"))
            if done.returncode == 0:
                return
            stderr = done.stderr.decode("utf-8", errors="replace")
            nested = _NO_COMMIT.findall(stderr)
            if not nested:
                raise GitError(self._describe(("add", "-A"), done))
            excluded += [n.rstrip("/") for n in nested]
        raise GitError(f"git add -A failed: more than {MAX_SKIPPED_NESTED} nested repositories without a commit")

    def checkpoint(self, reason: str, *, co_authors: Sequence[CoAuthor] = (), details: str = "") -> CommitInfo | None:
        """Commit unfinished work so it is never lost; the message says it is a checkpoint."""
        body = "The run stopped before it finished; this commit keeps its work as it was."
        message = f"{CHECKPOINT_PREFIX}: {reason}\n\n{body}" + (f"\n\n{details.strip()}" if details.strip() else "")
        return self.commit_all(message, co_authors=co_authors, checkpoint=True)

    # ----- diffs -----------------------------------------------------------------------------------

    def diff(self, base: str, head: str = "HEAD") -> DiffStats:
        """Per-file patches and line counts from ``base`` to ``head`` (both revisions)."""
        flags = ("--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all", "-M")
        numstat = self._git("diff", *flags, "--numstat", "-z", base, head, strip=False)
        status = self._git("diff", *flags, "--name-status", "-z", base, head, strip=False)
        patch = self._git("diff", *flags, base, head, strip=False)
        entries = parse_name_status(status)
        counts = parse_numstat(numstat)
        chunks = split_patch(patch)
        if not (len(entries) == len(counts) == len(chunks)):  # defensive: fall back to one diff per file
            chunks = [
                self._git("diff", *flags, base, head, "--", *([old] if old else []), path, strip=False)
                for _, path, old in entries
            ]
        files = []
        for (code, path, old), (added, deleted, binary), chunk in zip(entries, counts, chunks, strict=True):
            files.append(FileChange(path, GIT_STATUS.get(code, "modified"), added, deleted, binary, chunk, old))
        return DiffStats(tuple(files))

    def published_text(self, base: str, head: str = "HEAD") -> str:
        """Every byte a push of ``head`` publishes beyond ``base``, as text to scan for secrets: each
        commit's message and changes, every file shown as text (``--text``: a ``.gitattributes`` that
        marks a file ``binary`` or ``-diff``, or a NUL in it, must not hide its content), merges
        against their first parent, no textconv or external diff."""
        args = (
            "log",
            "--no-color",
            "-p",
            "--text",
            "--no-ext-diff",
            "--no-textconv",
            "--ignore-submodules=all",
            "--diff-merges=first-parent",
            "--format=%B",
            f"{base}..{head}",
        )
        # Into a file, not memory: a run that commits a build's binaries must not exhaust the bot.
        with tempfile.TemporaryFile() as out:
            done = self._run(args, stdout=out)
            if done.returncode != 0:
                raise GitError(self._describe(args, done))
            size = out.tell()
            if size > MAX_PUBLISHED_SCAN_BYTES:
                limit = MAX_PUBLISHED_SCAN_BYTES // 2**20
                raise PublishTooLarge(
                    f"the changes to push are {size // 2**20} MB as text, more than the {limit} MB "
                    "the bot checks for secrets before a push"
                )
            out.seek(0)
            return out.read().decode("utf-8", errors="replace")

    # ----- push --------------------------------------------------------------------------------------

    def push(self, branch: str) -> PushResult:
        """Push ``HEAD`` to ``branch`` on the remote (``--no-verify``: no ``pre-push`` hook). A refusal
        raises ``PushRejected``; the commit stays in the local branch."""
        if not self.has_remote():
            raise GitError(f"there is no remote {self.remote!r} to push to")
        sha = self.head_sha()
        done = self._run(("push", "--porcelain", "--no-verify", self.remote, f"HEAD:refs/heads/{branch}"), remote=True)
        flag, summary = push_status(done.stdout.decode("utf-8", errors="replace"), branch)
        if flag is None or flag == "!" or done.returncode != 0:
            stderr = done.stderr.decode("utf-8", errors="replace")
            # The remote's own words beside git's summary: a hook's message, "GH006: Protected branch".
            said = " ".join(s[7:].strip() for s in stderr.splitlines() if s.startswith("remote:") and s[7:].strip())
            detail = self.scrub(" ".join(p for p in (summary, said) if p) or stderr.strip())[:2000]
            if flag is None and "rejected" not in detail and "declined" not in detail:
                raise GitError(self._describe(("push", self.remote, branch), done))
            behind = "fetch first" in detail or "non-fast-forward" in detail
            why = "the remote branch has commits this run does not have" if behind else "the remote refused it"
            raise (PushBehind if behind else PushRejected)(
                f"the push of {branch} was rejected ({detail or 'no details'}): {why}. "
                f"The work is kept in local commit {sha[:12]} on {self.current_branch() or 'HEAD'}.",
                branch=branch,
                commit=sha,
            )
        how = "created" if flag == "*" else "up-to-date" if flag == "=" else "updated"
        return PushResult(branch, sha, how)

    def rebase_onto_remote(self, branch: str) -> bool:
        """Replay the commits of ``HEAD`` that the remote's ``branch`` lacks on top of it (someone
        pushed to the branch while the run worked). ``False``, with the branch as it was, when they
        do not apply cleanly or the remote has no such branch. No hook runs (the hardened config),
        and the commits keep their author; the committer is the bot."""
        if not self.fetch(branch):
            return False
        upstream = f"{self.remote}/{branch}"
        done = self._run(("rebase", "--quiet", "--no-verify", "--no-autostash", upstream), env=self._identity_env())
        if done.returncode == 0:
            return True
        self._run(("rebase", "--abort"))
        return False

    # ----- refs beside branches (stored sessions, bot.orchestration.session_store) -----------------

    def fetch_ref(self, ref: str) -> str | None:
        """Fetch ``ref`` (a ref outside ``refs/heads``) from the remote into the same local ref; its
        commit, or ``None`` when the remote has none (a local copy is then dropped too)."""
        try:
            self._git(
                "fetch", "--no-tags", "--quiet", "--no-write-fetch-head", self.remote, f"+{ref}:{ref}", remote=True
            )
        except GitError as error:
            if "couldn't find remote ref" not in str(error).lower():
                raise
            self.set_ref(ref, None)
            return None
        return self.local_ref(ref)

    def local_ref(self, ref: str) -> str | None:
        done = self._run(("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"))
        return (done.stdout.decode("ascii", errors="replace").strip() or None) if done.returncode == 0 else None

    def read_blob(self, rev: str, path: str, max_bytes: int) -> bytes | None:
        """A file of a commit, as stored; ``None`` when the commit has no such file. Larger than
        ``max_bytes`` is a :class:`GitError` (the size is checked before the content is read)."""
        spec = f"{rev}:{path}"
        size = self._run(("cat-file", "-s", spec))
        if size.returncode != 0:
            return None
        n = int(size.stdout.decode("ascii", errors="replace").strip() or "0")
        if n > max_bytes:
            raise GitError(f"{spec} is {n:,} bytes, more than the {max_bytes:,} it may be")
        done = self._run(("cat-file", "blob", spec))
        if done.returncode != 0:
            raise GitError(self._describe(("cat-file", "blob"), done))
        return done.stdout

    def write_snapshot(self, files: Mapping[str, bytes], message: str) -> str:
        """A parentless commit holding ``files`` (name → content), written as the bot without the
        work tree or its index: a temporary index, blobs hashed ``--no-filters`` (no clean filter
        or attribute from the workspace applies)."""
        with tempfile.TemporaryDirectory(prefix="bot-snapshot-") as tmp:
            index = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            for name, data in files.items():
                blob = Path(tmp) / "blob"
                blob.write_bytes(data)
                sha = self._git("hash-object", "-w", "--no-filters", str(blob))
                self._git("update-index", "--add", "--cacheinfo", f"100644,{sha},{name}", env=index)
            tree = self._git("write-tree", env=index)
            return self._git("commit-tree", tree, "-m", message, env=self._identity_env())

    def set_ref(self, ref: str, commit: str | None) -> None:
        """Point ``ref`` at ``commit`` (``None``: delete it; absent is fine)."""
        if commit is None:
            self._run(("update-ref", "-d", ref))
        else:
            self._git("update-ref", ref, commit)

    def push_refs(self, updates: Mapping[str, str | None]) -> None:
        """Force each ``ref`` to its commit on the remote (``None``: delete it), in one push."""
        specs = [f"+{commit}:{ref}" if commit else f":{ref}" for ref, commit in updates.items()]
        done = self._run(("push", "--porcelain", "--no-verify", self.remote, *specs), remote=True)
        if done.returncode != 0:
            raise GitError(self._describe(("push", self.remote, *updates), done))

    def list_refs(self, prefix: str) -> list[tuple[str, str, int]]:
        """Local refs under ``prefix``: (ref, commit, committer time)."""
        out = self._git("for-each-ref", "--format=%(refname)%00%(objectname)%00%(committerdate:unix)", prefix)
        rows = [line.split("\0") for line in out.splitlines() if line]
        return [(r[0], r[1], int(r[2] or 0)) for r in rows if len(r) == 3]

    def is_ancestor(self, older: str, newer: str) -> bool:
        """``older`` is ``newer`` or one of its ancestors (both must exist)."""
        return self._is_ancestor(older, newer)

    def commits_since(self, old: str, new: str = "HEAD", *, limit: int = 100) -> list[tuple[str, str, str, str]]:
        """Commits in ``old..new``, newest first: (sha, author name, author e-mail, subject)."""
        out = self._git("log", "--no-color", f"--max-count={limit}", "--format=%H%x00%an%x00%ae%x00%s", f"{old}..{new}")
        rows = [line.split("\0") for line in out.splitlines() if line]
        return [(r[0], r[1], r[2], r[3]) for r in rows if len(r) == 4]

    def _identity_env(self) -> dict[str, str]:
        return {
            "GIT_AUTHOR_NAME": self.identity.name,
            "GIT_AUTHOR_EMAIL": self.identity.email,
            "GIT_COMMITTER_NAME": self.identity.name,
            "GIT_COMMITTER_EMAIL": self.identity.email,
        }


def _inside(root: Path, paths: Iterable[Path]) -> list[str]:
    """The paths that lie strictly inside ``root``, relative to it."""
    out = []
    for path in paths:
        resolved = path.resolve()
        if resolved != root and resolved.is_relative_to(root):
            out.append(resolved.relative_to(root).as_posix())
    return out


def _matches(name: str, wanted: Sequence[str]) -> bool:
    return any(name.startswith(p) if p.endswith("/") else name == p for p in wanted)
