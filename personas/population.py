"""Populations: which personas take part in an experiment, and the segment each one falls into.

A population is chosen by ids, by filters on traits (Big Five bands, Prime membership, shopping-preference
answers 1..5, demographics), and optionally thinned to a seeded sample of n stratified over chosen traits,
so a run on 20 of 52 people keeps the mix of, say, conscientiousness bands the whole pool has.
Segments are the same traits put into buckets (low / medium / high, yes / no, the answer as given), so
outcomes can be broken down by them.
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from personas.persona import BIG_FIVE_TRAITS, PREFERENCE_CONSTRUCTS, Demographics, Persona

UNKNOWN = "unknown"
Scalar = bool | int | float | str
FilterValue = Scalar | list[Scalar]


class PopulationError(ValueError):
    """The population cannot be formed (unknown ids or traits, nothing left, a sample larger than the pool)."""


def _band(unit: float | None) -> str:
    """A 0..1 trait value as low / medium / high (the IPIP-50 thirds; reported levels map inside them)."""
    if unit is None:
        return UNKNOWN
    return "low" if unit < 0.4 else "medium" if unit < 0.6 else "high"


def _likert_bucket(answer: int | None) -> str:
    if answer is None:
        return UNKNOWN
    return "low" if answer <= 2 else "medium" if answer == 3 else "high"


def _big_five(trait: str) -> Callable[[Persona], str]:
    return lambda p: _band(p.big_five.unit(trait))


def _preference(construct: str) -> Callable[[Persona], int | None]:
    return lambda p: p.preference(construct)


def _demographic(field: str) -> Callable[[Persona], str | None]:
    return lambda p: getattr(p.demographics, field)


# trait -> (raw value of a persona, bucket of that value)
_VALUES: dict[str, Callable[[Persona], object]] = {
    **{trait: _big_five(trait) for trait in BIG_FIVE_TRAITS},
    **{construct: _preference(construct) for construct in PREFERENCE_CONSTRUCTS},
    **{field: _demographic(field) for field in Demographics.model_fields},
    "prime": lambda p: p.shopping.prime,
    "shopping_frequency": lambda p: p.shopping.frequency,
    "source": lambda p: p.source,
}
TRAITS: tuple[str, ...] = tuple(_VALUES)


def _check_trait(trait: str) -> None:
    if trait not in _VALUES:
        raise PopulationError(f"unknown trait '{trait}'; known traits: {', '.join(TRAITS)}")


def trait_value(persona: Persona, trait: str) -> object:
    """The persona's value of a trait: a band for Big Five, 1..5 for preferences, True/False, or text."""
    _check_trait(trait)
    return _VALUES[trait](persona)


def trait_bucket(persona: Persona, trait: str) -> str:
    """The segment a persona falls into for one trait (always a string; 'unknown' when not answered)."""
    value = trait_value(persona, trait)
    if value is None:
        return UNKNOWN
    if trait in PREFERENCE_CONSTRUCTS:
        return _likert_bucket(int(value))  # type: ignore[call-overload]  # a preference is a 1..5 int (_preference)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def segment_buckets(persona: Persona, traits: Iterable[str]) -> dict[str, str]:
    return {trait: trait_bucket(persona, trait) for trait in traits}


_COMPARISON = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$")
_OPERATORS = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}
_BIG_FIVE_LEVEL_BAND = {
    "extremely low": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "extremely high": "high",
}


def _matches_one(persona: Persona, trait: str, wanted: Scalar) -> bool:
    value = trait_value(persona, trait)
    if value is None:
        return False
    if trait in BIG_FIVE_TRAITS:  # "high" matches High and Extremely high; an exact level matches itself
        wanted_text = str(wanted).strip().lower()
        if wanted_text in ("low", "medium", "high"):
            return value == wanted_text
        level = persona.big_five.levels.get(trait)
        if level:
            return level.lower() == wanted_text
        return value == _BIG_FIVE_LEVEL_BAND.get(wanted_text)  # IPIP-50 sums: the level's band
    if isinstance(value, bool):
        if isinstance(wanted, str):
            return value == (wanted.strip().lower() in ("true", "yes", "1"))
        return value == bool(wanted)
    if isinstance(value, (int, float)):
        if isinstance(wanted, str):
            comparison = _COMPARISON.match(wanted)
            if comparison:
                return _OPERATORS[comparison.group(1)](value, float(comparison.group(2)))
            if wanted.strip().lower() in ("low", "medium", "high"):
                return trait_bucket(persona, trait) == wanted.strip().lower()
            try:
                return value == float(wanted)
            except ValueError:
                return False
        return value == wanted
    return str(value).strip().lower() == str(wanted).strip().lower()


