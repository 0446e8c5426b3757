"""What a sandboxed command must not find: credential files under ``HOME``, in ``/etc``, in a
self-hosted runner's directory and at the top of the workspace; and the credential-free copies of
the git configuration files it is shown instead.
"""

from __future__ import annotations

import hashlib
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from bot.core.host_git import hardened_args, host_git_env
from bot.core.redact import Redactor
from bot.core.secrets import process_secrets
from bot.shell.sandbox.git_dirs import credential_free_config, git_directories

#: Credential files and directories under ``HOME``: left out of the view (top level) or hidden.
HOME_CREDENTIALS: tuple[str, ...] = (
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".vault-token",
    ".password-store",
    ".pgpass",
    ".my.cnf",
    ".terraform.d",
    ".config/gh",
    ".config/gcloud",
    ".config/hub",
    ".config/git/credentials",
    ".config/containers/auth.json",
    ".config/op",
    ".config/composer/auth.json",
    ".composer/auth.json",
    ".local/share/keyrings",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".m2/settings.xml",
    ".yarnrc.yml",
    ".terraformrc",
    ".s3cfg",
    ".boto",
    ".config/pip/pip.conf",
    ".pip/pip.conf",
    ".nuget/NuGet/NuGet.Config",
    ".pulumi/credentials.json",
    ".bundle/config",
    ".config/rclone/rclone.conf",
    ".config/helm/registry/config.json",
)


#: Git configuration files under ``HOME``: shown, as sandboxed git reads them, without credentials.
HOME_GIT_CONFIGS: tuple[str, ...] = (".gitconfig", ".config/git/config")


#: Entries at the top of the workspace looked at (a hostile checkout may hold millions).
MAX_WORKSPACE_ENTRIES = 1_000
#: Files at the top of the workspace larger than this are not scanned for credentials.
MAX_CREDENTIAL_FILE_BYTES = 256 * 1024


#: ``HOME`` directories that hold daemons' sockets (IDE servers, desktop container engines).
HOME_SOCKET_DIRS: tuple[str, ...] = (
    ".vscode-server",
    ".cursor-server",
    ".lima",
    ".colima",
    ".rd",
    ".orbstack",
    ".1password",
)


#: ``HOME`` directories a GitHub runner installs itself in (its logs, its registration).
HOME_RUNNER_DIRS: tuple[str, ...] = ("runners", "actions-runner")


#: Entries of ``/etc`` (``glob`` patterns) that hold secrets: hidden behind an empty file or directory.
ETC_SECRETS: tuple[str, ...] = (
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "sudoers",
    "sudoers.d",
    "security/opasswd",
    "ssl/private",
    "pki/tls/private",
    "krb5.keytab",
    "ssh/ssh_host_*_key",
    "NetworkManager/system-connections",
    "wpa_supplicant",
    "ppp/chap-secrets",
    "ppp/pap-secrets",
    "ipsec.secrets",
    "letsencrypt",
    "apt/auth.conf",
    "apt/auth.conf.d",
    "mysql/debian.cnf",
    "credstore",
    "credstore.encrypted",
    "gitlab-runner",
    "docker/key.json",
    "containers/auth.json",
    "openvpn",
    "wireguard",
    "libvirt/secrets",
)


#: A self-hosted runner's own credentials, in its install directory (two levels above ``RUNNER_TEMP``).
RUNNER_SECRETS: tuple[str, ...] = (".credentials", ".credentials_rsaparams", ".runner", ".env", ".path", "_diag")


#: Where the credential-free copies of git configuration files go: a private directory of the
#: process, never the output directory (uploaded as the artifact, or committed when it lies in the checkout).
_CONFIG_COPIES: list[Path] = []


