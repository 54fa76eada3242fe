"""wire.meter over real exchanges with the scripted model server: each CLI's request shape sent over
loopback, the answer captured byte for byte with http.client, then read as the metering proxy will.

The expected usage is the script's, mapped onto each protocol's fields by the rules of
``wire.meter`` (``_EXPECTED``); the server renders the same script in each provider's format.
"""

from __future__ import annotations

import gzip
import http.client
import json
import os
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
import zstandard

from m4agent.harness.wire import Exchange, Metered, credential, meter
from m4agent.harness.wire.decode import MAX_DECODED
from m4agent.harness.wire.reader import MAX_TEXT
from m4agent.model_server import ScriptedModelServer, parse_script

COMMAND = "python3 -c 'print(42)' > output.csv"
FIRST = {"input": 100, "cache_read": 20, "cache_write": 30, "output": 50, "reasoning": 10}
SECOND = {"input": 5, "output": 7}  # no cache, no reasoning: Gemini leaves those counts out
SCRIPT = {"model": "scripted", "turns": [{"shell": COMMAND, "usage": FIRST}, {"text": "done", "usage": SECOND}]}
KEY = "sk-campaign-0123456789abcdef"

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"}}}
ARGV_SCHEMA = {"type": "object", "properties": {"command": {"type": "array", "items": {"type": "string"}}}}


def _expected(protocol: str, u: dict[str, int]) -> dict[str, int | None]:
    """The script's usage as each protocol reports it (None: the protocol has no such count)."""
    full = {"input": 0, "cache_read": 0, "cache_write": 0, "output": 0, "reasoning": 0, **u}
    if protocol == "anthropic":
        return {**full, "reasoning": None}
    if protocol == "ollama":  # one prompt count, cached part included; no cache or reasoning counts
        return {"input": full["input"] + full["cache_read"], "cache_read": None, "cache_write": None,
                "output": full["output"], "reasoning": None}
    return {**full, "cache_write": None}


# ---- each CLI's request, turn 0 (first call) and turn 1 (the tool result sent back)

def _claude(turn: int, stream: bool, call_id: str = "", output: str = "") -> tuple[str, dict[str, Any], dict]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "solve the task"}]}]
    if turn:
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "Bash",
                                                        "input": {"command": COMMAND}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                                   "content": [{"type": "text", "text": output}]}]}]
    body = {"model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": stream, "messages": messages,
            "tools": [{"name": "Bash", "input_schema": SCHEMA}]}
    return "/v1/messages?beta=true", body, {"x-api-key": KEY, "anthropic-version": "2023-06-01"}


def _codex(turn: int, stream: bool, call_id: str = "", output: str = "") -> tuple[str, dict[str, Any], dict]:
    items: list[dict[str, Any]] = [{"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": "solve the task"}]}]
    if turn:
        items += [{"type": "function_call", "name": "shell", "call_id": call_id,
                   "arguments": json.dumps({"command": ["bash", "-lc", COMMAND]})},
                  {"type": "function_call_output", "call_id": call_id, "output": output}]
    body = {"model": "gpt-5-codex", "stream": stream, "store": False, "input": items,
            "tools": [{"type": "function", "name": "shell", "parameters": ARGV_SCHEMA}]}
    return "/v1/responses", body, {"Authorization": f"Bearer {KEY}"}


def _pi(turn: int, stream: bool, call_id: str = "", output: str = "") -> tuple[str, dict[str, Any], dict]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "you are pi"},
                                      {"role": "user", "content": "solve the task"}]
    if turn:
        messages += [{"role": "assistant", "content": None, "tool_calls": [
                         {"id": call_id, "type": "function",
                          "function": {"name": "bash", "arguments": json.dumps({"command": COMMAND})}}]},
                     {"role": "tool", "tool_call_id": call_id, "content": output}]
    body = {"model": "gpt-4.1", "stream": stream, "messages": messages,
            "tools": [{"type": "function", "function": {"name": "bash", "parameters": SCHEMA}}]}
    if stream:
        body["stream_options"] = {"include_usage": True}
    return "/v1/chat/completions", body, {"Authorization": f"Bearer {KEY}"}


