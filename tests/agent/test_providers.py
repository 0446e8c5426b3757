"""Bedrock and Vertex: the Anthropic model ids as each provider spells them (the default model
included), on the wire through the SDK's own clients, and a missing optional dependency reported
in one line before the first model call."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import httpx2
import pytest
from typer.testing import CliRunner

from bot.agent.client import AnthropicModel, ProviderConfig, make_model_client
from bot.agent.model import ModelError, ModelRequest
from bot.agent.providers import bedrock_model_id, vertex_model_id
from bot.cli import app
from bot.errors import ConfigError
from bot.orchestration.session import DEFAULT_MODEL

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("case", "model", "bedrock", "vertex"),
    [
        (
            "the default model",
            DEFAULT_MODEL,
            f"global.anthropic.{DEFAULT_MODEL}",
            DEFAULT_MODEL,
        ),
        ("a current model", "claude-haiku-5-5", "global.anthropic.claude-haiku-5-5", "claude-haiku-5-5"),
        (
            "a dated model",
            "claude-sonnet-4-5",
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5@20250929",
        ),
        (
            "a dated Anthropic id keeps its date",
            "claude-haiku-4-5-20251001",
            "global.anthropic.claude-haiku-4-5-20251001-v1:0",
            "claude-haiku-4-5@20251001",
        ),
        ("Opus 4.6's own Bedrock id", "claude-opus-4-6", "global.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
        (
            "a model without a global profile uses the region's",
            "claude-opus-4-1",
            "eu.anthropic.claude-opus-4-1-20250805-v1:0",
            "claude-opus-4-1@20250805",
        ),
        (
            "a provider's own id is left alone",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
        (
            "a Vertex id is left alone",
            "claude-opus-4-5@20251101",
            "claude-opus-4-5@20251101",
            "claude-opus-4-5@20251101",
        ),
    ],
)
def test_model_ids_per_provider(case: str, model: str, bedrock: str, vertex: str) -> None:
    assert bedrock_model_id(model, "eu-west-1") == bedrock, case
    assert vertex_model_id(model) == vertex, case


def capture() -> tuple[list[httpx2.Request], httpx2.AsyncClient]:
    seen: list[httpx2.Request] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(400, json={"type": "error", "error": {"type": "invalid_request_error", "message": "x"}})

    return seen, httpx2.AsyncClient(transport=httpx2.MockTransport(handle))


def request(model: str) -> ModelRequest:
    return ModelRequest(model, 1024, [], [{"role": "user", "content": [{"type": "text", "text": "hi"}]}])


async def test_vertex_is_sent_the_dated_id_of_an_older_model() -> None:
    seen, http = capture()
    config = ProviderConfig(
        provider="vertex", vertex_region="us-east5", vertex_project_id="proj", vertex_access_token="ya29.token"
    )
    client = make_model_client(config, http_client=http)

    with pytest.raises(ModelError):
        _ = [e async for e in client.stream(request("claude-sonnet-4-5"))]

    assert seen[0].url.path.endswith("/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict")


async def test_bedrock_is_sent_the_inference_profile_of_the_default_model() -> None:
    from anthropic.lib.bedrock import AsyncAnthropicBedrock

    seen, http = capture()
    # An API key (Bedrock's bearer token) signs without botocore; decoding a stream would need it.
    sdk = AsyncAnthropicBedrock(api_key="bedrock-test-key", aws_region="us-east-1", max_retries=0, http_client=http)
    client = AnthropicModel(sdk, provider="bedrock", supports_tool_search=False, region="us-east-1")

    with pytest.raises(ModelError):
        _ = [e async for e in client.stream(request(DEFAULT_MODEL))]

    assert seen[0].url.host == "bedrock-runtime.us-east-1.amazonaws.com"
    assert seen[0].url.path == f"/model/global.anthropic.{DEFAULT_MODEL}/invoke-with-response-stream"


@pytest.mark.skipif(importlib.util.find_spec("google") is not None, reason="google-auth may be installed here")
def test_vertex_without_google_auth_or_a_token_says_which_extra_to_install() -> None:
    with pytest.raises(ConfigError, match=r"headless-bot\[vertex\]"):
        make_model_client(ProviderConfig(provider="vertex", vertex_region="us-east5", vertex_project_id="proj"))


@pytest.mark.skipif(importlib.util.find_spec("google") is not None, reason="google-auth may be installed here")
def test_a_run_on_vertex_without_its_extra_stops_with_one_line_before_any_model_call(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--local",
            "--repo",
            str(ROOT / "examples" / "demo-repo"),
            "--prompt",
            "Fix the failing test",
            "--replay",
            str(ROOT / "examples" / "demo.cassette.yaml"),
            "-o",
            str(out),
        ],
        env={"BOT_MODEL_PROVIDER": "vertex", "CLOUD_ML_REGION": "us-east5", "ANTHROPIC_VERTEX_PROJECT_ID": "proj"},
    )

    assert result.exit_code != 0
    said = [line for line in result.output.splitlines() if "headless-bot[vertex]" in line]
    assert len(said) == 1 and "the Vertex provider needs google-auth" in said[0], result.output
    assert "Traceback" not in result.output
    if (out / "outcome.json").exists():  # however the run is finalised, no model call was made
        assert json.loads((out / "outcome.json").read_text())["turns"] == 0
