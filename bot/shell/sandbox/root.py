"""What a sandboxed command sees: the root it gets, and the ``bwrap`` command line that builds it.

Trust model. Whatever the root shows, a command can read; whatever socket it shows, a command can
connect to (connecting to a UNIX socket needs no write, so a read-only bind is no barrier); whatever
it shows writable, a command can change under the bot. So the root is built from nothing up:

* read-only: ``/usr``, ``/bin``, ``/sbin``, ``/lib*`` (links recreated as links on merged-usr
  systems), ``/etc`` without its secrets (:data:`ETC_SECRETS`), ``/opt`` (runners' tool caches),
  ``/nix``, and the toolchain roots named by ``PATH`` that lie elsewhere;
* ``HOME`` as a read-only *view*: its entries one by one, without credentials
  (:data:`HOME_CREDENTIALS`), without sockets or pipes, without the runner's own install, and
  without the directories that hold the workspace or the run's files (on a runner, ``~/work``
  holds other checkouts and the runner's temporary directory; the workspace alone is bound into it);
* read-write: the workspace, the policy's additional directories, and the sandbox's own
  sub-directory of the scratch directory (:func:`sandbox_scratch`: ``/tmp``, caches, the Bash
  tool's markers) — never the rest of the scratch directory, which holds the transcript;
* read-only over the writable ones: each git directory, bound onto itself (:mod:`bot.shell.sandbox.git_dirs`),
  and ``.github/workflows``; its configuration files shown as copies without credentials (the
  token ``actions/checkout`` persists there);
* not there at all: ``/var``, ``/run``, ``/srv``, ``/mnt``, ``/media``, ``/home`` and ``/root``
  beyond ``HOME``, the host's ``/tmp``, the runner's temporary directory (step scripts with
  secrets expanded).

What a shown toolchain or ``HOME`` entry holds deeper down stays visible: a socket an IDE server
keeps under ``~/.vscode-server`` is left out by name (:data:`HOME_SOCKET_DIRS`), not by a scan.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.shell.sandbox.credentials import (
    HOME_CREDENTIALS,
    HOME_GIT_CONFIGS,
    HOME_RUNNER_DIRS,
    HOME_SOCKET_DIRS,
    RUNNER_SECRETS,
    _config_copies_dir,
    _credential_free_copies,
    etc_secrets,
    workspace_credentials,
)
from bot.shell.sandbox.git_dirs import protect_repository

#: Top-level system directories shown read-only when they exist.
SYSTEM_DIRS: tuple[str, ...] = ("/usr", "/etc", "/opt", "/nix")
#: Merged-usr candidates: a link on the host becomes the same link, a directory a bind.
SYSTEM_LINKS: tuple[str, ...] = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: ``PATH`` entries with these names bring their parent (a toolchain's ``lib`` and ``share``).
TOOLCHAIN_LEAVES: frozenset[str] = frozenset({"bin", "sbin", "shims"})
#: Never shown as a toolchain root, and nothing under the second set at all.
NEVER_ROOTS: frozenset[Path] = frozenset(
    Path(p)
    for p in (
        "/",
        "/home",
        "/var",
        "/var/lib",
        "/var/tmp",
        "/run",
        "/srv",
        "/mnt",
        "/media",
        "/root",
        "/tmp",
        "/proc",
        "/sys",
        "/dev",
        "/boot",
        "/lost+found",
        "/usr",
        "/etc",
    )
)
NEVER_UNDER: tuple[Path, ...] = tuple(Path(p) for p in ("/proc", "/sys", "/dev", "/run", "/var/run", "/tmp"))
#: Bounds on what a hostile or huge ``HOME``/``PATH`` can make us bind (bwrap takes each on argv).
MAX_HOME_ENTRIES = 1_000
MAX_TOOLCHAIN_ROOTS = 64
#: The sandbox's own sub-directory of the scratch directory, and the empty file hidden files show.
SANDBOX_DIR = "sandbox"
EMPTY_FILE = "sandbox-empty"


def sandbox_scratch(scratch_dir: Path) -> Path:
    """The one part of the run's scratch directory a sandboxed command may write: its ``/tmp``
    (``tmp/``), its cache (``cache/``, ``XDG_CACHE_HOME``), the Bash tool's markers (``bash/``)."""
    return scratch_dir / SANDBOX_DIR