def etc_secrets(etc: Path = Path("/etc")) -> tuple[list[Path], list[Path]]:
    """The secret-bearing entries of ``/etc`` that exist: ``(directories, files)``."""
    dirs: list[Path] = []
    files: list[Path] = []
    for pattern in ETC_SECRETS:
        for path in sorted(etc.glob(pattern)):
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(etc):
                    continue  # it points out of /etc, where the sandbox shows nothing
                path = target
            (dirs if path.is_dir() else files).append(path)
    return dirs, files


def workspace_credentials(root: Path) -> list[Path]:
    """Files at the top of ``root`` that hold a credential — a known secret's value, or a token's or
    key's shape in a file git does not track (a README's example token is not one): what an earlier
    step of the job left in the checkout (a cloud login's ``gha-creds-*.json``, a key file). The
    sandbox shows them empty: a command that can read one can re-encode it past every redactor.
    Only the top level, and files up to :data:`MAX_CREDENTIAL_FILE_BYTES`: those steps write there,
    and the scan must stay cheap."""
    secrets = process_secrets()
    known, any_kind = Redactor(secrets, shapes=()), Redactor(secrets)
    found: list[Path] = []
    shaped: list[Path] = []
    try:
        entries = sorted(root.iterdir())[:MAX_WORKSPACE_ENTRIES]
    except OSError:
        return found
    for entry in entries:
        try:
            st = entry.lstat()
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_CREDENTIAL_FILE_BYTES:
                continue
            text = entry.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        if known(text) != text:
            found.append(entry)
        elif any_kind(text) != text:
            shaped.append(entry)
    if shaped:
        tracked = _tracked(root, [p.name for p in shaped])
        found += [p for p in shaped if p.name not in tracked]
    return found


def _tracked(root: Path, names: Sequence[str]) -> set[str]:
    """Which of ``names`` (at the top of ``root``) git tracks; none when ``root`` is no repository.
    The bot's own way of running git (:mod:`bot.core.host_git`): the git directory named, nothing
    taken from a configuration that runs programs."""
    _, git_dir, _ = git_directories(root)
    if git_dir is None:
        return set()
    env = host_git_env(git_dir=git_dir, work_tree=root, home=_config_copies_dir())
    try:
        done = subprocess.run(
            ["git", *hardened_args(), "ls-files", "-z", "--", *names],
            cwd=root,
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    return set(done.stdout.decode("utf-8", errors="surrogateescape").split("\0")) - {""}


def _config_copies_dir() -> Path:
    if not _CONFIG_COPIES:
        _CONFIG_COPIES.append(Path(tempfile.mkdtemp(prefix="bot-sandbox-config-")))
    return _CONFIG_COPIES[0]


def _credential_free_copies(configs: Iterable[Path], directory: Path) -> tuple[tuple[Path, Path], ...]:
    """A credential-free copy of each git configuration file, to be shown in its place. Taken
    when the spec is built, after the git directory was sealed: a config cannot change later
    without stopping the bot's git. One that cannot be read is hidden behind an empty copy."""
    secrets = process_secrets()
    directory.mkdir(parents=True, exist_ok=True)
    out: list[tuple[Path, Path]] = []
    for target in configs:
        try:
            text = target.read_bytes().decode("utf-8", errors="surrogateescape")
        except OSError:
            text = ""
        # Named by the target: a sub-agent's spec, built later, must not overwrite another's copy.
        copy = directory / f"{hashlib.sha256(str(target).encode()).hexdigest()[:16]}-{target.name}"
        copy.write_bytes(credential_free_config(text, secrets).encode("utf-8", errors="surrogateescape"))
        out.append((copy, target))
    return tuple(out)


__all__ = [
    "ETC_SECRETS",
    "HOME_CREDENTIALS",
    "HOME_GIT_CONFIGS",
    "HOME_RUNNER_DIRS",
    "HOME_SOCKET_DIRS",
    "MAX_CREDENTIAL_FILE_BYTES",
    "RUNNER_SECRETS",
    "etc_secrets",
    "workspace_credentials",
]
