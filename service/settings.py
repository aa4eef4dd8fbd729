"""All service settings in one place, read from TWINSIM_* environment variables (or a .env file)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent.allowed_hosts import LOOPBACK, PUBLIC, HostAllowList
from agent.brains.names import BrainName, KnownBrain
from agent.llm.answer_schema import StructuredOutput
from agent.page.shape import (
    DEFAULT_MAX_ATTRIBUTES,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_ELEMENT_ATTRIBUTES,
    DEFAULT_MAX_ELEMENTS,
    PageShapeLimits,
)
from agent.predict_options import GroundingStrategy, PromptStyle, VisionPolicy
from agent.screenshots import (
    DEFAULT_MAX_SCREENSHOT_BYTES,
    DEFAULT_MAX_SCREENSHOT_PIXELS,
    ScreenshotLimits,
)
from service.tenancy import parse_keys


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TWINSIM_", env_file=".env", extra="ignore")

    data_dir: Path = Field(Path(".twinsim"), description="Where the embedded Chroma store and run artefacts live.")
    chroma_url: str | None = Field(None, description="A Chroma server (http://host:port); embedded store when unset.")
    api_key: SecretStr | None = Field(
        None,
        description="When set, every request but /healthz, /livez and /metrics needs X-API-Key or a Bearer token; "
        "several keys: comma-separated, each KEY (default tenant), KEY:TENANT or KEY:* (admin, every "
        "tenant).",
    )
    max_page_bytes: int = Field(2_000_000, ge=1_000, description="Largest page accepted by /predict (413 beyond).")
    max_page_depth: int = Field(
        DEFAULT_MAX_DEPTH,
        ge=16,
        le=4096,
        description="Deepest element nesting of a page (413 beyond): parsing time grows with depth x elements.",
    )
    max_page_elements: int = Field(
        DEFAULT_MAX_ELEMENTS, ge=100, le=2_000_000, description="Most elements in a page (413 beyond)."
    )
    max_element_attributes: int = Field(
        DEFAULT_MAX_ELEMENT_ATTRIBUTES,
        ge=10,
        le=20_000,
        description="Most attributes on one element (413 beyond): parsing time grows with their square.",
    )
    max_page_attributes: int = Field(
        DEFAULT_MAX_ATTRIBUTES, ge=100, le=2_000_000, description="Most attributes in a page (413 beyond)."
    )
    default_brain: KnownBrain = Field(
        BrainName.EMBEDDED, description="The brain /predict uses when a request names none."
    )
    behaviour_params: Path | None = Field(
        None, description="The embedded brain's parameters (from `twinsim calibrate`); the shipped file when unset."
    )
    llm_model: str | None = Field(
        None, description="Default litellm model for brain=llm, e.g. openai/gpt-4.1 or ollama/llama3."
    )
    llm_api_base: str | None = Field(
        None, description="Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8001/v1."
    )
    llm_api_key: SecretStr | None = Field(
        None, description="Key for the LLM provider (else the provider's own env var)."
    )
    llm_timeout_s: float = Field(30.0, gt=0, le=600)
    llm_retries: int = Field(2, ge=0, le=10)
    llm_concurrency: int = Field(8, ge=1, le=256)
    llm_provider_limit: int = Field(
        8,
        ge=1,
        le=1024,
        description="LLM calls in flight at once to one provider from this process, whichever client or run makes "
        "them (agent/llm/provider_slots.py); on Ray, shared by all workers (agent/llm/cluster_slots.py).",
    )
    llm_provider_limits: dict[str, int] = Field(
        default_factory=dict,
        description='Per-provider overrides of llm_provider_limit, JSON: {"openai": 4, "http://127.0.0.1:8001": 1} '
        "(a litellm provider prefix, or an api_base's scheme://host:port).",
    )
    llm_prompt_style: PromptStyle = Field(
        "twinsim",
        description="The LLM brain's prompt: twinsim's own, or the OPeRA paper's protocol (opera_protocol: next action "
        "only; opera_protocol_rationale: rationale and action). Per request: options.prompt_style.",
    )
    llm_grounding: GroundingStrategy = Field(
        "names",
        description="How the LLM names an element: names, textual_choices, set_of_marks or both (SeeAct, arXiv "
        "2401.01614). Per request: options.grounding.",
    )
    llm_vision: VisionPolicy = Field(
        "auto",
        description="Send the page's screenshot to the LLM: auto (when litellm says the model takes images), always, "
        "never. Per request: options.vision.",
    )
    llm_structured_output: StructuredOutput = Field(
        "auto",
        description="Ask the model server for a schema-constrained answer whose element can only be one this page "
        "lists: llama_cpp (llama.cpp's json_object + schema), json_schema (OpenAI's form, through "
        "litellm), off (free text, parsed, one retry), auto (json_schema where litellm knows the hosted "
        "model supports it, else off).",
    )
    llm_context_tokens: int | None = Field(
        None,
        ge=256,
        le=10_000_000,
        description="The model's context size in tokens (what the server was started with: `twinsim llm serve "
        "--context`); when set, each prompt is measured with the server's tokenizer and its page cut to "
        "fit, or refused before the call.",
    )
    max_screenshot_bytes: int = Field(
        DEFAULT_MAX_SCREENSHOT_BYTES,
        ge=10_000,
        le=50_000_000,
        description="Largest screenshot /predict accepts, decoded (422 beyond).",
    )
    max_screenshot_pixels: int = Field(
        DEFAULT_MAX_SCREENSHOT_PIXELS,
        ge=10_000,
        le=200_000_000,
        description="Most pixels (width x height) of a screenshot /predict accepts (422 beyond).",
    )
    log_level: str = Field("info")
    chroma_timeout_s: float = Field(
        30.0, gt=0, le=600, description="Per-request timeout towards a Chroma server (its client has none)."
    )
    rate_limit_per_s: float | None = Field(
        None, gt=0, description="Requests per second allowed per API key (or client address); unset: no limit."
    )
    rate_limit_burst: int | None = Field(
        None, ge=1, description="Bucket size: requests allowed at once before the rate applies; default 2 s worth."
    )
    shutdown_grace_s: float = Field(
        20.0,
        ge=0,
        le=600,
        description="On SIGTERM, how long in-flight requests may still take before they are cancelled.",
    )
    allowed_hosts: str | None = Field(
        None,
        description="Hosts the service may fetch or browse for a caller (experiment pages, simulations): names, "
        "*.domain, IPs, CIDR networks and `public` (every public address), comma-separated. Unset: "
        "loopback for local use; public hosts only when API keys are set (a shared service).",
    )
    executor: Literal["inprocess", "ray"] = Field(
        "inprocess",
        description="Where experiments run embedded-brain twins and live simulations run their twins' sessions: in "
        "this process, or as Ray tasks.",
    )
    ray_address: str | None = Field(
        None,
        description="With executor=ray: the Ray head (host:port, ray://host:10001 or auto); a local Ray when unset.",
    )

    @field_validator("api_key")
    @classmethod
    def _keys_parse(cls, secret: SecretStr | None) -> SecretStr | None:
        if secret is not None:
            parse_keys(secret.get_secret_value())  # a bad tenant name is a settings error at start-up
        return secret

    @field_validator("llm_provider_limits")
    @classmethod
    def _limits_positive(cls, limits: dict[str, int]) -> dict[str, int]:
        bad = {k: n for k, n in limits.items() if n < 1}
        if bad:
            raise ValueError(f"a provider's limit must be at least 1: {bad}")
        return limits

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts_parse(cls, text: str | None) -> str | None:
        if text is not None:
            HostAllowList.parse(text)  # a bad entry is a settings error naming it
        return text

    @property
    def host_allow_list(self) -> HostAllowList:
        """The operator's list; else a shared service (API keys set) reaches public hosts only, never its own
        network (Chroma, Ray's dashboard, metrics), and local use reaches loopback (the demo shop, the README)."""
        if self.allowed_hosts is not None:
            return HostAllowList.parse(self.allowed_hosts)
        return HostAllowList.parse(PUBLIC if self.api_key is not None else LOOPBACK)

    @field_validator("behaviour_params")
    @classmethod
    def _params_file_usable(cls, path: Path | None) -> Path | None:
        if path is not None and not path.is_file():
            raise ValueError(f"no behaviour parameters file at {path} (make one with `twinsim calibrate --out {path}`)")
        if path is not None:
            from agent.behaviour.params import (
                load_params,  # parsed once per process; a bad file fails here, clearly
            )

            load_params(path)  # BehaviourParamsError is a ValueError: a settings error with its reason
        return path

    @property
    def screenshot_limits(self) -> ScreenshotLimits:
        return ScreenshotLimits(max_bytes=self.max_screenshot_bytes, max_pixels=self.max_screenshot_pixels)

    @property
    def page_limits(self) -> PageShapeLimits:
        return PageShapeLimits(
            max_depth=self.max_page_depth,
            max_elements=self.max_page_elements,
            max_element_attributes=self.max_element_attributes,
            max_attributes=self.max_page_attributes,
        )

    @cached_property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"
