"""Counting a prompt in the model's own tokens, by asking the server that runs the model.

Why the server: its tokenizer is the model's, so the count is exact, and nothing is downloaded here. Two routes
exist on the servers twinsim starts or meets: llama-cpp-python's `POST /extras/tokenize/count` ({"input"} ->
{"count"}) and llama.cpp's own `POST /tokenize` ({"content"} -> {"tokens"}). Which one answers is learnt once per
server. A server with neither gives None, and the caller keeps its estimate (chars / 4).

The chat template adds a few tokens per message (role markers); MESSAGE_OVERHEAD_TOKENS covers them.
"""

from __future__ import annotations

import httpx

MESSAGE_OVERHEAD_TOKENS = 8


def messages_text(messages: list[dict]) -> str:
    """The text parts of the messages, one after the other (images are not counted: a text model gets none)."""
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return "\n".join(parts)


class TokenCounter:
    """Counts text on the server at `api_base` (".../v1"); remembers which route it has."""

    def __init__(self, api_base: str, timeout_s: float = 10.0) -> None:
        self.root = api_base.rstrip("/").removesuffix("/v1")
        self.timeout_s = timeout_s
        self.route: str | None = None  # learnt on first use; "" when the server has no tokenizer route

    async def count(self, text: str, model: str | None = None) -> int | None:
        async with httpx.AsyncClient(timeout=self.timeout_s) as http:
            routes = [self.route] if self.route else ["/extras/tokenize/count", "/tokenize"]
            if self.route == "":
                return None
            for route in routes:
                body = (
                    {"input": text, **({"model": model} if model else {})}
                    if route.startswith("/extras")
                    else {"content": text}
                )
                try:
                    response = await http.post(self.root + route, json=body)
                except httpx.HTTPError:
                    return None  # the call itself will report an unreachable server
                count = _count_in(response, route)
                if count is None:
                    continue
                self.route = route
                return count
            self.route = ""
            return None

    async def count_messages(self, messages: list[dict], model: str | None = None) -> int | None:
        tokens = await self.count(messages_text(messages), model)
        return None if tokens is None else tokens + MESSAGE_OVERHEAD_TOKENS * len(messages)


def _count_in(response: httpx.Response, route: str) -> int | None:
    """The count in a tokenizer route's answer; None for anything else (another server's 404, a chat reply)."""
    if response.status_code != 200:
        return None
    try:
        data = response.json()
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if route.startswith("/extras"):
        count = data.get("count")
        return count if isinstance(count, int) and not isinstance(count, bool) else None
    tokens = data.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None
