"""Cloud, cluster and build command lines (kubectl, helm, kustomize, terraform, aws, gcloud, az,
gradle, pre-commit, pdm): options that connect elsewhere than the program is configured to, run a
program, load code, send a file, or change what a later command runs.

* Go programs built on cobra/pflag read a *persistent* flag after the subcommand too (``kubectl
  get pods --server URL``) and never abbreviate it: such an option is explicit at its value, so the
  rule that allows it spells the value out (``--context staging``; ``--context`` alone would
  approve every cluster). Their ``--kubeconfig`` is a file the path checks judge (the workspace's
  own is the project's).
* A manifest given as a URL (``kubectl apply -f https://…``), a module or plugin fetched from
  elsewhere (``terraform init -from-module=URL``, ``helm plugin install URL``), a repository added
  for later installs (``helm repo add``), a hook repository run in place (``pre-commit try-repo
  URL``): explicit.
* Configuration writes that point later commands elsewhere or at a program: ``aws configure set
  credential_process``, ``gcloud config set auth/…``, ``pdm config pypi.url``, ``kubectl config
  use-context``; ``pre-commit install`` writes ``.git/hooks/`` (the path checks refuse it unless
  the policy allows writes there).
* Files sent: ``aws … file://x``/``fileb://x``, ``az … @x``: reads of that file, for the path
  checks and the Read deny rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.syntax import Word
from bot.shell.paths.use import PathUse
from bot.shell.programs.facts import Explicit, ProgramFacts, facts, path_use

_CONNECTS = "connects where its value says, not where the program is configured to"
_RUNS = "runs another program"
_EXEC_FUNCTIONS = "runs the functions (programs) the configuration names"
#: ``{option: reason}``, read anywhere before ``--``; the reason of a flag (no value) starts with ``!``.
_PFLAG: dict[str, dict[str, str]] = {
    "kubectl": {
        "--server": _CONNECTS,
        "-s": _CONNECTS,
        "--cluster": _CONNECTS,
        "--context": _CONNECTS,
        "--user": _CONNECTS,
        "--exec-command": _RUNS,
        "--helm-command": _RUNS,
        "--enable-exec": "!" + _EXEC_FUNCTIONS,
        "--enable-alpha-plugins": "!" + _EXEC_FUNCTIONS,
    },
    "kustomize": {
        "--helm-command": _RUNS,
        "--enable-exec": "!" + _EXEC_FUNCTIONS,
        "--enable-alpha-plugins": "!" + _EXEC_FUNCTIONS,
    },
    "helm": {
        "--post-renderer": _RUNS,
        "--kube-apiserver": _CONNECTS,
        "--kube-context": _CONNECTS,
        "--kube-as-user": _CONNECTS,
        "--kube-as-group": _CONNECTS,
    },
    "aws": {"--endpoint-url": _CONNECTS},
    # gcloud compute ssh/scp hand these to ssh (`-oProxyCommand=…`)
    "gcloud": {"--ssh-flag": _RUNS, "--scp-flag": _RUNS},
}
#: Configuration files given as an option: read, judged by the path checks.
_FILES = {
    "kubectl": ("--kubeconfig",),
    "helm": ("--kubeconfig", "--registry-config", "--repository-config"),
    "aws": ("--ca-bundle",),
}
#: Options whose value is a manifest or a kustomization, which may be a URL.
_MANIFESTS = frozenset({"-f", "--filename", "-k", "--kustomize"})
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git@|github\.com/)", re.I)
#: aws configuration keys that name a program to run or where requests go.
_AWS_KEYS = re.compile(r"(?:^|\.)(?:credential_process|ca_bundle|endpoint_url|role_arn|source_profile|sso_start_url)$")
#: gcloud properties that send credentials or requests elsewhere.
_GCLOUD_KEYS = re.compile(r"^(?:auth/|proxy/|api_endpoint_overrides/|core/custom_ca_certs_file|core/pass_credentials)")
#: pdm configuration that decides where packages and interpreters come from.
_PDM_KEYS = re.compile(r"^(?:pypi\.|source\.|repository\.|python\.|venv\.|install\.|use_uv|check_update)")
#: Gradle properties that start a JVM, load code or move the user home (its init.d scripts run).
_GRADLE_KEYS = frozenset(
    {"org.gradle.jvmargs", "org.gradle.java.home", "gradle.user.home", "org.gradle.java.installations.paths"}
)

CLOUD_PROGRAMS = frozenset({*_PFLAG, "terraform", "tofu", "az", "gradle", "gradlew", "pre-commit", "pdm"})


def cloud_facts(program: str, argv: Sequence[Word]) -> ProgramFacts:
    values = [w.value for w in argv]
    explicit = _flags(program, values) if program in _PFLAG else []
    uses = _option_files(argv, _FILES.get(program, ()))
    words = _positionals(values)
    if program == "kubectl":
        explicit.extend(_kubectl(values, words))
    elif program == "helm":
        explicit.extend(_subcommand(values, words, {("plugin", "install"), ("plugin", "update"), ("repo", "add")}))
    elif program == "aws":
        uses.extend(_sent_files(argv, ("fileb://", "file://", "fileb:", "file:")))
        if (
            [values[k] for k in words[:2]] == ["configure", "set"]
            and len(words) > 2
            and _AWS_KEYS.search(values[words[2]])
        ):
            explicit.append((words[2], f"aws configure set {values[words[2]]} changes what later aws commands run"))
    elif program == "gcloud":
        explicit.extend(_gcloud(values, words))
    elif program == "az":
        uses.extend(_sent_files(argv, ("@",)))
        explicit.extend(_az(values))
    elif program in ("terraform", "tofu"):
        explicit.extend(_terraform(program, values))
    elif program in ("gradle", "gradlew"):
        explicit.extend(_gradle(program, values))
    elif program == "pre-commit":
        return _pre_commit(argv, values, words)
    elif program == "pdm":
        explicit.extend(_pdm(values, words))
    return facts(explicit, uses)


def _flags(program: str, values: Sequence[str]) -> Explicit:
    """The options of :data:`_PFLAG` anywhere before ``--``, explicit at their value."""
    names = _PFLAG[program]
    found: Explicit = []
    for k in range(1, len(values)):
        value = values[k]
        if value == "--":
            if program == "gcloud":  # `gcloud compute ssh VM -- -oProxyCommand=…`: ssh's own options
                found.extend(
                    (j, "gcloud passes this option to ssh") for j in range(k + 1, len(values)) if values[j][:1] == "-"
                )
            break
        written, eq, _ = value.partition("=")
        if written.startswith("-") and not written.startswith("--") and len(written) > 2:
            written, eq = written[:2], "="  # `-shttps://…`: the value attached
        reason = names.get(written)
        if not reason:
            continue
        if reason.startswith("!"):
            found.append((k, f"{program} {written} {reason[1:]}"))
        else:
            found.append((k if eq or k + 1 >= len(values) else k + 1, f"{program} {written} {reason}"))
    return found


def _positionals(values: Sequence[str]) -> list[int]:
    """Words that are not options (an option's separate value may be among them: over-approximate
    for the subcommand checks, which look at the first words only)."""
    found: list[int] = []
    for k in range(1, len(values)):
        if values[k] == "--":
            break
        if not values[k].startswith("-"):
            found.append(k)
    return found


def _option_files(argv: Sequence[Word], names: Sequence[str]) -> list[PathUse]:
    uses: list[PathUse] = []
    values = [w.value for w in argv]
    for k, value in enumerate(values[1:], start=1):
        for name in names:
            if value == name and k + 1 < len(values):
                use = path_use(argv, k + 1, values[k + 1], "read")
            elif value.startswith(name + "="):
                use = path_use(argv, k, value[len(name) + 1 :], "read")
            else:
                continue
            if use is not None:
                uses.append(use)
    return uses


def _sent_files(argv: Sequence[Word], prefixes: Sequence[str]) -> list[PathUse]:
    """``--payload fileb://x``, ``--body @x``, ``--cli-input-json=file://x``: the file is read
    (``file://x`` is relative to the working directory, ``file:///x`` absolute)."""
    uses: list[PathUse] = []
    for k, word in enumerate(argv[1:], start=1):
        value = word.value
        if value.startswith("--") and "=" in value:
            value = value.partition("=")[2]
        prefix = next((p for p in prefixes if value.lower().startswith(p) and len(value) > len(p)), None)
        if prefix is not None:
            use = path_use(argv, k, value[len(prefix) :], "read")
            if use is not None:
                uses.append(use)
    return uses


def _subcommand(values: Sequence[str], words: list[int], pairs: set[tuple[str, str]]) -> Explicit:
    if len(words) >= 2 and (values[words[0]], values[words[1]]) in pairs:
        what = f"{values[words[0]]} {values[words[1]]}"
        # the source is what a rule spells out: `plugin install URL`, `repo add NAME URL`
        place = 3 if what == "repo add" else 2
        last = words[place] if len(words) > place else words[-1]
        return [(last, f"{values[0]} {what} fetches code or a source that later commands use")]
    return []


def _kubectl(values: Sequence[str], words: list[int]) -> Explicit:
    found: Explicit = []
    for k in range(1, len(values)):
        value = values[k]
        if value == "--":
            break
        name, eq, attached = value.partition("=")
        if name in _MANIFESTS:
            target, at = (attached, k) if eq else ((values[k + 1], k + 1) if k + 1 < len(values) else ("", k))
            if _URL.match(target):
                found.append((at, f"kubectl {name} {target}: a manifest from elsewhere"))
    if len(words) >= 2 and values[words[0]] == "config" and values[words[1]] == "use-context":
        last = words[2] if len(words) > 2 else words[1]
        found.append((last, "kubectl config use-context changes the cluster every later kubectl command reaches"))
    return found


def _gcloud(values: Sequence[str], words: list[int]) -> Explicit:
    if len(words) >= 3 and values[words[0]] == "config" and values[words[1]] == "set":
        key = values[words[2]]
        if _GCLOUD_KEYS.match(key):
            return [(words[2], f"gcloud config set {key} sends later requests or credentials elsewhere")]
    return []


def _az(values: Sequence[str]) -> Explicit:
    found: Explicit = []
    if "extension" in values and ("add" in values or "update" in values):
        for k, value in enumerate(values):
            name, eq, _ = value.partition("=")
            if name in ("--source", "-s"):
                found.append((k if eq else min(k + 1, len(values) - 1), "az extension --source installs code from it"))
    return found


def _terraform(program: str, values: Sequence[str]) -> Explicit:
    """``-from-module=SOURCE`` copies a module from anywhere; ``-backend-config=key=value`` (not a
    file) points the state, and the credentials sent with it, elsewhere."""
    found: Explicit = []
    for k, value in enumerate(values[1:], start=1):
        name, eq, attached = value.lstrip("-").partition("=")
        if name == "from-module" and (attached or k + 1 < len(values)):
            found.append((k, f"{program} -from-module fetches a module from where it says"))
        elif name == "backend-config" and eq and "=" in attached:
            found.append((k, f"{program} -backend-config {attached.partition('=')[0]}=… sends the state elsewhere"))
    return found


def _gradle(program: str, values: Sequence[str]) -> Explicit:
    found: Explicit = []
    for k, value in enumerate(values[1:], start=1):
        if value[:2] in ("-D", "-P"):
            key = value[2:].partition("=")[0]
            if key in _GRADLE_KEYS:
                found.append((k, f"{program} {value[:2]}{key} starts a JVM or loads scripts from where it says"))
    return found


def _pre_commit(argv: Sequence[Word], values: Sequence[str], words: list[int]) -> ProgramFacts:
    if not words:
        return facts([])
    command = values[words[0]]
    if command == "try-repo" and len(words) > 1 and not _is_local(values[words[1]]):
        return facts([(words[1], "pre-commit try-repo runs the hooks of a repository from elsewhere")])
    if command == "install":
        # the hook scripts go into .git/hooks/ (pre-commit by default, or each --hook-type)
        types = [values[k + 1] for k in range(len(values) - 1) if values[k] in ("-t", "--hook-type")]
        at = words[0]
        return facts([], [PathUse(at, f".git/hooks/{t}", "write", argv[at]) for t in types or ["pre-commit"]])
    return facts([])


def _is_local(repo: str) -> bool:
    return not _URL.match(repo) and ":" not in repo


def _pdm(values: Sequence[str], words: list[int]) -> Explicit:
    if not words:
        return []
    command = values[words[0]]
    if command == "add":
        return [
            (k, f"pdm add {values[k]} adds a dependency from outside the registry")
            for k in words[1:]
            if "://" in values[k] or values[k].startswith(("git+", "git@"))
        ]
    if command == "config" and len(words) >= 3 and "--delete" not in values and "-d" not in values:
        key = values[words[1]]
        if _PDM_KEYS.match(key):
            return [(words[1], f"pdm config {key} changes where later installs fetch from or what they run")]
    return []
