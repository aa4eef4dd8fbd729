"""The Persona: everything twinsim knows about one real person, in one validated shape.

Every reader (OPeRA user table, OPeRA personas.jsonl, native JSON/YAML) produces this model, so the
memory store, the brains and the API never care where a person came from.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

PERSONA_ID_PATTERN = r"^[A-Za-z0-9_.\-]{1,128}$"
_PERSONA_ID_RE = re.compile(PERSONA_ID_PATTERN)


def validate_persona_id(value: str) -> str:
    """Ids become file names, Chroma metadata and URL segments, so keep them to a safe alphabet."""
    if not isinstance(value, str) or not _PERSONA_ID_RE.match(value):
        raise ValueError("persona id must be 1-128 characters of letters, digits, '_', '.' or '-'")
    return value


# The schema states the pattern; the validator keeps the plain-words message.
PersonaId = Annotated[
    str,
    AfterValidator(validate_persona_id),
    WithJsonSchema({"type": "string", "pattern": PERSONA_ID_PATTERN, "minLength": 1, "maxLength": 128}),
]

# The 12 OPeRA shopping-preference statements, in survey order, by the construct each one measures.
PREFERENCE_CONSTRUCTS: tuple[str, ...] = (
    "seasonality",
    "ad_trust",
    "review_engagement",
    "delivery",
    "quality",
    "brand_consciousness",
    "over_choice_confusion",
    "impulsiveness",
    "brand_loyalty",
    "novelty",
    "recreational",
    "price_consciousness",
)

# The five traits under the names the OPeRA survey reports them.
BIG_FIVE_TRAITS: tuple[str, ...] = (
    "extraversion",
    "agreeableness",
    "conscientiousness",
    "emotional_stability",
    "intellect",
)

# "Extremely low" occurs in the real OPeRA release (10 of 235 reported levels in personas.jsonl).
BigFiveLevel = Literal["Extremely low", "Low", "Medium", "High", "Extremely high"]
# Where a reported level sits on the 0..1 scale of an IPIP-50 trait sum ((sum - 10) / 40).
LEVEL_TO_UNIT: dict[str, float] = {
    "Extremely low": 0.12,
    "Low": 0.3,
    "Medium": 0.5,
    "High": 0.7,
    "Extremely high": 0.88,
}

Likert = Annotated[int, Field(ge=1, le=5)]


class Demographics(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gender: str | None = None
    age: str | None = None
    city: str | None = None
    education: str | None = None
    living_situation: str | None = None
    income: str | None = None
    employment: str | None = None


class ShoppingHabits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    frequency: str | None = Field(None, description="How often the person shops online, as answered.")
    monthly_spend: str | None = Field(None, description="Monthly online spend, as answered (text or dollars).")
    prime: bool | None = Field(None, description="Paid Amazon Prime membership.")


class BigFive(BaseModel):
    """Big Five traits: IPIP-50 sums (10..50) when the raw items were answered, else reported levels."""

    model_config = ConfigDict(extra="forbid")

    scores: dict[str, float] = Field(
        default_factory=dict,
        description="Trait -> IPIP-50 sum (10..50) by the standard key; empty when only levels are known.",
    )
    levels: dict[str, BigFiveLevel] = Field(default_factory=dict, description="Trait -> level as reported.")
    method: Literal["ipip50", "reported_levels", "none"] = "none"
    dataset_sums: dict[str, float] = Field(
        default_factory=dict,
        description="The dataset's own trait sums, kept beside ours (OPeRA keys item 20 differently).",
    )

    def unit(self, trait: str) -> float | None:
        """The trait on a 0..1 scale, from the sum when known, else from the reported level."""
        if trait in self.scores:
            return min(1.0, max(0.0, (self.scores[trait] - 10.0) / 40.0))
        level = self.levels.get(trait)
        return LEVEL_TO_UNIT.get(level) if level else None


class Persona(BaseModel):
    """One real person as a twin sees them."""

    model_config = ConfigDict(extra="forbid")

    id: PersonaId
    name: str | None = Field(None, description="A display name; never required.")
    source: str = Field(
        "native", description="Where the persona came from: native, opera_user_table, opera_personas_jsonl."
    )
    demographics: Demographics = Field(default_factory=Demographics)
    shopping: ShoppingHabits = Field(default_factory=ShoppingHabits)
    preferences: dict[str, Likert] = Field(
        default_factory=dict,
        description="Construct (see PREFERENCE_CONSTRUCTS) -> agreement 1 (strongly disagree) .. 5 (strongly agree).",
    )
    big_five: BigFive = Field(default_factory=BigFive)
    mbti: str | None = None
    self_description: str | None = None
    interview_summary: str | None = None
    transcript: str | None = Field(None, description="The full interview transcript, when available.")

    @field_validator("preferences")
    @classmethod
    def _known_constructs(cls, value: dict[str, int]) -> dict[str, int]:
        unknown = set(value) - set(PREFERENCE_CONSTRUCTS)
        if unknown:
            raise ValueError(
                f"unknown preference constructs {sorted(unknown)}; expected some of {list(PREFERENCE_CONSTRUCTS)}"
            )
        return value

    def preference(self, construct: str) -> int | None:
        return self.preferences.get(construct)
