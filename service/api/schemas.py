"""Request and response bodies of the HTTP API, in one place (separate from storage and agent types, but for the
experiment spec: see ExperimentRequest)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Body
from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent.allowed_hosts import HTTP_URL_PATTERN
from agent.brains.names import BrainName, KnownBrain
from agent.experiments.spec import ExperimentSpec
from agent.history import Step
from agent.interview import MAX_QUESTION_CHARS
from agent.predict_options import GroundingStrategy, VisionPolicy
from agent.prediction_input import PredictionInput
from agent.screenshots import Screenshot
from agent.simulation.checkout_details import CheckoutDetails
from agent.simulation.config import MAX_STEPS_LIMIT, default_concurrency
from agent.tasks import Task
from personas.persona import PersonaId

_EXAMPLE_PAGE = (
    '<html><body><div name="nav_bar"><input name="nav_bar.search_input" type="text" value="usb c cable">'
    '<input name="nav_bar.search_button" type="submit" value="Go"></div>'
    '<div name="search_results.anker_usb_c_cable_6ft"><a name="search_results.anker_usb_c_cable_6ft.product_name">'
    'Anker USB C Cable, 6ft</a><span name="search_results.anker_usb_c_cable_6ft.product_price">$12.99</span>'
    '<button name="search_results.anker_usb_c_cable_6ft.add_to_cart">Add to cart</button></div></body></html>'
)


class ScreenshotIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base64: str | None = Field(
        None,
        min_length=1,
        max_length=70_000_000,
        description="The page as a PNG, JPEG or WebP image, base64 "
        "(or a data: URL); at most TWINSIM_MAX_SCREENSHOT_BYTES decoded (5 MB) and "
        "TWINSIM_MAX_SCREENSHOT_PIXELS pixels, read from its header; decoded in "
        "full only for a brain that looks at it.",
    )
    url: str | None = Field(
        None,
        max_length=2048,
        description="A screenshot this service took in one of your "
        "simulations: /simulations/{id}/screenshots/{persona}/step_NNN.png (a path, or on this "
        "service's address). No other URL is accepted, and nothing is fetched.",
    )

    @model_validator(mode="after")
    def _one_source(self) -> ScreenshotIn:
        if (self.base64 is None) == (self.url is None):
            raise ValueError("send the screenshot once: base64 or url")
        return self


class PredictRequest(PredictionInput):
    """The API's view of a prediction's input: the person by id (required here) and the screenshot as sent."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "persona_id": "7f0c8207-6a6f-49cd-9d7e-17987cfafcb9",
                    "page": {"simplified_html": _EXAMPLE_PAGE, "url": "https://www.amazon.com/s?k=usb+c+cable"},
                    "history": [
                        {
                            "action": {"type": "input", "name": "nav_bar.search_input", "text": "usb c cable"},
                            "rationale": "I need a longer cable for my desk.",
                        },
                        {"action": {"type": "click", "name": "nav_bar.search_button"}},
                    ],
                    "brain": "embedded",
                }
            ]
        },
    )

    persona_id: PersonaId
    history: list[Step] = Field(
        default_factory=list, max_length=500, description="Steps 1..t-1, oldest first (at most 500 in one request)."
    )
    brain: KnownBrain | None = Field(
        None, description="The brain that decides; TWINSIM_DEFAULT_BRAIN (embedded) when unset."
    )
    screenshot: ScreenshotIn | None = Field(  # type: ignore[assignment]  # the wire form (base64 or URL); to_input checks it into a Screenshot
        None,
        description="The page as a picture, for the LLM brain with a model "
        "that takes images (options.vision); the embedded brain ignores it, and "
        "the response's details say so.",
    )

    def to_input(self, screenshot: Screenshot | None) -> PredictionInput:
        """The agent's input: this request's fields as they are, with its screenshot checked (`screenshot`)."""
        fields = {name: getattr(self, name) for name in PredictionInput.model_fields if name != "screenshot"}
        return PredictionInput(**fields, screenshot=screenshot)


class MemoryIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"text": "I returned the 3ft cable: too short.", "kind": "event"}]},
    )

    text: str = Field(..., min_length=1, max_length=20_000)
    kind: Literal["event", "interview", "preference", "profile"] = "event"


class SimulationRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"url": "http://127.0.0.1:8100/", "personas": ["sam-chen"], "max_steps": 10, "seed": 0}],
            # twins to run: named personas, or all: true (the service refuses a simulation of nobody)
            "anyOf": [
                {"required": ["personas"], "properties": {"personas": {"minItems": 1}}},
                {"required": ["all"], "properties": {"all": {"const": True}}},
            ],
        },
    )

    url: str = Field(
        ...,
        max_length=4096,
        description="Where every twin starts (http or https, read as a browser reads it); it must answer, on an "
        "allowed host (TWINSIM_ALLOWED_HOSTS), when the simulation is submitted.",
        json_schema_extra={"pattern": HTTP_URL_PATTERN},
    )
    personas: list[str] = Field(default_factory=list, max_length=500, description="Persona ids.")
    all: bool = Field(False, strict=True, description="Every stored persona instead of `personas`.")
    max_steps: int = Field(10, ge=1, le=MAX_STEPS_LIMIT)
    brain: KnownBrain = BrainName.EMBEDDED
    model: str | None = None
    seed: int = Field(0, ge=0, le=2**32 - 1)
    screenshots: bool = Field(False, strict=True, description="Save a screenshot before each action.")
    vision: VisionPolicy | None = Field(
        None,
        description="brain=llm: show the model each step's screenshot 'auto' "
        "(when litellm says it takes images), 'always' or 'never'; unset: "
        "TWINSIM_LLM_VISION.",
    )
    grounding: GroundingStrategy | None = Field(
        None, description="brain=llm: names, textual_choices, set_of_marks or both; unset: TWINSIM_LLM_GROUNDING."
    )
    concurrency: int = Field(
        default_factory=default_concurrency,
        ge=1,
        le=16,
        description="Twins browsing at once; unset: one more than the cores (at least 2).",
    )
    task: Task | None = Field(
        None,
        description="What every twin came to do: a goal in words, or {goal, success}; "
        "with success criteria, the results say who reached it and at which step.",
    )
    checkout_details: CheckoutDetails | None = Field(
        default_factory=CheckoutDetails,
        description="Made-up TEST details twins that go on with their order enter "
        "into a checkout form's required fields (the results list every field filled); null: twins stop at forms.",
    )


_EXPERIMENT_EXAMPLE = {
    "name": "Deal banner instead of reviews",
    "variants": [
        {
            "name": "A",
            "pages": [
                {
                    "simplified_html": "<html>... the product page ...</html>",
                    "page_url": "https://www.amazon.com/dp/B0TWINSIM1",
                }
            ],
        },
        {
            "name": "B",
            "pages": [
                {
                    "simplified_html": "<html>... with the banner ...</html>",
                    "page_url": "https://www.amazon.com/dp/B0TWINSIM1",
                }
            ],
        },
    ],
    "population": {"filters": {"prime": True}, "sample": 30, "strata": ["conscientiousness"], "seed": 1},
    "samples_per_persona": 20,
    "targets": ["deal_banner"],
    "segments": ["conscientiousness"],
    "seed": 42,
}

# POST /experiments takes the experiment spec itself, the one shape a YAML or JSON spec file holds too: the API
# and `twinsim experiment run` accept the same specs and refuse the same ones for the same reasons. A model of
# its own here would be a second definition of the spec to keep in step with agent/experiments/spec.py.
ExperimentRequest = Annotated[
    ExperimentSpec,
    Body(
        openapi_examples={
            "deal_banner": {"summary": "Reviews (A) against a deal banner instead (B)", "value": _EXPERIMENT_EXAMPLE}
        }
    ),
]


