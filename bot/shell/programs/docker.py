"""``docker``/``podman``: options that reach the host (mounts, host namespaces, privileges, another
daemon) or run programs, for ``docker run`` and the commands that take the same options.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.shell.parse.syntax import Word
from bot.shell.paths.arguments import PathUse
from bot.shell.paths.resolve import Access
from bot.shell.programs.facts import Explicit, ProgramFacts, facts, path_use, program_name
from bot.shell.programs.getopt import options

_DOCKER_GLOBAL_VALUES = frozenset(
    {"-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"}
)


_DOCKER_RUN_VALUES = frozenset(
    {
        "--cpu-count",
        "--cpu-percent",
        "--health-start-interval",
        "--io-maxbandwidth",
        "--io-maxiops",
        "--rootfs",
        "--add-host",
        "--annotation",
        "--attach",
        "--blkio-weight",
        "--blkio-weight-device",
        "--cap-add",
        "--cap-drop",
        "--cgroup-parent",
        "--cgroupns",
        "--cidfile",
        "--cpu-period",
        "--cpu-quota",
        "--cpu-rt-period",
        "--cpu-rt-runtime",
        "--cpu-shares",
        "--cpus",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--device",
        "--device-cgroup-rule",
        "--device-read-bps",
        "--device-read-iops",
        "--device-write-bps",
        "--device-write-iops",
        "--dns",
        "--dns-option",
        "--dns-search",
        "--domainname",
        "--entrypoint",
        "--env",
        "--env-file",
        "--expose",
        "--gpus",
        "--group-add",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-start-period",
        "--health-timeout",
        "--hostname",
        "--ip",
        "--ip6",
        "--ipc",
        "--isolation",
        "--kernel-memory",
        "--label",
        "--label-file",
        "--link",
        "--link-local-ip",
        "--log-driver",
        "--log-opt",
        "--mac-address",
        "--memory",
        "--memory-reservation",
        "--memory-swap",
        "--memory-swappiness",
        "--mount",
        "--name",
        "--network",
        "--net",
        "--network-alias",
        "--oom-score-adj",
        "--pid",
        "--pids-limit",
        "--platform",
        "--publish",
        "--pull",
        "--restart",
        "--runtime",
        "--security-opt",
        "--shm-size",
        "--stop-signal",
        "--stop-timeout",
        "--storage-opt",
        "--sysctl",
        "--tmpfs",
        "--ulimit",
        "--user",
        "--userns",
        "--uts",
        "--volume",
        "--volume-driver",
        "--volumes-from",
        "--workdir",
        "--detach-keys",
    }
)


#: Flags that are prefixes of options with a value (``--detach`` is not ``--detach-keys``).
_DOCKER_FLAGS = frozenset(
    {
        "--detach",
        "--privileged",
        "--rm",
        "--init",
        "--interactive",
        "--tty",
        "--read-only",
        "--publish-all",
        "--quiet",
        "--sig-proxy",
        "--oom-kill-disable",
        "--no-healthcheck",
        "--disable-content-trust",
        "--help",
    }
)


_DOCKER_GLOBAL_FLAGS = frozenset({"--tls", "--tlsverify", "--debug", "--version", "--help"})


_DOCKER_HOST_NAMESPACES = frozenset({"--pid", "--ipc", "--uts", "--userns", "--cgroupns"})


_VOLUME_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


_DOCKER_ALWAYS = {
    "--cap-add": "gives the container capabilities on the host",
    "--device": "gives the container a host device",
    "--device-cgroup-rule": "gives the container host devices",
    "--security-opt": "changes the container's confinement",
    "--use-api-socket": "gives the container the Docker API socket (root on the host)",
    "--volumes-from": "mounts another container's volumes, host directories included",
    "--rootfs": "runs a host directory as the container's root",
}


_CONTEXT_SWITCHES = frozenset({"use", "create", "update", "import"})


def docker_facts(argv: Sequence[Word]) -> ProgramFacts:
    """``docker run``/``create`` (``docker container run``): bind mounts of host paths are paths the
    container writes; ``--privileged``, host namespaces, capabilities and devices reach the host."""
    values = [w.value for w in argv]
    program = program_name(argv)
    found = list(options(values, "Hcl", _DOCKER_GLOBAL_VALUES, _DOCKER_GLOBAL_FLAGS, stop_at_positional=True))
    positional = [o.at for o in found if not o.name]
    explicit: Explicit = []
    paths: list[PathUse] = []
    for option in found:
        if option.name == "--config":
            use = path_use(argv, option.value_index, option.value, "read")
            if use is not None:
                paths.append(use)
    if not positional:
        return facts(explicit, paths)
    sub = positional[0]
    if values[sub] == "container" and sub + 1 < len(values):
        sub += 1
    if values[sub] == "exec":
        return _docker_exec(argv, values, sub, explicit, paths)
    if values[sub] == "context" and sub + 1 < len(values) and values[sub + 1] in _CONTEXT_SWITCHES:
        # `docker context use x`, `create x --docker host=tcp://…`: every later docker command talks
        # to that daemon, as `docker -H` would
        last = len(values) - 1
        explicit.append((last, f"{program} context {values[sub + 1]} changes the daemon later commands reach"))
        return facts(explicit, paths)
    if values[sub] not in ("run", "create"):
        return facts(explicit, paths)
    elsewhere: list[int] = []
    for option in options(
        values, "acehlmpuvw", _DOCKER_RUN_VALUES, _DOCKER_FLAGS, start=sub + 1, stop_at_positional=True
    ):
        name, value, at = option.name, option.value, option.value_index
        if not name:
            # the image, then the container's command: words of the container's filesystem
            elsewhere.extend(range(option.at, len(values)))
            break
        if name in ("-w", "--workdir") and at is not None:
            elsewhere.append(at)
        if name == "--privileged" and (value or "true").lower() != "false":
            explicit.append((option.at, f"{program} run --privileged gives the container root on the host"))
        elif name in _DOCKER_HOST_NAMESPACES and value == "host":
            explicit.append((option.at, f"{program} run {name}=host shares the host's namespace"))
        elif name in _DOCKER_ALWAYS:
            explicit.append((option.at, f"{program} run {name} {_DOCKER_ALWAYS[name]}"))
        elif name in ("--network", "--net") and (value or "").split(":", 1)[0] in ("host", "container"):
            explicit.append((option.at, f"{program} run {name}={value} shares another network namespace"))
        elif name.startswith("--") and name not in _DOCKER_RUN_VALUES and name not in _DOCKER_FLAGS:
            # a newer release's option: where the image starts, and what it reaches, is not known
            explicit.append((option.at, f"{program} run {name} is not an option the analysis knows"))
        elif name in ("-v", "--volume") and value is not None and at is not None:
            source, _, rest = value.partition(":")
            if source and not _VOLUME_NAME.match(source):  # a host path, not a named volume
                access: Access = "read" if "ro" in rest.split(":")[-1].split(",") and rest else "write"
                paths.append(PathUse(at, source, access, argv[at]))
        elif name == "--mount" and value is not None and at is not None:
            _docker_mount(argv, value, at, explicit, paths)
        elif name in ("--env-file", "--cidfile"):
            use = path_use(argv, at, value, "read" if name == "--env-file" else "write")
            if use is not None:
                paths.append(use)
    return _with_elsewhere(facts(explicit, paths), elsewhere)


_EXEC_VALUES = frozenset({"--detach-keys", "--env", "--env-file", "--user", "--workdir"})
_EXEC_FLAGS = frozenset({"--detach", "--interactive", "--privileged", "--tty", "--help"})


def _docker_exec(
    argv: Sequence[Word], values: list[str], sub: int, explicit: Explicit, paths: list[PathUse]
) -> ProgramFacts:
    """``docker exec [OPTIONS] CONTAINER COMMAND``: ``--privileged`` reaches the host; the
    command and ``--workdir`` are the container's."""
    program = program_name(argv)
    elsewhere: list[int] = []
    for option in options(values, "euw", _EXEC_VALUES, _EXEC_FLAGS, start=sub + 1, stop_at_positional=True):
        name, value, at = option.name, option.value, option.value_index
        if not name:
            elsewhere.extend(range(option.at, len(values)))
            break
        if name == "--privileged" and (value or "true").lower() != "false":
            explicit.append((option.at, f"{program} exec --privileged gives the command root on the host"))
        elif name in ("-w", "--workdir") and at is not None:
            elsewhere.append(at)
        elif name == "--env-file":
            use = path_use(argv, at, value, "read")
            if use is not None:
                paths.append(use)
    return _with_elsewhere(facts(explicit, paths), elsewhere)


def _with_elsewhere(found: ProgramFacts, elsewhere: list[int]) -> ProgramFacts:
    return found._replace(elsewhere=tuple(elsewhere)) if elsewhere else found


def _docker_mount(argv: Sequence[Word], value: str, at: int, explicit: Explicit, paths: list[PathUse]) -> None:
    fields = dict(part.partition("=")[::2] for part in value.split(","))
    if any(key.startswith("volume-opt") for key in fields) or "volume-driver" in fields:
        explicit.append((at, "a docker volume with driver options can mount a host path"))
        return
    if fields.get("type", "volume") != "bind":
        return
    source = fields.get("source") or fields.get("src") or ""
    if source:
        readonly = any(key in ("readonly", "ro") and fields[key] in ("", "true", "1") for key in fields)
        paths.append(PathUse(at, source, "read" if readonly else "write", argv[at]))
    else:
        explicit.append((at, "a docker bind mount without a source the analysis can see"))
