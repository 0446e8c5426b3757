"""Red team: the first request's TLS context, built by the warm-up thread (073cdde), trusts nothing
from the working directory (the workspace, where the action starts the bot): a CA certificate laid
out there under every name OpenSSL or httpx2 might look for is not in it. Only ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` (the runner's environment) change it, as they change httpx2's own default."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

import pytest

from bot.agent import first_request

SUBJECT = "workspace-planted-ca"


def _ca(tmp: Path) -> Path:
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    cert = tmp / "planted.pem"
    key = tmp / "planted.key"
    request = f"req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN={SUBJECT} -keyout {key} -out {cert}"
    subprocess.run(["openssl", *request.split()], check=True, capture_output=True)
    return cert


def _subjects(context: ssl.SSLContext) -> set[str]:
    return {str(c.get("subject")) for c in context.get_ca_certs()}


def test_a_ca_certificate_planted_in_the_working_directory_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert = _ca(tmp_path)
    workspace = tmp_path / "ws"
    (workspace / "certs").mkdir(parents=True)
    (workspace / "ssl" / "certs").mkdir(parents=True)
    text = cert.read_text()
    for name in ("cert.pem", "cacert.pem", "ca-bundle.crt", "ca-certificates.crt", "certs/cert.pem"):
        (workspace / name).write_text(text)
    hashed = subprocess.run(
        ["openssl", "x509", "-hash", "-noout", "-in", str(cert)], check=True, capture_output=True, text=True
    ).stdout.strip()
    for folder in ("certs", "ssl/certs"):
        (workspace / folder / f"{hashed}.0").write_text(text)
    for name in first_request.TLS_ENV:
        monkeypatch.delenv(name, raising=False)

    monkeypatch.setattr(first_request, "_tls_contexts", {})
    monkeypatch.chdir(tmp_path / "ws")
    planted = first_request.tls_context()
    monkeypatch.setattr(first_request, "_tls_contexts", {})
    monkeypatch.chdir("/")
    elsewhere = first_request.tls_context()

    assert not any(SUBJECT in s for s in _subjects(planted))
    assert _subjects(planted) == _subjects(elsewhere)
    assert planted.cert_store_stats() == elsewhere.cert_store_stats()


def test_only_the_ca_variables_change_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference: SSL_CERT_FILE does bring a CA in (so the check above can see one)."""
    cert = _ca(tmp_path)
    monkeypatch.setattr(first_request, "_tls_contexts", {})
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    assert any(SUBJECT in s for s in _subjects(first_request.tls_context()))