class SampleRef(BaseModel):
    """A twin run of an experiment, and optionally one of its steps (without one: the run's last decision)."""

    model_config = ConfigDict(extra="forbid")

    variant: str | None = Field(
        None, max_length=200, description="The variant (none: the one whose decision is closest to the question)."
    )
    instance: int | None = Field(None, ge=0, description="The twin instance, 0..k-1 (none: any).")
    step: int | None = Field(None, ge=1, description="1-based step of that run (none: its last decision).")


def _given(key: str, kind: str) -> dict:
    return {"required": [key], "properties": {key: {"type": kind}}}


class InterviewRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "question": "Why did you leave on variant B?",
                    "run": "3f2a9c0d1e2b4a5f",
                    "sample": {"variant": "B", "instance": 0},
                },
                {"question": "What matters to you when you buy a cable?"},
            ],
            # as the validator below checks: sample or decision, never both, and either one only with a run
            "allOf": [
                {"not": {"allOf": [_given("sample", "object"), _given("decision", "string")]}},
                {"if": _given("sample", "object"), "then": _given("run", "string")},
                {"if": _given("decision", "string"), "then": _given("run", "string")},
            ],
        },
    )

    question: str = Field(
        ..., min_length=1, max_length=MAX_QUESTION_CHARS, description="Not blank.", json_schema_extra={"pattern": r"\S"}
    )  # checked below, with a plainer message
    run: str | None = Field(
        None,
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9_.\-]+$",
        description="An experiment id (POST /experiments) or a simulation id (POST /simulations) "
        "whose decisions the question is about.",
    )
    sample: SampleRef | None = Field(None, description="Which twin run of `run`, and which step.")
    decision: str | None = Field(
        None,
        min_length=1,
        max_length=600,
        description="A decision_id of the run's decision export (instead of `sample`).",
    )
    brain: Literal["embedded", "llm"] = Field(
        "embedded",
        description="embedded: an answer assembled from the "
        "decision's drivers and the person's own words; llm: written by the model.",
    )
    model: str | None = Field(
        None, max_length=200, description="litellm model for brain=llm (default TWINSIM_LLM_MODEL)."
    )

    @model_validator(mode="after")
    def _reference_needs_a_run(self) -> InterviewRequest:
        if not self.question.strip():
            raise ValueError("question is blank")
        if (self.sample is not None or self.decision is not None) and self.run is None:
            raise ValueError("a sample or decision is looked up in a run: name the run")
        if self.sample is not None and self.decision is not None:
            raise ValueError("refer to the decision once: sample or decision, not both")
        return self


class PersonaCreated(BaseModel):
    id: str
    memories: int
    replaced: bool


class PersonaListItem(BaseModel):
    id: str
    name: str | None
    source: str
    memories: int
    updated_at: str


class Health(BaseModel):
    status: Literal["ok"]
    personas: int
    brains: list[str]
    store: str


class FieldError(BaseModel):
    loc: list[str | int] = Field(..., description="Where: body, query or path, then the field's keys and indexes.")
    msg: str
    type: str


class ErrorBody(BaseModel):
    """Every 4xx: `detail` is a sentence, or (422 from validation) one entry per field at fault."""

    detail: str | list[FieldError]


def error(description: str) -> dict:
    return {"model": ErrorBody, "description": description}


# Declared on every route behind the API key (service/api/app.py); routes add their own 404 / 409.
SECURED_ERRORS: dict[int | str, dict] = {
    400: error("The body is not valid JSON."),
    401: error("Missing or wrong API key (X-API-Key or Authorization: Bearer)."),
    413: error(
        "The body, or a page in it, is over TWINSIM_MAX_PAGE_BYTES, TWINSIM_MAX_PAGE_DEPTH or "
        "TWINSIM_MAX_PAGE_ELEMENTS."
    ),
    422: error("Invalid input; the detail says which field and why."),
    429: {
        **error("Over this key's rate limit."),
        "headers": {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}},
    },
}
NOT_FOUND: dict[int | str, dict] = {404: error("No such persona, experiment or simulation for this key's tenant.")}
CONFLICT: dict[int | str, dict] = {
    409: error("The experiment is not in a state that allows this (no results yet, already running, done).")
}