def _gemini(turn: int, stream: bool, call_id: str = "", output: str = "") -> tuple[str, dict[str, Any], dict]:
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "solve the task"}]}]
    if turn:
        contents += [{"role": "model", "parts": [{"functionCall": {"id": call_id, "name": "run_shell_command",
                                                                   "args": {"command": COMMAND}}}]},
                     {"role": "user", "parts": [{"functionResponse": {"id": call_id, "name": "run_shell_command",
                                                                      "response": {"output": output}}}]}]
    body = {"contents": contents, "tools": [{"functionDeclarations": [
        {"name": "run_shell_command", "parametersJsonSchema": SCHEMA}]}]}
    path = ("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse" if stream
            else "/v1beta/models/gemini-2.5-pro:generateContent")
    return path, body, {"x-goog-api-key": KEY}


def _ollama(turn: int, stream: bool, call_id: str = "", output: str = "") -> tuple[str, dict[str, Any], dict]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "solve the task"}]
    if turn:
        messages += [{"role": "assistant", "content": "", "tool_calls": [
                         {"function": {"name": "bash", "arguments": {"command": COMMAND}}}]},
                     {"role": "tool", "tool_name": "bash", "content": output}]
    body = {"model": "qwen3", "stream": stream, "messages": messages,
            "tools": [{"type": "function", "function": {"name": "bash", "parameters": SCHEMA}}]}
    return "/api/chat", body, {}


CLIS = {"anthropic": _claude, "openai-responses": _codex, "openai-chat": _pi, "gemini": _gemini, "ollama": _ollama}
PROTOCOLS = [(p, s) for p in CLIS for s in (True, False)]
IDS = [f"{p}-{'stream' if s else 'whole'}" for p, s in PROTOCOLS]


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(parse_script(SCRIPT)) as running:
        yield running


def _send(server: ScriptedModelServer, path: str, body: bytes, headers: dict[str, str],
          method: str = "POST", timeout: float = 10) -> Exchange:
    """One real request over loopback; the answer captured as the proxy captures it."""
    path_only, _, query = path.partition("?")
    sent = {"Host": "api.example.invalid", "Content-Type": "application/json", **headers}
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.request(method, path, body, sent)
        try:
            response = conn.getresponse()
        except (TimeoutError, ConnectionError, http.client.RemoteDisconnected):
            status, answer_headers, answer = None, (), b""
        else:
            status, answer_headers, answer = response.status, tuple(response.getheaders()), response.read()
    finally:
        conn.close()
    return Exchange("api.example.invalid", method, path_only, query, tuple(sent.items()), body, status,
                    answer_headers, answer)


def _call(server: ScriptedModelServer, protocol: str, stream: bool, turn: int = 0, call_id: str = "",
          output: str = "") -> Exchange:
    path, body, headers = CLIS[protocol](turn, stream, call_id, output)
    return _send(server, path, json.dumps(body).encode(), headers)


# ---- usage

@pytest.mark.parametrize(("protocol", "stream"), PROTOCOLS, ids=IDS)
def test_usage_is_the_scripts_mapped_per_protocol_with_none_for_unreported_counts(
        server: ScriptedModelServer, protocol: str, stream: bool) -> None:
    got = meter(_call(server, protocol, stream))
    assert (got.protocol, got.streaming) == (protocol, stream)
    assert got.usage == _expected(protocol, FIRST)


@pytest.mark.parametrize(("protocol", "stream"), PROTOCOLS, ids=IDS)
def test_second_turn_usage_is_that_turns_own(server: ScriptedModelServer, protocol: str, stream: bool) -> None:
    got = meter(_call(server, protocol, stream, turn=1, call_id="call_1", output="42"))
    assert got.usage == _expected(protocol, SECOND)


def test_gemini_counts_left_out_of_a_present_usage_metadata_are_zero_not_none(server: ScriptedModelServer) -> None:
    exchange = _call(server, "gemini", True, turn=1, call_id="call_1", output="42")
    assert b"thoughtsTokenCount" not in exchange.response_body  # the provider's way of saying 0
    assert meter(exchange).usage["reasoning"] == 0 and meter(exchange).usage["cache_read"] == 0


