"""The scripted model server over real sockets: every protocol, streaming and not, TLS with its own CA,
turns chosen from the conversation, failures, a hang, and the egress proxy's route to it."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
from pathlib import Path
from typing import Any

import pytest

from m4agent.errors import M4AgentError
from m4agent.harness.egress import EgressProxy, policy_for
from m4agent.model_server import ScriptedModelServer, make_certificates, parse_script

SCRIPT = {"model": "scripted", "turns": [
    {"shell": "echo hi > output.csv", "usage": {"input": 100, "cache_read": 20, "cache_write": 30, "output": 50,
                                               "reasoning": 10}},
    {"text": "done", "usage": {"input": 5, "output": 7}},
]}
BASH = {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"},
                                                                         "description": {"type": "string"}}}}
FUNCTION = {"type": "object", "properties": {"command": {"type": "string"}}}


@pytest.fixture
def certs(tmp_path: Path) -> Any:
    return make_certificates(tmp_path / "certs", ["api.anthropic.com"])


@pytest.fixture
def server(certs: Any) -> Any:
    with ScriptedModelServer(parse_script(SCRIPT), certificates=certs) as running:
        yield running


def _post(server: ScriptedModelServer, certs: Any, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
    context = ssl.create_default_context(cafile=str(certs.ca))
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=10)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def _events(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in data.decode().splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


def test_anthropic_stream_asks_for_the_scripted_command_with_the_scripted_usage(server: Any, certs: Any) -> None:
    status, data = _post(server, certs, "/v1/messages", {"stream": True, "tools": [BASH],
                                                         "messages": [{"role": "user", "content": "go"}]})
    events = _events(data)
    assert status == 200
    start = events[0]["message"]["usage"]
    assert (start["input_tokens"], start["cache_read_input_tokens"], start["cache_creation_input_tokens"]) == (100, 20, 30)
    block = next(e for e in events if e["type"] == "content_block_start")["content_block"]
    delta = next(e for e in events if e["type"] == "content_block_delta")["delta"]
    assert block["name"] == "Bash" and json.loads(delta["partial_json"])["command"] == "echo hi > output.csv"
    assert next(e for e in events if e["type"] == "message_delta")["usage"]["output_tokens"] == 50


def test_the_turn_follows_the_conversation_not_the_request_count(server: Any, certs: Any) -> None:
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "x"},
                {"role": "user", "content": "result"}]
    for _ in range(2):  # a retried request gets the same turn
        status, data = _post(server, certs, "/v1/messages", {"tools": [BASH], "messages": messages})
        reply = json.loads(data)
        assert reply["content"] == [{"type": "text", "text": "done"}] and reply["stop_reason"] == "end_turn"


def test_responses_api_counts_cached_input_inside_input_tokens(server: Any, certs: Any) -> None:
    tools = [{"type": "function", "name": "shell", "parameters": {"type": "object", "properties": {
        "command": {"type": "array", "items": {"type": "string"}}}}}]
    status, data = _post(server, certs, "/v1/responses", {"stream": True, "tools": tools, "input": []})
    done = _events(data)[-1]
    assert done["type"] == "response.completed"
    item = done["response"]["output"][0]
    assert item["name"] == "shell" and json.loads(item["arguments"])["command"] == ["bash", "-lc", "echo hi > output.csv"]
    usage = done["response"]["usage"]
    assert usage["input_tokens"] == 120 and usage["input_tokens_details"]["cached_tokens"] == 20
    assert usage["output_tokens_details"]["reasoning_tokens"] == 10


def test_chat_completions_streams_a_tool_call_then_usage_then_done(server: Any, certs: Any) -> None:
    tools = [{"type": "function", "function": {"name": "bash", "parameters": FUNCTION}}]
    status, data = _post(server, certs, "/v1/chat/completions", {"stream": True, "tools": tools, "messages": []})
    chunks = _events(data)
    call = chunks[0]["choices"][0]["delta"]["tool_calls"][0]["function"]
    assert call["name"] == "bash" and json.loads(call["arguments"]) == {"command": "echo hi > output.csv"}
    assert chunks[-1]["usage"]["prompt_tokens"] == 120 and data.decode().rstrip().endswith("data: [DONE]")


def test_gemini_reports_thinking_apart_from_candidates(server: Any, certs: Any) -> None:
    tools = [{"functionDeclarations": [{"name": "run_shell_command", "parametersJsonSchema": FUNCTION}]}]
    status, data = _post(server, certs, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
                         {"contents": [{"role": "user", "parts": [{"text": "go"}]}], "tools": tools})
    (event,) = _events(data)
    assert event["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] == "run_shell_command"
    usage = event["usageMetadata"]
    assert (usage["promptTokenCount"], usage["candidatesTokenCount"], usage["thoughtsTokenCount"]) == (120, 40, 10)


def test_ollama_streams_newline_delimited_json(server: Any, certs: Any) -> None:
    tools = [{"type": "function", "function": {"name": "bash", "parameters": FUNCTION}}]
    status, data = _post(server, certs, "/api/chat", {"tools": tools, "messages": []})
    lines = [json.loads(line) for line in data.decode().splitlines()]
    assert lines[0]["message"]["tool_calls"][0]["function"]["arguments"] == {"command": "echo hi > output.csv"}
    assert lines[-1]["done"] is True and lines[-1]["prompt_eval_count"] == 120


@pytest.mark.parametrize(("kind", "status"), [("rate_limit", 429), ("server_error", 500), ("invalid_key", 401),
                                              ("quota", 400)])
def test_anthropic_failures_answer_as_the_provider_does(kind: str, status: int, certs: Any) -> None:
    with ScriptedModelServer(parse_script({"turns": [{"fail": kind}]}), certificates=certs) as failing:
        got, data = _post(failing, certs, "/v1/messages", {"tools": [BASH], "messages": []})
    assert got == status and json.loads(data)["type"] == "error"


def test_openai_quota_is_a_429_with_insufficient_quota(certs: Any) -> None:
    with ScriptedModelServer(parse_script({"turns": [{"fail": "quota"}]}), certificates=certs) as failing:
        got, data = _post(failing, certs, "/v1/responses", {"tools": [{"type": "function", "name": "shell"}]})
    assert got == 429 and json.loads(data)["error"]["code"] == "insufficient_quota"


def test_faults_answer_the_first_requests_then_the_script_resumes(certs: Any) -> None:
    doc = {**SCRIPT, "faults": [{"kind": "server_error", "requests": 2}]}
    with ScriptedModelServer(parse_script(doc), certificates=certs) as server:
        statuses = [_post(server, certs, "/v1/messages", {"tools": [BASH], "messages": []})[0] for _ in range(3)]
    assert statuses == [500, 500, 200]


def test_a_hang_sends_nothing_until_the_server_closes(certs: Any) -> None:
    server = ScriptedModelServer(parse_script({"turns": [{"fail": "hang"}]}), certificates=certs).start()
    context = ssl.create_default_context(cafile=str(certs.ca))
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=1)
    conn.request("POST", "/v1/messages", json.dumps({"tools": [BASH], "messages": []}))
    with pytest.raises(TimeoutError):
        conn.getresponse()
    conn.close()
    server.close()


def test_a_client_that_does_not_trust_the_ca_is_refused(server: Any) -> None:
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=ssl.create_default_context(), timeout=5)
    with pytest.raises(ssl.SSLCertVerificationError):
        conn.request("GET", "/v1/models")


def test_the_egress_proxy_routes_a_provider_host_to_the_server_and_logs_it(server: Any, certs: Any,
                                                                           tmp_path: Path) -> None:
    policy = policy_for([], routes=[("api.anthropic.com", "127.0.0.1", server.port)])
    log = tmp_path / "egress.jsonl"
    with EgressProxy(tmp_path / "proxy.sock", policy, log):
        raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        raw.connect(str(tmp_path / "proxy.sock"))
        raw.sendall(b"CONNECT api.anthropic.com:443 HTTP/1.1\r\nHost: api.anthropic.com:443\r\n\r\n")
        assert raw.recv(1024).startswith(b"HTTP/1.1 200")
        tls = ssl.create_default_context(cafile=str(certs.ca)).wrap_socket(raw, server_hostname="api.anthropic.com")
        body = json.dumps({"tools": [BASH], "messages": []}).encode()
        tls.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nContent-Length: "
                    + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
        reply = b""
        while chunk := tls.recv(65536):
            reply += chunk
        tls.close()
    assert b"echo hi > output.csv" in reply
    decision = json.loads(log.read_text().splitlines()[0])
    assert decision["allowed"] and decision["reason"] == f"routed to 127.0.0.1:{server.port}"
    assert "routes" in policy.to_json() and policy.digest() != policy_for([]).digest()


def test_a_script_turn_needs_exactly_one_of_shell_text_or_fail() -> None:
    with pytest.raises(M4AgentError, match="turn 1 needs exactly one"):
        parse_script({"turns": [{"shell": "ls", "text": "done"}]})
    with pytest.raises(M4AgentError, match="usage.output must be a whole number"):
        parse_script({"turns": [{"text": "done", "usage": {"output": -1}}]})


def test_requests_are_logged_with_their_protocol_and_turn(server: Any, certs: Any) -> None:
    _post(server, certs, "/v1/messages", {"tools": [BASH], "messages": []})
    _post(server, certs, "/v1/messages", {"messages": []})  # no tools: a side request of the CLI
    kinds = [(r["protocol"], r.get("turn"), r["kind"]) for r in server.requests]
    assert kinds == [("anthropic", 0, "call:Bash"), ("anthropic", None, "side")]


def test_the_model_server_command_serves_a_script_and_says_how_to_route_to_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "turns.toml"
    script.write_text('[[turns]]\ntext = "done"\nusage = { input = 3, output = 4 }\n')
    server = subprocess.Popen([sys.executable, "-m", "m4agent.cli", "model-server", "--script", str(script),
                               "--port", "0", "--certs", str(tmp_path / "certs")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(3)]
        port = int(lines[0].split("https://127.0.0.1:")[1].split()[0])
        assert f"--route api.anthropic.com=127.0.0.1:{port}" in lines[2]
        assert str(tmp_path / "certs" / "ca.pem") in lines[1]
        context = ssl.create_default_context(cafile=str(tmp_path / "certs" / "ca.pem"))
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
        conn.request("POST", "/v1/messages", json.dumps({"tools": [BASH], "messages": []}))
        reply = json.loads(conn.getresponse().read())
        assert reply["content"][0]["text"] == "done" and reply["usage"]["output_tokens"] == 4
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_route_is_host_equals_address_colon_port() -> None:
    from m4agent.model_server.cli import parse_route

    assert parse_route("api.anthropic.com=127.0.0.1:8443") == ("api.anthropic.com", "127.0.0.1", 8443)
    with pytest.raises(M4AgentError, match="HOST=ADDRESS:PORT"):
        parse_route("api.anthropic.com:8443")
