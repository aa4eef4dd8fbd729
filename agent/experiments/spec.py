"""What an A/B experiment is: the variants (pages or page sequences), who sees them, how often, with which brain.

One validated shape for the API body, a YAML file and a JSON file alike; every size is bounded here so a
bad spec fails before any work starts. See docs/experiments.md for annotated examples.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agent.allowed_hosts import HTTP_URL_PATTERN, UrlRefused, browser_url
from agent.brains.names import BrainName, KnownBrain
from agent.history import Step
from agent.tasks import Task
from personas.population import TRAITS, PopulationSpec

MAX_PAGES_PER_VARIANT = 10
MAX_LIVE_STEPS = 100
_NAME = re.compile(r"^[A-Za-z0-9_.\- ]{1,64}$")


class SpecError(ValueError):
    """A spec file cannot be read or is invalid; the message names the file and the field."""


class PageSpec(BaseModel):
    """One page, given in exactly one way."""

    model_config = ConfigDict(extra="forbid")

    simplified_html: str | None = Field(
        None,
        description="OPeRA simplified HTML (elements carry name= semantic ids); "
        "a page with no named element is refused, there being nothing a twin could do.",
        json_schema_extra={"pattern": r"[nN][aA][mM][eE]\s*="},
    )
    html: str | None = Field(None, description="Raw HTML, simplified to the OPeRA form before twins read it.")
    path: str | None = Field(None, description="A file (simplified or raw HTML), relative to the spec file. CLI only.")
    url: str | None = Field(
        None,
        max_length=8192,
        description="An http or https address (read as a browser reads it), fetched once, then simplified.",
        json_schema_extra={"pattern": HTTP_URL_PATTERN},
    )
    page_url: str | None = Field(
        None,
        max_length=8192,
        description="The address twins see for this page (a search URL names the query); defaults to `url`.",
    )
    format: Literal["auto", "simplified", "raw"] = Field(
        "auto", description="For path/url pages: auto-detects OPeRA simplified HTML by its name= ids."
    )

    @model_validator(mode="after")
    def _exactly_one_source(self) -> PageSpec:
        given = [k for k in ("simplified_html", "html", "path", "url") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError(
                "a page needs exactly one of simplified_html, html, path or url"
                + (f" (got {', '.join(given)})" if given else " (got none)")
            )
        if self.url:  # read as a browser reads it, as every URL the service fetches or browses (agent/allowed_hosts.py)
            try:
                browser_url(self.url)
            except UrlRefused as error:
                raise ValueError(f"page url: {error}") from None
        return self


def _page_shorthand_in_schema(schema: dict) -> None:
    """`page:` is read as `pages: [page]` before validation (below); the schema says so, so clients may send it."""
    schema["properties"]["page"] = {
        **schema["properties"]["pages"]["items"],
        "description": "One page: shorthand for `pages: [page]`.",
    }
    # and what the validator below holds a variant to: a page, pages or a live site, exactly one of them
    page, pages, live = (
        {"required": ["page"], "properties": {"page": {"type": "object"}}},
        {"required": ["pages"], "properties": {"pages": {"type": "array", "minItems": 1}}},
        {"required": ["live_url"], "properties": {"live_url": {"type": "string"}}},
    )
    schema["anyOf"] = [page, pages, live]
    schema["not"] = {"anyOf": [{"required": ["page", "pages"]}, {"allOf": [live, pages]}, {"allOf": [live, page]}]}


class VariantSpec(BaseModel):
    """A variant is one page, a sequence the twin walks through (page 1, then page 2 with its history...), or a
    live site (`live_url`) each twin browses in headless Chromium for up to `max_steps` actions."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_page_shorthand_in_schema)

    name: str = Field(
        ...,
        min_length=1,
        max_length=64,
        description="Short name, e.g. A, B, control, banner: letters, digits, spaces, '_', '.' or '-'.",
        json_schema_extra={"pattern": _NAME.pattern},  # checked below, with a plainer message
    )
    pages: list[PageSpec] = Field(default_factory=list, max_length=MAX_PAGES_PER_VARIANT)
    live_url: str | None = Field(
        None,
        max_length=4096,
        description="A live site twins browse step by step (http or https, read as a browser reads it), instead of "
        "pages; it must answer when the experiment is submitted.",
        json_schema_extra={"pattern": HTTP_URL_PATTERN},  # the scheme; the rest is judged as Chromium parses it
    )
    max_steps: int = Field(10, ge=1, le=MAX_LIVE_STEPS, description="Actions per twin at most on a live_url variant.")
    description: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _page_shorthand(cls, data: Any) -> Any:
        if isinstance(data, dict) and "page" in data:
            data = dict(data)
            page = data.pop("page")
            if "pages" in data:
                raise ValueError("give either page or pages, not both")
            data["pages"] = [page] if page is not None else []
        if isinstance(data, dict):
            name = data.get("name", "?")
            if data.get("live_url") is not None and data.get("pages"):
                raise ValueError(f"variant '{name}' gives both live_url and pages; a variant is one or the other")
            if data.get("live_url") is None and not data.get("pages"):
                raise ValueError(f"variant '{name}' has no page (give page:, pages: or live_url:)")
        return data

    @field_validator("live_url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        if url is None:
            return None
        try:
            browser_url(url.strip())
        except UrlRefused as error:
            raise ValueError(f"live_url: {error}") from None
        return url.strip()

    @property
    def live(self) -> bool:
        return self.live_url is not None

    @property
    def predictions_per_twin(self) -> int:
        """The most predictions one twin makes on this variant: one per page, or one per live step."""
        return self.max_steps if self.live else len(self.pages)

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("variant names are 1-64 letters, digits, spaces, '_', '.' or '-'")
        return value


class ExperimentSpec(BaseModel):
    """An A/B (or A/B/n) test of page variants on a population of twins. The first variant is the control."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., min_length=1, max_length=200)
    description: str | None = Field(None, max_length=5_000)
    variants: list[VariantSpec] = Field(..., min_length=2, max_length=10)
    population: PopulationSpec = Field(default_factory=PopulationSpec)
    samples_per_persona: int = Field(1, ge=1, le=100, description="Seeded instances per persona (sampling mode).")
    history: list[Step] = Field(
        default_factory=list,
        max_length=50,
        description="What every twin did before the first page (e.g. typed a query).",
    )
    brain: KnownBrain = Field(BrainName.EMBEDDED, description="embedded (offline, default), llm, or a baseline.")
    model: str | None = Field(None, description="litellm model for brain=llm, e.g. openai/gpt-4.1-mini.")
    task: Task | None = Field(
        None,
        description="What every twin came to do (a goal in words, or {goal, success}); "
        "with success criteria, the results say who reached it on each variant.",
    )
    targets: list[str] = Field(
        default_factory=list, max_length=50, description="Element names whose click rate is measured."
    )
    segments: list[str] = Field(default_factory=list, max_length=10, description="Traits outcomes are broken down by.")
    seed: int = Field(0, ge=0, le=2**63 - 1)
    budget_usd: float | None = Field(
        None, ge=0, le=10_000, description="Cap on the LLM spend; refused or stopped above it."
    )
    concurrency: int = Field(8, ge=1, le=256, description="LLM calls in flight.")
    allow_fallback: bool = Field(
        False,
        strict=True,
        description="brain=llm: run even when the provider fails its probe call "
        "(decisions then come from the embedded fallback, counted in the results).",
    )
    max_predictions: int = Field(
        200_000, ge=1, le=1_000_000, description="Refuse specs that would need more predictions."
    )

    @field_validator("variants")
    @classmethod
    def _unique_names(cls, value: list[VariantSpec]) -> list[VariantSpec]:
        names = [v.name for v in value]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"variant names must be unique (repeated: {', '.join(duplicates)})")
        return value

    @field_validator("segments")
    @classmethod
    def _known_segments(cls, value: list[str]) -> list[str]:
        unknown = [t for t in value if t not in TRAITS]
        if unknown:
            raise ValueError(f"unknown segment trait(s) {unknown}; known traits: {', '.join(TRAITS)}")
        return value

    @property
    def variant_names(self) -> list[str]:
        return [v.name for v in self.variants]

    @property
    def live_variants(self) -> dict[str, VariantSpec]:
        return {v.name: v for v in self.variants if v.live}

    def predictions_needed(self, personas: int) -> int:
        """The most predictions the run can make (sequences may stop early)."""
        return personas * self.samples_per_persona * sum(v.predictions_per_twin for v in self.variants)


def parse_spec(data: object, source: str = "spec") -> ExperimentSpec:
    try:
        return ExperimentSpec.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}"
            for e in error.errors(include_url=False, include_input=False)
        )
        raise SpecError(f"{source}: invalid experiment spec: {problems}") from None


def load_spec(path: Path | str) -> ExperimentSpec:
    """Read a spec from YAML (.yaml/.yml) or JSON (anything else that parses as JSON)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise SpecError(f"{path}: {error.strerror or error}") from None
    from agent.experiments.spec_text import SpecTextError, read_mapping

    try:
        data = read_mapping(path, text)
    except SpecTextError as error:
        raise SpecError(str(error)) from None
    return parse_spec(data, str(path))