@pytest.mark.parametrize("protocol", ["anthropic", "openai-responses", "openai-chat"])
def test_the_model_is_read_from_the_request(server: ScriptedModelServer, protocol: str) -> None:
    path, body, _ = CLIS[protocol](0, True)
    assert meter(_call(server, protocol, True)).model == body["model"]


def test_the_gemini_model_is_read_from_the_path(server: ScriptedModelServer) -> None:
    assert meter(_call(server, "gemini", True)).model == "gemini-2.5-pro"


# ---- steps

@pytest.mark.parametrize(("protocol", "stream"), PROTOCOLS, ids=IDS)
def test_the_tool_call_is_read_with_its_tool_and_command(server: ScriptedModelServer, protocol: str,
                                                        stream: bool) -> None:
    got = meter(_call(server, protocol, stream))
    assert [(c.name, c.input) for c in got.calls] == [
        ({"anthropic": "Bash", "openai-responses": "shell", "gemini": "run_shell_command"}.get(protocol, "bash"),
         COMMAND)]


@pytest.mark.parametrize(("protocol", "stream"), [p for p in PROTOCOLS if p[0] != "ollama"],
                         ids=[i for i in IDS if not i.startswith("ollama")])
def test_the_tool_call_id_is_the_one_on_the_wire(server: ScriptedModelServer, protocol: str, stream: bool) -> None:
    exchange = _call(server, protocol, stream)
    (found,) = meter(exchange).calls
    assert found.id and f'"{found.id}"'.encode() in exchange.response_body


@pytest.mark.parametrize(("protocol", "stream"), PROTOCOLS, ids=IDS)
def test_the_tool_result_sent_back_is_read_with_the_calls_id(server: ScriptedModelServer, protocol: str,
                                                            stream: bool) -> None:
    call_id = meter(_call(server, protocol, stream)).calls[0].id  # Ollama's: the tool name, as its results
    got = meter(_call(server, protocol, stream, turn=1, call_id=call_id, output="42\n"))
    assert [(r.id, r.output) for r in got.results] == [(call_id, "42\n")]


@pytest.mark.parametrize(("protocol", "stream"), PROTOCOLS, ids=IDS)
def test_the_final_text_is_read_and_no_call(server: ScriptedModelServer, protocol: str, stream: bool) -> None:
    got = meter(_call(server, protocol, stream, turn=1, call_id="call_1", output="42"))
    assert (got.text, got.calls) == ("done", ())


def test_tool_results_before_the_last_model_turn_are_not_sent_again(server: ScriptedModelServer) -> None:
    path, body, headers = _claude(1, True, "toolu_old", "old output")
    body["messages"] += [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_new", "name": "Bash",
                                                            "input": {"command": "ls"}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_new",
                                                       "content": "new output"}]}]
    got = meter(_send(server, path, json.dumps(body).encode(), headers))
    assert [(r.id, r.output) for r in got.results] == [("toolu_new", "new output")]


def _codex_turns(*turns: list[dict[str, Any]]) -> dict[str, Any]:
    path, body, _ = _codex(0, True)
    for items in turns:
        body["input"] += [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "x"}, *items]
    return body


def _called(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "name": "shell", "call_id": call_id, "arguments": '{"command": ["ls"]}'}


