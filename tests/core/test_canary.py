"""Secret canaries: decoys that look real, planted only where nothing real is, seen in any encoding."""

from __future__ import annotations

import base64
import os
import re
import stat
from pathlib import Path
from urllib.parse import quote

import pytest

from bot.core.canary import DECOY_ENV_NAMES, Canaries
from bot.core.redact import SHAPES, is_secret_name
from bot.errors import CanaryTripped, RunError


def shape_of(value: str) -> str | None:
    return next((s.kind for s in SHAPES if s.pattern.search(value)), None)


def planted(environ: dict[str, str] | None = None, taken: tuple[str, ...] = ()) -> tuple[Canaries, dict[str, str]]:
    canaries = Canaries()
    env = dict(environ or {})
    canaries.plant_environ(env, taken=taken)
    return canaries, env


def test_decoy_variables_look_like_real_credentials_and_are_named_like_secrets() -> None:
    _, env = planted()
    assert set(env) == set(DECOY_ENV_NAMES)
    assert all(is_secret_name(name) for name in env)
    github = [v for v in env.values() if v.startswith("ghp_")]
    assert github and all(re.fullmatch(r"ghp_[A-Za-z0-9]{36}", v) for v in github)
    assert all(shape_of(v) == "github-token" for v in github)
    key_ids = [v for v in env.values() if v.startswith("AKIA")]
    assert key_ids and all(re.fullmatch(r"AKIA[A-Z2-7]{16}", v) for v in key_ids)
    assert any(re.fullmatch(r"[A-Za-z0-9/+]{40}", v) for v in env.values())


def test_decoys_differ_from_run_to_run() -> None:
    assert planted()[1] != planted()[1]


def test_a_decoy_never_shadows_a_variable_that_is_set_or_a_secret_already_captured() -> None:
    name, other = DECOY_ENV_NAMES[0], DECOY_ENV_NAMES[1]
    canaries, env = planted({name: "the real one"}, taken=(other,))
    assert env[name] == "the real one"
    assert other not in env
    assert canaries.scan("the real one") is None


def test_planting_uses_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in DECOY_ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    canaries = Canaries()
    names = canaries.plant_environ(taken=())
    try:
        assert names and all(os.environ.get(n) for n in names)
        assert canaries.scan(f"env dump: {os.environ[names[0]]}") is not None
    finally:
        for n in names:
            os.environ.pop(n, None)


def test_a_decoy_home_holds_credential_files_only_its_owner_can_read(tmp_path: Path) -> None:
    canaries = Canaries()
    written = canaries.decoy_home(tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in written}
    assert {".git-credentials", ".netrc", ".config/gh/hosts.yml"} <= names
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert canaries.scan(path.read_text()) is not None, path
    credentials = (tmp_path / ".git-credentials").read_text()
    assert re.search(r"https://x-access-token:ghp_[A-Za-z0-9]{36}@github\.com", credentials)


def test_a_decoy_home_never_overwrites_a_file(tmp_path: Path) -> None:
    (tmp_path / ".netrc").write_text("machine example.com login me password mine\n")
    written = Canaries().decoy_home(tmp_path)
    assert tmp_path / ".netrc" not in written
    assert (tmp_path / ".netrc").read_text() == "machine example.com login me password mine\n"


def test_the_decoy_netrc_names_no_host_the_bot_talks_to(tmp_path: Path) -> None:
    # curl (git over https) and requests (PyGithub) send a matching .netrc entry on their own.
    Canaries().decoy_home(tmp_path)
    hosts = re.findall(r"machine (\S+)", (tmp_path / ".netrc").read_text())
    assert hosts and not {"github.com", "api.github.com", "api.anthropic.com"} & set(hosts)


@pytest.mark.parametrize(
    ("description", "encode"),
    [
        ("as it is", lambda v: v),
        ("reversed", lambda v: v[::-1]),
        ("hex", lambda v: v.encode().hex()),
        ("base64", lambda v: base64.b64encode(v.encode()).decode()),
        ("base64 inside a basic-auth header", lambda v: base64.b64encode(f"x-access-token:{v}".encode()).decode()),
        ("URL-encoded", lambda v: quote(v, safe="")),
        ("with zero-width spaces", lambda v: "\u200b".join(v)),
    ],
)
def test_a_canary_is_seen_in_every_leak_form(description: str, encode: object) -> None:
    canaries, env = planted()
    value = env[DECOY_ENV_NAMES[0]]
    label = canaries.scan(f"GET /?d={encode(value)} HTTP/1.1")  # type: ignore[operator]
    assert label is not None, description
    assert DECOY_ENV_NAMES[0] in label
    assert value not in label


def test_ordinary_text_trips_nothing() -> None:
    canaries, _ = planted()
    assert canaries.scan("ghp_" + "x" * 36 + " is a token shape, not a canary") is None
    assert canaries.tripped is None


def test_check_raises_an_error_that_ends_the_run_and_never_holds_the_value() -> None:
    canaries, env = planted()
    value = env[DECOY_ENV_NAMES[0]]
    with pytest.raises(CanaryTripped) as caught:
        canaries.check(f"token={value}", "a comment body")
    assert isinstance(caught.value, RunError)
    assert value not in str(caught.value)
    assert "a comment body" in str(caught.value)
    assert canaries.tripped is caught.value


def test_observe_records_a_trip_without_raising_and_the_first_trip_is_kept() -> None:
    canaries, env = planted()
    first, second = (env[n] for n in DECOY_ENV_NAMES[:2])
    assert canaries.observe(first, "Bash output") is not None
    canaries.observe(second, "a task's output")
    assert canaries.tripped is not None and canaries.tripped.where == "Bash output"
    with pytest.raises(CanaryTripped):
        canaries.raise_if_tripped()
