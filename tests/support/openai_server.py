"""A real OpenAI-compatible chat-completions server on loopback, scriptable by tests and benchmarks.

Why a real server rather than litellm's `mock_response`: the mock skips HTTP, so it cannot show that
retries, timeouts, concurrency limits, usage accounting and prompt delivery work. This server speaks
`POST /v1/chat/completions` and `GET /v1/models` over real sockets (stdlib `http.server`, one thread
per request), records every request body, and answers from a queue of scripted replies, then from an
optional policy callable, then from a default reply.

    with OpenAICompatibleServer() as srv:
        srv.enqueue('{"rationale": "...", "action": {"type": "terminate"}}', ("status", 500))
        ... call srv.base_url ...
        srv.requests[0]["messages"]

Reply shorthands accepted by `enqueue` and `default_reply`:
    "text"                      -> 200 with that assistant content
    ("status", 500)             -> that HTTP status with an OpenAI-style error body
    ("sleep", 2.0, "text")      -> wait 2 s, then answer "text"
    ("garbage", "not json")     -> 200 whose body is that raw, non-JSON text
    Reply(...)                  -> full control (content, status, delay, raw body, usage)

Run standalone for benchmarks or manual checks: `python -m tests.support.openai_server --port 8089`.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_CONTENT = '{"rationale": "I have what I came for, so I am leaving.", "action": {"type": "terminate"}}'
DEFAULT_MODEL_IDS = ("twin-test",)


@dataclass(frozen=True)
class Reply:
    """One scripted answer. `usage` is (prompt_tokens, completion_tokens); None estimates it from lengths."""

    content: str = DEFAULT_CONTENT
    status: int = 200
    delay_s: float = 0.0
    raw_body: str | None = None
    usage: tuple[int, int] | None = None


ReplySpec = str | tuple | Reply
Policy = Callable[[dict], ReplySpec]


def to_reply(spec: ReplySpec) -> Reply:
    """Turn a shorthand (see module docstring) into a Reply; unknown shapes fail loudly at enqueue time."""
    if isinstance(spec, Reply):
        return spec
    if isinstance(spec, str):
        return Reply(content=spec)
    if isinstance(spec, tuple) and spec:
        kind = spec[0]
        if kind == "status" and len(spec) == 2:
            return Reply(status=int(spec[1]), content="")
        if kind == "sleep" and len(spec) == 3:
            return Reply(delay_s=float(spec[1]), content=str(spec[2]))
        if kind == "garbage" and len(spec) == 2:
            return Reply(raw_body=str(spec[1]))
    raise ValueError(
        f"unknown reply spec {spec!r}; use a string, ('status', code), ('sleep', s, text), ('garbage', text) or Reply"
    )


def estimate_tokens(text: str) -> int:
    """Chars/4, the same rough rule the prompt trimmer uses; real servers count with their tokenizer."""
    return max(1, (len(text) + 3) // 4) if text else 0


class OpenAICompatibleServer:
    """An OpenAI chat-completions endpoint on 127.0.0.1:<free port>, started in a background thread.

    `record_requests=False` with no delays is the zero-latency mode for benchmarks: nothing is kept
    per request, so long runs do not grow memory.
    """

    def __init__(
        self,
        default_reply: ReplySpec = DEFAULT_CONTENT,
        policy: Policy | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        record_requests: bool = True,
        model_ids: tuple[str, ...] = DEFAULT_MODEL_IDS,
    ) -> None:
        self.default_reply = to_reply(default_reply)
        self.policy = policy
        self.record_requests = record_requests
        self.model_ids = model_ids
        self.requests: list[dict] = []
        self.completions_served = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd = ThreadingHTTPServer((host, port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAICompatibleServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; sleeping handlers wake at once so shutdown never waits on a scripted delay."""
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> OpenAICompatibleServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    # -- scripting -------------------------------------------------------------------------------
    def enqueue(self, *replies: ReplySpec) -> None:
        """Queue replies, served in order (one per chat-completion request) before policy/default."""
        converted = [to_reply(r) for r in replies]
        with self._lock:
            self._queue.extend(converted)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.completions_served = 0
            self.max_in_flight = 0

    # -- used by the handler ---------------------------------------------------------------------
    def _next_reply(self, body: dict) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.policy is not None:
            return to_reply(self.policy(body))
        return self.default_reply

    def _enter(self, body: dict) -> None:
        with self._lock:
            if self.record_requests:
                self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self.completions_served += 1

    def _completion_body(self, body: dict, reply: Reply) -> dict:
        if reply.usage is not None:
            prompt_tokens, completion_tokens = reply.usage
        else:
            prompt_text = "".join(_message_text(m) for m in body.get("messages", []))
            prompt_tokens, completion_tokens = estimate_tokens(prompt_text), estimate_tokens(reply.content)
        return {
            "id": f"chatcmpl-twinsim-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", self.model_ids[0])),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _message_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _make_handler(server: OpenAICompatibleServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real providers do

        def log_message(self, format: str, *args) -> None:
            return  # quiet: tests and benchmarks read server.requests, not stderr

        def do_GET(self) -> None:
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                data = [
                    {"id": m, "object": "model", "created": 0, "owned_by": "twinsim-tests"} for m in server.model_ids
                ]
                self._send_json(200, {"object": "list", "data": data})
            else:
                self._send_json(404, _error_body(404, f"no route GET {self.path}"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send_json(404, _error_body(404, f"no route POST {self.path}"))
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send_json(400, _error_body(400, "request body is not JSON"))
                return
            server._enter(body)
            try:
                reply = server._next_reply(body)
                if reply.delay_s > 0 and server._stopping.wait(reply.delay_s):
                    return  # server is shutting down: drop the connection
                if reply.raw_body is not None:
                    self._send_raw(200, reply.raw_body.encode(), "application/json")
                elif reply.status != 200:
                    self._send_json(reply.status, _error_body(reply.status, "scripted failure"))
                else:
                    self._send_json(200, server._completion_body(body, reply))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (e.g. its timeout fired); nothing to answer
            finally:
                server._leave()

        def _send_json(self, status: int, payload: dict) -> None:
            self._send_raw(status, json.dumps(payload).encode(), "application/json")

        def _send_raw(self, status: int, data: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _error_body(status: int, message: str) -> dict:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "error"
    return {
        "error": {
            "message": f"{message} ({phrase})",
            "type": "server_error" if status >= 500 else "invalid_request_error",
            "code": status,
        }
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve a scriptless OpenAI-compatible endpoint (default reply only).")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--content", default=DEFAULT_CONTENT, help="assistant content of every reply")
    args = parser.parse_args()
    with OpenAICompatibleServer(args.content, port=args.port, record_requests=False) as srv:
        print(srv.base_url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