def _output(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": f"out {call_id}"}


def test_codex_outputs_recorded_after_each_of_parallel_calls_are_all_read(server: ScriptedModelServer) -> None:
    body = _codex_turns([_called("call_a"), _output("call_a"), _called("call_b"), _output("call_b")])
    got = meter(_send(server, "/v1/responses", json.dumps(body).encode(), {}))
    assert [r.id for r in got.results] == ["call_a", "call_b"]


def test_codex_outputs_of_an_earlier_turn_are_not_read_again(server: ScriptedModelServer) -> None:
    body = _codex_turns([_called("call_a"), _output("call_a")], [_called("call_b"), _output("call_b")])
    got = meter(_send(server, "/v1/responses", json.dumps(body).encode(), {}))
    assert [r.id for r in got.results] == ["call_b"]


def test_a_long_tool_output_is_cut_at_the_text_bound(server: ScriptedModelServer) -> None:
    got = meter(_call(server, "openai-chat", True, turn=1, call_id="call_1", output="x" * (MAX_TEXT + 5000)))
    (found,) = got.results
    assert found.output.startswith("x" * MAX_TEXT) and found.output.endswith("[... 5000 characters cut]")


# ---- failures

FAILURE_CLASSES = ["rate_limit", "quota", "server_error", "invalid_key", "unknown_model"]


@pytest.mark.parametrize("protocol", list(CLIS))
@pytest.mark.parametrize("kind", FAILURE_CLASSES)
def test_each_provider_failure_gets_its_class(protocol: str, kind: str) -> None:
    with ScriptedModelServer(parse_script({"turns": [{"fail": kind}]})) as failing:
        got = meter(_call(failing, protocol, True))
    assert (got.protocol, got.error) == (protocol, kind)
    assert got.usage == dict.fromkeys(FIRST)  # a failed call reports no tokens: unknown, not 0


def test_the_unknown_model_detail_names_the_model_the_request_asked_for() -> None:
    with ScriptedModelServer(parse_script({"turns": [{"fail": "unknown_model"}]})) as failing:
        got = meter(_call(failing, "anthropic", False))
    assert got.error_detail == "not_found_error: model: claude-sonnet-4-5"


def test_gemini_rate_limit_is_not_quota_though_its_message_says_quota() -> None:
    with ScriptedModelServer(parse_script({"turns": [{"fail": "rate_limit"}]})) as failing:
        exchange = _call(failing, "gemini", False)
    assert b"quota" in exchange.response_body and meter(exchange).error == "rate_limit"


def test_a_hung_answer_is_no_answer() -> None:
    with ScriptedModelServer(parse_script({"turns": [{"fail": "hang"}]})) as failing:
        path, body, headers = _claude(0, True)
        exchange = _send(failing, path, json.dumps(body).encode(), headers, timeout=0.5)
    got = meter(exchange)
    assert (exchange.status, got.error, got.usage) == (None, "no_answer", dict.fromkeys(FIRST))


@pytest.mark.parametrize(("protocol", "closing"), [("anthropic", b"event: message_stop"),
                                                    ("openai-responses", b"event: response.completed"),
                                                    ("openai-chat", b"data: [DONE]"),
                                                    ("ollama", b'"done": true')])
def test_a_stream_cut_before_its_closing_event_is_a_server_error(server: ScriptedModelServer, protocol: str,
                                                                 closing: bytes) -> None:
    exchange = _call(server, protocol, True)
    cut = exchange.response_body[:exchange.response_body.index(closing)]
    cut = cut[:cut.rindex(b"\n", 0, len(cut) - 1) + 1] if protocol == "ollama" else cut
    got = meter(Exchange(**{**exchange.__dict__, "response_body": cut}))
    assert got.error == "server_error"


def test_a_stream_cut_by_the_capture_cap_is_no_provider_failure(server: ScriptedModelServer) -> None:
    exchange = _call(server, "anthropic", True)
    cut = exchange.response_body[:exchange.response_body.index(b"event: message_delta")]
    got = meter(Exchange(**{**exchange.__dict__, "response_body": cut, "truncated": True}))
    assert got.error is None and any("capture" in note for note in got.notes)


def test_an_answer_in_an_encoding_the_meter_cannot_read_is_no_provider_failure(server: ScriptedModelServer) -> None:
    exchange = _call(server, "openai-chat", True)
    headers = (*exchange.response_headers, ("Content-Encoding", "br"))
    got = meter(Exchange(**{**exchange.__dict__, "response_headers": headers}))
    assert got.error is None and any("'br'" in note for note in got.notes)


def test_a_chat_stream_whose_chunks_say_error_null_is_no_failure(server: ScriptedModelServer) -> None:
    exchange = _call(server, "openai-chat", True)
    nulls = exchange.response_body.replace(b'"chat.completion.chunk"', b'"chat.completion.chunk", "error": null')
    assert meter(Exchange(**{**exchange.__dict__, "response_body": nulls})).error is None


def test_an_error_event_inside_a_200_stream_is_a_server_error(server: ScriptedModelServer) -> None:
    exchange = _call(server, "anthropic", True)
    overloaded = (b'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
                  b'"message": "Overloaded"}}\n\n')
    cut = exchange.response_body[:exchange.response_body.index(b"event: content_block_start")] + overloaded
    got = meter(Exchange(**{**exchange.__dict__, "response_body": cut}))
    assert (got.error, got.error_detail) == ("server_error", "overloaded_error: Overloaded")


def test_a_failed_responses_stream_is_a_server_error(server: ScriptedModelServer) -> None:
    exchange = _call(server, "openai-responses", True)
    failed = (b'event: response.failed\ndata: {"type": "response.failed", "response": {"status": "failed", '
              b'"error": {"code": "server_error", "message": "The model failed"}, "usage": null}}\n\n')
    cut = exchange.response_body[:exchange.response_body.index(b"event: response.output_item.added")] + failed
    assert meter(Exchange(**{**exchange.__dict__, "response_body": cut})).error == "server_error"


def test_an_error_detail_never_holds_the_request_key(server: ScriptedModelServer) -> None:
    exchange = _call(server, "gemini", False)
    echo = json.dumps({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": f"API key {KEY} not valid",
                                 "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                              "reason": "API_KEY_INVALID"}]}}).encode()
    got = meter(Exchange(**{**exchange.__dict__, "query": f"alt=sse&key={KEY}", "status": 400,
                            "response_body": echo}))
    assert got.error == "invalid_key" and KEY not in json.dumps(got.to_json())


# ---- what is not a model call

@pytest.mark.parametrize("path", ["/v1/messages/count_tokens", "/v1beta/models/gemini-2.5-pro:countTokens"])
def test_a_token_count_is_not_a_model_call(server: ScriptedModelServer, path: str) -> None:
    got = meter(_send(server, path, b'{"model": "m", "messages": []}', {}))
    assert (got.protocol, got.usage, got.error) == (None, dict.fromkeys(FIRST), None)


def test_a_model_list_refused_for_its_key_is_invalid_key_though_no_model_call(server: ScriptedModelServer) -> None:
    exchange = _send(server, "/v1/models", b"", {}, method="GET")
    refused = json.dumps({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                    "code": "invalid_api_key"}}).encode()
    got = meter(Exchange(**{**exchange.__dict__, "status": 401, "response_body": refused}))
    assert (got.protocol, got.error) == (None, "invalid_key")


# ---- Code Assist (Gemini CLI with a Google login): the Gemini body wrapped in {"response": ...}

def test_code_assist_answers_are_unwrapped(server: ScriptedModelServer) -> None:
    path, body, _ = _gemini(1, True, "call_9", "42")
    answer = _send(server, path, json.dumps(body).encode(), {})
    wrapped = b"".join(b"data: " + json.dumps({"response": json.loads(line[6:]), "traceId": "t"}).encode() + b"\n\n"
                       for line in answer.response_body.splitlines() if line.startswith(b"data: "))
    request = json.dumps({"model": "gemini-2.5-pro", "project": "p-1", "request": body}).encode()
    got = meter(Exchange("cloudcode-pa.googleapis.com", "POST", "/v1internal:streamGenerateContent", "alt=sse",
                         (("Authorization", "Bearer ya29.token"),), request, 200, answer.response_headers, wrapped))
    assert (got.protocol, got.model, got.usage, got.text) == ("gemini", "gemini-2.5-pro",
                                                              _expected("gemini", SECOND), "done")
    assert [(r.id, r.output) for r in got.results] == [("call_9", "42")]


# ---- encodings and hostile bytes

def test_a_gzip_request_body_is_decoded(server: ScriptedModelServer) -> None:
    path, body, headers = _claude(1, False, "toolu_1", "42")
    got = meter(_send(server, path, gzip.compress(json.dumps(body).encode()), {**headers, "Content-Encoding": "gzip"}))
    assert (got.model, [r.id for r in got.results], got.notes) == ("claude-sonnet-4-5", ["toolu_1"], ())


def test_a_zstd_request_body_is_decoded_as_codex_sends_it(server: ScriptedModelServer) -> None:
    path, body, headers = _codex(1, True, "call_7", "42")
    packed = zstandard.ZstdCompressor().compress(json.dumps(body).encode())
    got = meter(_send(server, path, packed, {**headers, "Content-Encoding": "zstd"}))
    assert (got.model, [r.id for r in got.results], got.usage) == ("gpt-5-codex", ["call_7"],
                                                                  _expected("openai-responses", SECOND))


def test_a_zstd_bomb_decodes_no_further_than_the_cap_and_is_marked() -> None:
    packer = zstandard.ZstdCompressor().compressobj()
    bomb = b"".join(packer.compress(b"\0" * (1 << 20)) for _ in range(1024)) + packer.flush()  # 1 GiB inside
    exchange = Exchange("api.openai.com", "POST", "/v1/responses", "", (("Content-Encoding", "zstd"),), bomb,
                        None, (), b"")
    tracemalloc.start()
    try:
        got = meter(exchange)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert any("cut" in note for note in got.notes) and peak < 4 * MAX_DECODED


GARBAGE = [b"", b"\x00\xff" * 500, os.urandom(4096), b"[" * 100_000, b'{"a": ' * 50_000, b"data: {\n\n" * 1000,
           b'{"type": "message", "content": {"x": 1}, "usage": [1, 2]}', b'{"choices": "x", "usage": {"prompt_tokens": '
           b'"12"}}', b'{"candidates": [7, null, {"content": {"parts": [{"functionCall": 5}, null]}}], '
           b'"usageMetadata": {"promptTokenCount": -4}}', b'data: {"type": "content_block_start", "index": [1], '
           b'"content_block": {"type": "tool_use"}}\n\n', b'{"error": {"details": [{"@type": 5}], "status": [1]}}',
           b'{"message": {"tool_calls": [{"function": {"arguments": {"command": ' + b"[" * 5000 + b"]" * 5000 + b"}}}]}}"]


@pytest.mark.parametrize("status", [200, 400, 429, 500])
@pytest.mark.parametrize(("protocol", "stream"), PROTOCOLS, ids=IDS)
def test_garbage_bodies_give_a_reading_never_an_exception(protocol: str, stream: bool, status: int) -> None:
    path, body, _ = CLIS[protocol](1, stream, "c", "o")
    for junk in GARBAGE:
        for request, answer in ((junk, junk), (json.dumps(body).encode(), junk)):
            for encoding in ("", "gzip", "zstd"):
                got = meter(Exchange("h", "POST", path.split("?")[0], "", (("Content-Encoding", encoding),), request,
                                     status, (("Content-Encoding", encoding),), answer))
                assert isinstance(got, Metered) and not any("meter failed" in n for n in got.notes), (junk[:40],)
                json.dumps(got.to_json())


# ---- credentials

def _with(headers: tuple[tuple[str, str], ...] = (), query: str = "") -> Exchange:
    return Exchange("api.anthropic.com", "POST", "/v1/messages", query, headers, b"{}", 200, (), b"")


def test_the_campaign_key_in_x_api_key_is_campaign() -> None:
    assert credential(_with((("X-Api-Key", KEY),)), [KEY]) == "campaign"


def test_another_bearer_token_is_other() -> None:
    assert credential(_with((("Authorization", "Bearer sk-someone-else"),)), [KEY]) == "other"


def test_a_gemini_key_in_the_query_is_read() -> None:
    assert credential(_with(query=f"alt=sse&key={KEY}"), [KEY]) == "campaign"


def test_a_request_without_a_credential_is_none() -> None:
    assert credential(_with((("Authorization", "Bearer "),)), [KEY]) == "none"


def test_a_basic_authorization_is_a_credential_too() -> None:
    assert credential(_with((("Authorization", "Basic dXNlcjpwYXNz"),)), [KEY]) == "other"


def test_one_secret_given_as_a_string_is_compared_whole() -> None:
    assert credential(_with((("x-api-key", "s"),)), KEY + "s") == "other"


def test_the_campaign_key_beside_another_is_other() -> None:
    assert credential(_with((("x-goog-api-key", KEY), ("Authorization", "Bearer sk-mine"))), [KEY]) == "other"