# ----- the root's pieces ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bind:
    """A host path shown read-only at the same place (skipped if it vanished meanwhile)."""

    path: Path

    def bwrap_args(self) -> list[str]:
        return ["--ro-bind-try", str(self.path), str(self.path)]


@dataclass(frozen=True, slots=True)
class Link:
    """A symbolic link recreated inside (``/bin -> usr/bin``, a link in ``HOME``)."""

    path: Path
    target: str

    def bwrap_args(self) -> list[str]:
        return ["--symlink", self.target, str(self.path)]


@dataclass(frozen=True, slots=True)
class View:
    """An empty directory into which chosen entries are bound; made read-only once they are."""

    path: Path

    def bwrap_args(self) -> list[str]:
        return ["--tmpfs", str(self.path)]


RootMount = Bind | Link | View


def _under(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def _holds(path: Path, inner: Iterable[Path]) -> bool:
    """Is ``path`` one of ``inner`` or an ancestor of one?"""
    return any(p == path or p.is_relative_to(path) for p in inner)


def _entry_mount(entry: Path) -> RootMount | None:
    try:
        mode = entry.lstat().st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return Link(entry, os.readlink(entry))
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return Bind(entry)
    return None  # sockets, pipes, devices: a channel to a host process, never shown


def _view(directory: Path, keep_out: Sequence[Path], skip: Iterable[str] = ()) -> list[RootMount]:
    """``directory`` as a view: every entry but those named in ``skip``, those that hold a
    ``keep_out`` path, and anything that is not a file, a directory or a link."""
    skipped = set(skip)
    mounts: list[RootMount] = [View(directory)]
    try:
        entries = sorted(directory.iterdir())[:MAX_HOME_ENTRIES]
    except OSError:
        return mounts
    for entry in entries:
        if entry.name in skipped or _holds(entry, keep_out):
            continue
        mount = _entry_mount(entry)
        if mount is not None:
            mounts.append(mount)
    return mounts


def system_root(keep_out: Sequence[Path] = ()) -> list[RootMount]:
    """The system part of the root. A system directory that holds a ``keep_out`` path (a
    self-hosted runner installed under ``/opt``) is shown as a view without it."""
    mounts: list[RootMount] = []
    for raw in SYSTEM_LINKS:
        path = Path(raw)
        if path.is_symlink():
            mounts.append(Link(path, os.readlink(path)))
        elif path.is_dir():
            mounts.append(Bind(path))
    for raw in SYSTEM_DIRS:
        path = Path(raw)
        if not path.is_dir() or path.is_symlink():
            continue
        mounts += _view(path, keep_out) if _holds(path, keep_out) else [Bind(path)]
    return mounts


def home_view(home: Path, keep_out: Sequence[Path]) -> list[RootMount]:
    """``HOME`` read-only, entry by entry, without credentials, sockets, the runner's own install
    and what ``keep_out`` holds."""
    top_level = [c for c in HOME_CREDENTIALS if "/" not in c]
    return _view(home, keep_out, skip=(*top_level, *HOME_SOCKET_DIRS, *HOME_RUNNER_DIRS))


def _shown(path: Path, mounts: Sequence[RootMount]) -> bool:
    return _under(path, (m.path for m in mounts if isinstance(m, Bind)))


def toolchain_roots(
    entries: Iterable[str], mounts: Sequence[RootMount], keep_out: Sequence[Path], hidden: Sequence[Path]
) -> list[Path]:
    """The directories to show for ``PATH`` entries the root does not show yet: an entry's parent
    when it is a ``bin``/``sbin``/``shims`` directory (its toolchain's ``lib`` comes along), else the
    entry; never a system-wide directory, a user's whole home, or one that holds the workspace, the
    run's files or a hidden path."""
    roots: list[Path] = []
    for raw in entries:
        if not raw or not raw.startswith("/"):
            continue
        try:
            entry = Path(raw).resolve(strict=True)
        except OSError:
            continue
        if not entry.is_dir() or _shown(entry, mounts) or _under(entry, roots):
            continue
        candidates = [entry.parent, entry] if entry.name in TOOLCHAIN_LEAVES else [entry]
        for candidate in candidates:
            if (
                candidate in NEVER_ROOTS
                or candidate.parent == Path("/home")
                or _under(candidate, NEVER_UNDER)
                or _holds(candidate, keep_out)
                or _holds(candidate, hidden)
                or _under(candidate, hidden)
            ):
                continue
            roots = [r for r in roots if not r.is_relative_to(candidate)] + [candidate]
            break
        if len(roots) >= MAX_TOOLCHAIN_ROOTS:
            break
    return roots


# ----- the spec and the command line -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SandboxSpec:
    writable: tuple[Path, ...]
    #: Bound at ``/tmp``: the run's private temporary directory.
    tmp_dir: Path
    #: Read-only over the writable roots (each git directory, ``.github/workflows``).
    read_only: tuple[Path, ...] = ()
    #: Hidden behind an empty tmpfs (directories) or an empty file (files).
    hidden_dirs: tuple[Path, ...] = ()
    hidden_files: tuple[Path, ...] = ()
    #: An empty regular file to bind over hidden files (a bound ``/dev/null`` cannot be opened).
    empty_file: Path | None = None
    network: bool = False
    #: Shown read-only when the network is allowed (the resolver's file may live under ``/run``).
    resolver_dir: Path | None = None
    #: The read-only root (:func:`system_root`, :func:`home_view`, toolchains). Empty shows nothing.
    root: tuple[RootMount, ...] = ()
    #: The sandbox's own writable directory (:func:`sandbox_scratch`).
    scratch: Path | None = None
    #: ``(copy, target)``: ``copy`` shown read-only in place of ``target`` (credential-free git configs).
    replaced: tuple[tuple[Path, Path], ...] = ()
    #: The run's own directories that lie inside a writable one (an output directory in the
    #: workspace): hidden behind an empty tmpfs over the writable bind, the sandbox's own part bound back.
    masked: tuple[Path, ...] = ()

    @property
    def cache_dir(self) -> Path | None:
        return None if self.scratch is None else self.scratch / "cache"


def bwrap_argv(bwrap: str, spec: SandboxSpec, inner: Sequence[str], *, cwd: Path) -> list[str]:
    """The ``bwrap`` command line for ``inner``. Pure. Order matters: later mounts cover earlier
    ones, so ``/tmp`` and the root come first, hiding next, the writable binds after it and protection last;
    then the views and the root itself are made read-only."""
    # /tmp first: a HOME or workspace below it is mounted into the run's own /tmp, not hidden by it.
    argv = [bwrap, "--dev", "/dev", "--proc", "/proc", "--bind", str(spec.tmp_dir), "/tmp"]
    for mount in spec.root:
        argv += mount.bwrap_args()
    for directory in spec.hidden_dirs:
        argv += ["--tmpfs", str(directory)]
    if spec.empty_file is not None:
        for file in spec.hidden_files:
            argv += ["--ro-bind", str(spec.empty_file), str(file)]
    for path in spec.writable:
        argv += ["--bind", str(path), str(path)]
    for path in spec.masked:
        argv += ["--tmpfs", str(path)]
    if spec.masked and spec.scratch is not None:
        argv += ["--bind", str(spec.scratch), str(spec.scratch)]
    for path in spec.read_only:
        argv += ["--ro-bind", str(path), str(path)]
    for copy, target in spec.replaced:
        argv += ["--ro-bind", str(copy), str(target)]
    if spec.network and spec.resolver_dir is not None:
        argv += ["--ro-bind", str(spec.resolver_dir), str(spec.resolver_dir)]
    for mount in spec.root:
        if isinstance(mount, View):
            argv += ["--remount-ro", str(mount.path)]
    if spec.root:
        argv += ["--remount-ro", "/"]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not spec.network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", str(cwd), "--", *inner]
    return argv


def _resolver_dir() -> Path | None:
    """``/etc/resolv.conf`` may point into ``/run`` (systemd-resolved), which the sandbox leaves out."""
    try:
        target = Path("/etc/resolv.conf").resolve(strict=True)
    except OSError:
        return None
    return target.parent if not target.is_relative_to(Path("/etc")) else None


def _absolute(raw: str | None) -> Path | None:
    """An absolute path from the environment, resolved; ``None`` for unset, relative or ``/``."""
    if not raw or not raw.startswith("/"):
        return None
    path = Path(raw).resolve()
    return None if path == Path("/") else path


def _visible(path: Path, root: Sequence[RootMount]) -> bool:
    return _under(path, (m.path for m in root if isinstance(m, Bind | View)))


def _existing(paths: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    dirs: list[Path] = []
    files: list[Path] = []
    for candidate in paths:
        path = candidate.resolve()  # a link is hidden where it points (bwrap mounts on the target)
        if path.is_dir():
            dirs.append(path)
        elif path.exists():
            files.append(path)
    return dirs, files


def build_spec(
    *,
    workspace: Path,
    scratch_dir: Path,
    additional_directories: Sequence[Path] = (),
    network: bool = False,
    allow_git_dir_writes: bool = False,
    allow_workflow_writes: bool = False,
    environ: Mapping[str, str] | None = None,
    command_path: str | None = None,
) -> SandboxSpec:
    """The spec for a run. Creates what the binds need: the sandbox's own directory with its
    ``/tmp``, an empty file, and the protected directories (an empty ``.git/hooks`` or
    ``.github/workflows`` made read-only cannot be filled; one left out could be created).
    ``environ`` is the bot's environment (``HOME``, ``PATH``, ``RUNNER_TEMP``...), ``command_path``
    the commands' own ``PATH`` when the policy changes it."""
    environ = os.environ if environ is None else environ
    own = sandbox_scratch(scratch_dir)
    tmp_dir = own / "tmp"
    for directory in (tmp_dir, own / "cache", own / "bash"):
        directory.mkdir(parents=True, exist_ok=True)
    empty = scratch_dir / EMPTY_FILE
    if not empty.exists():
        empty.touch()
        empty.chmod(0o444)
    writable: list[Path] = [p for p in (workspace, *additional_directories) if p.is_dir()]
    read_only: list[Path] = []
    configs: list[Path] = []
    repositories = [workspace, *(d for d in additional_directories if (d / ".git").exists())]
    for root in dict.fromkeys(r for r in repositories if r in writable):
        protection = protect_repository(root, allow_git_dir_writes=allow_git_dir_writes)
        writable += protection.writable
        read_only += protection.read_only
        configs += protection.configs
        if not allow_workflow_writes:
            workflows = root / ".github" / "workflows"
            try:
                workflows.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            read_only.append(workflows)
    writable += _pinned_ancestors(read_only, list(writable))
    writable.append(own)

    home = _absolute(environ.get("HOME"))
    runner_temp = _absolute(environ.get("RUNNER_TEMP"))
    keep_out = [p.resolve() for p in (workspace, *additional_directories, scratch_dir)]
    if runner_temp is not None:
        keep_out.append(runner_temp)
    mounts = system_root(keep_out)
    home_shown_as_view = home is not None and home.is_dir() and not _shown(home, mounts)
    if home is not None and home_shown_as_view:
        mounts += home_view(home, keep_out)

    hidden: list[Path] = []
    if runner_temp is not None:
        installed = runner_temp.parent.parent
        hidden += [runner_temp, *(installed / name for name in RUNNER_SECRETS if (installed / ".runner").exists())]
    if home is not None:
        hidden += [home / rel for rel in HOME_CREDENTIALS if "/" in rel or not home_shown_as_view]
    ssh_agent = _absolute(environ.get("SSH_AUTH_SOCK"))
    if ssh_agent is not None:
        hidden.append(ssh_agent)
    hidden_dirs, hidden_files = _existing(hidden)
    path_entries = [
        *environ.get("PATH", "").split(":"),
        *(command_path or "").split(":"),
        environ.get("RUNNER_TOOL_CACHE", ""),
    ]
    mounts += [Bind(p) for p in toolchain_roots(path_entries, mounts, keep_out, [*hidden_dirs, *hidden_files])]
    # Hiding what the root does not show would only create empty mount points.
    hidden_dirs = [p for p in hidden_dirs if _visible(p, mounts)]
    hidden_files = [p for p in hidden_files if _visible(p, mounts)]
    etc_dirs, etc_files = etc_secrets()
    if home is not None:
        # A workflow step's `git config --global url.<https://TOKEN@host/>.insteadOf` lands here.
        configs += [
            p
            for p in (path.resolve() for path in (home / rel for rel in HOME_GIT_CONFIGS))
            if p.is_file() and _visible(p, mounts)
        ]
    replaced = _credential_free_copies(dict.fromkeys(configs), _config_copies_dir())
    shared = [p for p in (workspace, *additional_directories) if p.is_dir()]
    replaced += tuple((empty, f) for root in shared for f in workspace_credentials(root))
    if home is not None and home_shown_as_view:
        # A tool's login under another name than HOME_CREDENTIALS knows (~/.terraformrc, ~/.s3cfg...).
        git_configs = {home / rel for rel in HOME_GIT_CONFIGS}
        replaced += tuple(
            (empty, f) for f in workspace_credentials(home) if f not in git_configs and _visible(f, mounts)
        )
    # The transcript and every file the bot keeps live in the scratch directory and its parent (the
    # output directory); inside the workspace (an output directory there), its writable bind shows them.
    binds = [w.resolve() for w in writable if w != own]
    masked = [
        d
        for d in dict.fromkeys((scratch_dir.parent.resolve(), scratch_dir.resolve()))
        if any(d != w and d.is_relative_to(w) for w in binds) and not _holds(d, binds)
    ]
    # ... and its ancestors below the workspace pinned, so it cannot be moved out from under its mask.
    writable = [w for w in writable if w != own] + _pinned_ancestors(masked, binds) + [own]
    return SandboxSpec(
        writable=tuple(dict.fromkeys(writable)),
        tmp_dir=tmp_dir,
        read_only=tuple(dict.fromkeys(read_only)),
        hidden_dirs=tuple(dict.fromkeys([*etc_dirs, *hidden_dirs])),
        hidden_files=tuple(dict.fromkeys([*etc_files, *hidden_files])),
        empty_file=empty,
        network=network,
        resolver_dir=_resolver_dir() if network else None,
        root=tuple(mounts),
        scratch=own,
        replaced=replaced,
        masked=tuple(masked),
    )


def _pinned_ancestors(protected: Sequence[Path], roots: Sequence[Path]) -> list[Path]:
    """The directories between a writable root and a read-only path inside it (``.github`` for
    ``.github/workflows``), to be bound writable onto themselves: a mount point cannot be renamed,
    and renaming a plain ancestor away would let a command create the protected path anew."""
    pinned: list[Path] = []
    for path in protected:
        for root in roots:
            if path == root or not path.is_relative_to(root):
                continue
            ancestor = path.parent
            while ancestor != root and ancestor.is_relative_to(root):
                if ancestor.is_dir() and not ancestor.is_symlink():
                    pinned.append(ancestor)
                ancestor = ancestor.parent
    # Outermost first: a bind covers what was bound below it before.
    return sorted(dict.fromkeys(pinned), key=lambda d: len(d.parts))


__all__ = [
    "MAX_HOME_ENTRIES",
    "MAX_TOOLCHAIN_ROOTS",
    "Bind",
    "Link",
    "RootMount",
    "SandboxSpec",
    "View",
    "build_spec",
    "bwrap_argv",
    "home_view",
    "sandbox_scratch",
    "system_root",
    "toolchain_roots",
]
