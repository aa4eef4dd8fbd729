"""Prometheus metrics of one API process: request latency by route, predictions, fallbacks, LLM spend.

Recorded on the service side from what the routes already return (a `Prediction` carries its brain,
fallback and usage), so agent/ knows nothing of Prometheus. Each app has its own registry: two apps in
one process (tests) never clash, and one process is one scrape target (run one uvicorn worker per pod).
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

from agent.prediction import Prediction

# Seconds: the embedded brain answers in milliseconds, an LLM in seconds.
_LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class ServiceMetrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.request_seconds = Histogram(
            "twinsim_http_request_duration_seconds",
            "HTTP request latency by route template.",
            ["method", "route"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.requests = Counter(
            "twinsim_http_requests",
            "HTTP responses by route template and status.",
            ["method", "route", "status"],
            registry=r,
        )
        self.predictions = Counter(
            "twinsim_predictions",
            "Predictions served, by the brain that answered and the one asked for.",
            ["brain", "requested_brain"],
            registry=r,
        )
        self.fallbacks = Counter(
            "twinsim_fallbacks",
            "Predictions answered by the embedded fallback instead of the brain asked for.",
            ["requested_brain"],
            registry=r,
        )
        self.llm_tokens = Counter("twinsim_llm_tokens", "LLM tokens spent by predictions.", ["kind"], registry=r)
        self.llm_calls = Counter("twinsim_llm_calls", "Paid LLM calls made by predictions.", registry=r)
        self.llm_cost = Counter(
            "twinsim_llm_cost_usd", "LLM cost of predictions in US dollars (litellm's price map).", registry=r
        )
        self.rate_limited = Counter(
            "twinsim_rate_limited_requests", "Requests refused with 429 by the per-key rate limit.", registry=r
        )

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.request_seconds.labels(method, route).observe(seconds)
        self.requests.labels(method, route, str(status)).inc()

    def observe_prediction(self, prediction: Prediction) -> None:
        self.predictions.labels(prediction.brain, prediction.requested_brain).inc()
        if prediction.fallback_used:
            self.fallbacks.labels(prediction.requested_brain).inc()
        usage = prediction.usage
        if usage.calls:
            self.llm_calls.inc(usage.calls)
            self.llm_tokens.labels("prompt").inc(usage.prompt_tokens)
            self.llm_tokens.labels("completion").inc(usage.completion_tokens)
            self.llm_cost.inc(max(0.0, usage.cost_usd))

    def exposition(self) -> tuple[bytes, str]:
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