def _check_filter(trait: str, wanted: FilterValue) -> None:
    _check_trait(trait)
    for item in wanted if isinstance(wanted, list) else [wanted]:
        if trait in PREFERENCE_CONSTRUCTS and isinstance(item, str):
            text = item.strip().lower()
            if not (_COMPARISON.match(item) or text in ("low", "medium", "high") or text.replace(".", "", 1).isdigit()):
                raise PopulationError(
                    f"filter {trait}: '{item}' is not a number 1..5, a comparison like '>=4', or low/medium/high"
                )
        if trait in BIG_FIVE_TRAITS and str(item).strip().lower() not in _BIG_FIVE_LEVEL_BAND:
            raise PopulationError(
                f"filter {trait}: '{item}' is not one of low, medium, high or a reported level "
                "(extremely low .. extremely high)"
            )


def matches(persona: Persona, filters: dict[str, FilterValue]) -> bool:
    """All filters hold; a list means any of its values."""
    for trait, wanted in filters.items():
        options = wanted if isinstance(wanted, list) else [wanted]
        if not any(_matches_one(persona, trait, option) for option in options):
            return False
    return True


class PopulationSpec(BaseModel):
    """Who takes part: ids and/or trait filters, then optionally a seeded stratified sample of n."""

    model_config = ConfigDict(extra="forbid")

    ids: list[str] | None = Field(None, description="Persona ids; default: every stored persona.", max_length=100_000)
    filters: dict[str, FilterValue] = Field(
        default_factory=dict, description="trait -> value, list of values, or '>=4'."
    )
    sample: int | None = Field(
        None, ge=1, le=100_000, description="Keep a seeded stratified sample of this many personas."
    )
    strata: list[str] = Field(default_factory=list, description="Traits whose bucket mix the sample keeps.")
    seed: int = Field(0, description="Seed of the sample.")

    @field_validator("filters")
    @classmethod
    def _known_filters(cls, value: dict[str, FilterValue]) -> dict[str, FilterValue]:
        for trait, wanted in value.items():
            try:
                _check_filter(trait, wanted)
            except PopulationError as error:
                raise ValueError(str(error)) from None
        return value

    @field_validator("strata")
    @classmethod
    def _known_strata(cls, value: list[str]) -> list[str]:
        for trait in value:
            if trait not in _VALUES:
                raise ValueError(f"unknown trait '{trait}'; known traits: {', '.join(TRAITS)}")
        return value


def _stable_key(seed: int, persona_id: str) -> str:
    return hashlib.sha256(f"{seed}:{persona_id}".encode()).hexdigest()


def stratified_sample(personas: Sequence[Persona], n: int, strata: Sequence[str], seed: int) -> list[Persona]:
    """n personas keeping each stratum's share (largest remainder), chosen by a seeded hash order.

    A hash of (seed, id) orders personas instead of a global RNG, so adding a persona to the pool does
    not reshuffle who else is picked.
    """
    if n > len(personas):
        raise PopulationError(f"a sample of {n} asked from a pool of {len(personas)} persona(s)")
    groups: dict[tuple[str, ...], list[Persona]] = defaultdict(list)
    for persona in personas:
        groups[tuple(trait_bucket(persona, t) for t in strata)].append(persona)
    for members in groups.values():
        members.sort(key=lambda p: _stable_key(seed, p.id))
    quotas = {key: n * len(members) / len(personas) for key, members in groups.items()}
    counts = {key: int(q) for key, q in quotas.items()}
    remainder = n - sum(counts.values())
    for key in sorted(quotas, key=lambda k: (-(quotas[k] - counts[k]), _stable_key(seed, "|".join(k))))[:remainder]:
        counts[key] += 1
    chosen = [p for key, members in groups.items() for p in members[: counts[key]]]
    return sorted(chosen, key=lambda p: p.id)


def select_population(pool: Sequence[Persona], spec: PopulationSpec) -> list[Persona]:
    """The personas of a population, sorted by id; raises PopulationError with the reason when it cannot."""
    by_id = {p.id: p for p in pool}
    if spec.ids is not None:
        unknown = [pid for pid in dict.fromkeys(spec.ids) if pid not in by_id]
        if unknown:
            shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
            raise PopulationError(f"unknown persona id(s): {shown}")
        chosen = [by_id[pid] for pid in dict.fromkeys(spec.ids)]
    else:
        chosen = sorted(pool, key=lambda p: p.id)
    if not chosen:
        raise PopulationError("the population is empty: no personas are stored (import some first)")
    for trait, wanted in spec.filters.items():
        _check_filter(trait, wanted)
    filtered = [p for p in chosen if matches(p, spec.filters)]
    if not filtered:
        raise PopulationError(
            f"the population is empty: none of {len(chosen)} persona(s) match the filters {spec.filters}"
        )
    if spec.sample is not None:
        filtered = stratified_sample(filtered, spec.sample, spec.strata, spec.seed)
    return sorted(filtered, key=lambda p: p.id)
