"""Secret redaction: known values (and their leak forms) and well-known secret shapes."""

from __future__ import annotations

import base64

import pytest

from bot.core.redact import Redactor, is_secret_name, redact, secrets_from_environ

# Shaped like the real thing, valid for nothing.
GH_TOKEN = "ghs_" + "a1B2c3D4e5F6g7H8i9J0" * 2
ANTHROPIC_KEY = "sk-ant-api03-" + "Zz9_Yy8-Xx7" * 6
JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOm8vciJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ"


@pytest.mark.parametrize(
    ("description", "text", "expected"),
    [
        ("a GitHub installation token", f"token={GH_TOKEN} end", "token=[REDACTED:github-token] end"),
        (
            "a fine-grained GitHub token",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "[REDACTED:github-token]",
        ),
        ("an Anthropic key", f"key: {ANTHROPIC_KEY}", "key: [REDACTED:anthropic-key]"),
        ("an AWS access key id", "AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws-access-key-id]"),
        (
            "an AWS secret key next to its name",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY12",
            "aws_secret_access_key = [REDACTED:aws-secret]",
        ),
        ("a JWT", f"ACTIONS_RUNTIME_TOKEN={JWT}", "ACTIONS_RUNTIME_TOKEN=[REDACTED:jwt]"),
        (
            "a basic auth header as actions/checkout persists it",
            "extraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3h4eA==",
            "extraheader = AUTHORIZATION: basic [REDACTED:authorization]",
        ),
        (
            "credentials in a URL",
            "https://user:hunter2hunter2@example.com/x",
            "https://user:[REDACTED:url-credentials]@example.com/x",
        ),
        (
            "a private key block",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter",
            "[REDACTED:private-key]\nafter",
        ),
        ("ordinary text is untouched", "grep -rn 'token' src/ | head", "grep -rn 'token' src/ | head"),
        (
            "a git sha is untouched",
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        ),
    ],
)
def test_secret_shapes_are_redacted(description: str, text: str, expected: str) -> None:
    assert redact(text) == expected


def test_known_values_are_redacted_with_their_name_and_in_their_leak_forms() -> None:
    secret = "plain-looking-secret-value-42"
    redactor = Redactor({"MY_DEPLOY_SECRET": secret})
    b64 = base64.b64encode(secret.encode()).decode()
    header = base64.b64encode(f"x-access-token:{secret}".encode()).decode()
    text = f"a {secret} b {b64} c {header}"
    assert redactor(text) == (
        "a [REDACTED:MY_DEPLOY_SECRET] b [REDACTED:MY_DEPLOY_SECRET] c [REDACTED:MY_DEPLOY_SECRET]"
    )


def test_short_values_are_not_redacted_by_value() -> None:
    assert redact("the cat sat", {"X_TOKEN": "cat"}) == "the cat sat"


def test_a_value_that_contains_another_is_replaced_whole() -> None:
    redactor = Redactor({"A_TOKEN": "abcdefgh", "B_TOKEN": "abcdefgh-ijklmnop"})
    assert redactor("abcdefgh-ijklmnop") == "[REDACTED:B_TOKEN]"


@pytest.mark.parametrize(
    ("description", "name", "secret"),
    [
        ("the workflow token", "GITHUB_TOKEN", True),
        ("the model key", "ANTHROPIC_API_KEY", True),
        ("an action input", "INPUT_GITHUB-TOKEN", True),
        ("the runner's runtime token", "ACTIONS_RUNTIME_TOKEN", True),
        ("the OIDC request URL", "ACTIONS_ID_TOKEN_REQUEST_URL", True),
        ("an AWS secret", "AWS_SECRET_ACCESS_KEY", True),
        ("a database password", "PGPASSWORD", True),
        ("a short password part", "MYSQL_PWD", True),
        ("the previous directory", "OLDPWD", False),
        ("a password variable", "DB_PASSWORD", True),
        ("the path", "PATH", False),
        ("the working directory", "PWD", False),
        ("the repository", "GITHUB_REPOSITORY", False),
        ("keyboard layout", "XKB_KEYBOARD", False),
    ],
)
def test_secret_names_are_recognised(description: str, name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_secrets_come_from_secret_names_and_the_names_a_policy_adds() -> None:
    environ = {
        "GITHUB_TOKEN": GH_TOKEN,
        "HOME": "/home/runner",
        "DEPLOY_HOOK_URL": "https://hooks.example/abc123",
        "SHORT_TOKEN": "abc",
    }
    assert secrets_from_environ(environ) == {"GITHUB_TOKEN": GH_TOKEN}
    assert secrets_from_environ(environ, ["deploy_hook_url"]) == {
        "GITHUB_TOKEN": GH_TOKEN,
        "DEPLOY_HOOK_URL": "https://hooks.example/abc123",
    }
