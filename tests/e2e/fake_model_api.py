"""A fake model API on 127.0.0.1 for the end-to-end suite (docs/e2e.md).

One server speaks both dialects the agent CLIs use:

- Claude Code: the Anthropic Messages API (POST /v1/messages, streamed as
  server-sent events when the request asks for it, one JSON reply when not),
  and /v1/messages/count_tokens;
- Codex: the OpenAI Responses API (POST /v1/responses, always streamed), and
  GET /v1/models.

Every model request answers with the same scripted text, `FakeModelAPI.reply`
(a test sets it before each CLI run): the text ends the turn. With
`FakeModelAPI.tool_call` set (a tool name's ending and its arguments), a
request that carries no tool result yet is answered instead with a call of the
request's tool whose name ends so; the request after it, carrying the tool's
result, gets the text. Every request is recorded (method, path, parsed body)
so that a test can assert what the model was sent. Anything else (telemetry,
update checks, a CONNECT through the proxy the test points the CLIs at) is
answered harmlessly and recorded in `FakeModelAPI.stray`, never forwarded:
the suite uses no network but this loopback socket.

    python tests/e2e/fake_model_api.py [PORT]   # serves "OK." until Ctrl-C
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body, or the raw text when it is not JSON, or None

    def text(self) -> str:
        """The body as text, for substring assertions over the whole request."""
        return json.dumps(self.body, ensure_ascii=False) if self.body is not None else ""


@dataclass
class FakeModelAPI:
    """The server, run on a daemon thread; `with FakeModelAPI() as api: ...`."""

    reply: str = "OK."
    # (the tool name's ending, its arguments): see the module's docstring.
    tool_call: tuple[str, dict[str, Any]] | None = None
    # The prompt's token count reported to Gemini and Qwen: a large one makes
    # them compress the history (their compaction).
    prompt_tokens: int = 10
    requests: list[Request] = field(default_factory=list)
    stray: list[Request] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _counter: int = 0

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self, port: int = 0) -> FakeModelAPI:
        api = self

        class Handler(_Handler):
            owner = api

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeModelAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def model_requests(self) -> list[Request]:
        """The Messages and Responses requests, in order of arrival."""
        with self._lock:
            return [r for r in self.requests if _is_model_path(r.path.split("?")[0])]

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()
            self.stray.clear()

    def _record(self, request: Request, stray: bool) -> int:
        with self._lock:
            self.requests.append(request)
            if stray:
                self.stray.append(request)
            self._counter += 1
            return self._counter


_MODEL_PATHS = ("/v1/messages", "/v1/responses", "/v1/chat/completions")
# Gemini CLI's generateContent calls: /v1beta/models/<model>:<method>.
_GEMINI_MODEL_METHODS = (":generateContent", ":streamGenerateContent")


class _Handler(BaseHTTPRequestHandler):
    owner: FakeModelAPI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass  # the recorded requests are the log

    # -- plumbing -------------------------------------------------------------

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        text = raw.decode("utf-8", "replace")
        try:
            return json.loads(text)
        except ValueError:
            return text

    def _take(self, stray: bool = False) -> tuple[Request, int]:
        body = self._read_body() if self.command in ("POST", "PUT", "PATCH") else None
        request = Request(self.command, self.path, dict(self.headers.items()), body)
        return request, self.owner._record(request, stray)

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, data: bytes) -> None:
        """A whole stream of server-sent events, in one response."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_events(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        """Named server-sent events, as the Messages and Responses APIs send them."""
        self._send_stream(
            b"".join(
                f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
                for name, data in events
            )
        )

    def _send_data_events(self, chunks: list[dict[str, Any]], done: bool) -> None:
        """Server-sent events without event names, as Gemini's alt=sse and
        OpenAI's chat stream send them (the latter ends with [DONE])."""
        lines = [f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks]
        if done:
            lines.append("data: [DONE]\n\n")
        self._send_stream("".join(lines).encode())

    # -- routes ---------------------------------------------------------------

    def do_POST(self) -> None:  # noqa: N802 (the base's name)
        path = self.path.split("?")[0]
        if path == "/v1/messages":
            request, n = self._take()
            self._messages(request, n)
        elif path == "/v1/messages/count_tokens":
            request, _ = self._take()
            self._send_json(200, {"input_tokens": max(1, len(request.text()) // 4)})
        elif path == "/v1/responses":
            request, n = self._take()
            self._responses(request, n)
        elif path == "/v1/chat/completions":
            request, n = self._take()
            self._chat_completions(request, n)
        elif path.startswith("/v1beta/models/") and path.endswith(_GEMINI_MODEL_METHODS):
            request, n = self._take()
            self._gemini_generate(request, n, streamed=path.endswith(":streamGenerateContent"))
        elif path.startswith("/v1beta/models/") and path.endswith(":countTokens"):
            request, _ = self._take()
            self._send_json(200, {"totalTokens": max(1, len(request.text()) // 4)})
        else:
            self._take(stray=True)
            self._send_json(200, {})

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?")[0]
        if path == "/v1/models":
            self._take()
            self._send_json(200, {"object": "list", "data": [], "models": []})
        else:
            self._take(stray=True)
            self._send_json(404, {"error": {"type": "not_found", "message": "fake API"}})

    def do_HEAD(self) -> None:  # noqa: N802
        self._take(stray=True)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_CONNECT(self) -> None:  # noqa: N802
        # The CLIs are pointed at this server as their HTTPS proxy: whatever would
        # leave the machine arrives here, is recorded, and is refused.
        self._take(stray=True)
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    # -- the dialects ----------------------------------------------------------

    def _messages(self, request: Request, n: int) -> None:
        """The Messages API: the reply as one text block, or a tool call (see
        the module's docstring); one JSON message, or its stream of events."""
        body = request.body if isinstance(request.body, dict) else {}
        message_id = f"msg_fake_{n}"
        call = _call_to_make(self.owner, body)
        if call is None:
            text = self.owner.reply
            block: dict[str, Any] = {"type": "text", "text": text}
            opening, stop, output_tokens = {**block, "text": ""}, "end_turn", max(1, len(text) // 4)
            deltas = [{"type": "text_delta", "text": piece} for piece in _pieces(text)]
        else:
            name, arguments = call
            tool = {"type": "tool_use", "id": f"toolu_{message_id}", "name": name}
            block, opening, stop, output_tokens = (
                {**tool, "input": arguments},
                {**tool, "input": {}},
                "tool_use",
                10,
            )
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(arguments)}]
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": str(body.get("model") or "claude-fake"),
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": output_tokens},
        }
        if not body.get("stream"):
            self._send_json(200, message)
            return
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }
        events: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": start}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": opening},
            ),
        ]
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
            for delta in deltas
        ]
        events += [
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": output_tokens},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        self._send_events(events)

    def _responses(self, request: Request, n: int) -> None:
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model") or "gpt-fake")
        text = self.owner.reply
        response_id, item_id = f"resp_fake_{n}", f"msg_fake_{n}"
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": max(1, len(text) // 4),
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 10 + max(1, len(text) // 4),
        }
        base = {"id": response_id, "object": "response", "model": model, "output": []}
        item = {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        events: list[tuple[str, dict[str, Any]]] = [
            (
                "response.created",
                {
                    "type": "response.created",
                    "response": {**base, "status": "in_progress"},
                },
            ),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": {**item, "status": "in_progress", "content": []},
                },
            ),
        ]
        events += [
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item_id,
                    "output_index": 0,
                    "content_index": 0,
                    "delta": piece,
                },
            )
            for piece in _pieces(text)
        ]
        events += [
            (
                "response.output_item.done",
                {
                    "type": "response.output_item.done",
                    "output_index": 0,
                    "item": item,
                },
            ),
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {**base, "status": "completed", "output": [item], "usage": usage},
                },
            ),
        ]
        self._send_events(events)

    # -- OpenAI chat completions (GitHub Copilot CLI, opencode, Qwen Code) ------

    def _chat_completions(self, request: Request, n: int) -> None:
        """POST /v1/chat/completions: the scripted text as one choice, streamed as
        `data:` chunks ending in `data: [DONE]` when the request asks for a stream."""
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model") or "gpt-fake")
        text = self.owner.reply
        completion_id = f"chatcmpl-fake-{n}"
        prompt_tokens = self.owner.prompt_tokens
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": max(1, len(text) // 4),
            "total_tokens": prompt_tokens + max(1, len(text) // 4),
        }
        if not body.get("stream"):
            self._send_json(
                200,
                {
                    "id": completion_id,
                    "object": "chat.completion",
                    "created": 0,
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text},
                        }
                    ],
                    "usage": usage,
                },
            )
            return
        base = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
        }
        chunks: list[dict[str, Any]] = [
            {
                **base,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": ""},
                        "finish_reason": None,
                    }
                ],
            },
        ]
        chunks += [
            {**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            for piece in _pieces(text)
        ]
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        chunks.append({**base, "choices": [], "usage": usage})
        self._send_data_events(chunks, done=True)

    # -- Gemini CLI (issue 22) ---------------------------------------------------

    def _gemini_generate(self, request: Request, n: int, streamed: bool) -> None:
        """Gemini's generateContent (GOOGLE_GEMINI_BASE_URL): the reply as one
        model turn; streamed (alt=sse) in several chunks, the last with the
        finish reason."""
        text = self.owner.reply
        pieces = _pieces(text)
        output_tokens = max(1, len(text) // 4)
        usage = {
            "promptTokenCount": self.owner.prompt_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": self.owner.prompt_tokens + output_tokens,
        }

        def chunk(piece: str, last: bool) -> dict[str, Any]:
            candidate: dict[str, Any] = {
                "content": {"role": "model", "parts": [{"text": piece}]},
                "index": 0,
            }
            if last:
                candidate["finishReason"] = "STOP"
            out: dict[str, Any] = {"candidates": [candidate], "responseId": f"fake_{n}"}
            if last:
                out["usageMetadata"] = usage
            return out

        if not streamed:
            self._send_json(200, chunk(text, True))
            return
        self._send_data_events(
            [chunk(piece, k == len(pieces) - 1) for k, piece in enumerate(pieces)],
            done=False,
        )


def _is_model_path(path: str) -> bool:
    return path in _MODEL_PATHS or (
        path.startswith("/v1beta/models/") and path.endswith(_GEMINI_MODEL_METHODS)
    )


def _tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers (Messages: name; Responses: name,
    or a namespace's tools)."""
    names: list[str] = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            names.append(tool["name"])
    return names


def _has_tool_result(body: dict[str, Any]) -> bool:
    """Whether the request already carries a tool's result (the call was made)."""
    for message in body.get("messages") or []:  # Messages API
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(block, dict) and block.get("type") == "tool_result" for block in content
        ):
            return True
    return any(  # Responses API
        isinstance(item, dict) and item.get("type") == "function_call_output"
        for item in body.get("input") or []
    )


def _call_to_make(owner: FakeModelAPI, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(tool name, arguments) when this request is to be answered with a tool call."""
    if owner.tool_call is None or _has_tool_result(body):
        return None
    ending, arguments = owner.tool_call
    for name in _tool_names(body):
        if name.endswith(ending):
            return name, arguments
    return None


def _pieces(text: str, size: int = 200) -> list[str]:
    """The reply in several deltas, as a real stream comes."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


if __name__ == "__main__":
    server = FakeModelAPI().start(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
