"""The made-up details a twin's checkout form is filled with, as UX-testing tools do, and the record of each field
filled: clearly labelled TEST values, never the person's own data (twinsim holds no one's email or address). The
person's city is used where the persona gives one, so a shop that prices delivery by place sees a plausible one;
everything else is fixed.

A simulation setting (`SimulationConfig.checkout_details`); None turns filling off, and twins then stop at a
checkout form as a person without details would.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from personas.persona import Persona

_SHORT_ID = re.compile(r"[^a-z0-9]+")


class CheckoutDetails(BaseModel):
    """What goes into a checkout form's required fields; `{persona}` in the email is the persona's short id."""

    model_config = ConfigDict(extra="forbid")

    first_name: str = Field("Test", max_length=100)
    last_name: str = Field("Twin", max_length=100)
    email: str = Field(
        "twin+{persona}@example.com",
        max_length=200,
        description="example.com is reserved for examples: no mail reaches anyone.",
    )
    address_line1: str = Field("1 Test Street", max_length=200)
    address_line2: str = Field("Test Suite 1", max_length=200)
    city: str | None = Field(None, max_length=100, description="None: the persona's own city, else 'Testville'.")
    state: str = Field("NY", max_length=100)
    postcode: str = Field("12345", max_length=20)
    country: str = Field(
        "United States",
        max_length=100,
        description="Chosen when a country drop-down offers it, else the first country it offers.",
    )
    phone: str = Field("+1 202 555 0100", max_length=40, description="555-01xx numbers are reserved as fictional.")

    @field_validator("email")
    @classmethod
    def _an_email(cls, value: str) -> str:
        if "@" not in value:
            raise ValueError(f"checkout_details.email must be an email address (may hold {{persona}}), got {value!r}")
        return value

    def values_for(self, persona: Persona) -> dict[str, str]:
        """Field kind -> the test value this persona's twin enters."""
        city = self.city or _persona_city(persona) or "Testville"
        return {
            "email": self.email.replace("{persona}", short_id(persona.id)),
            "first_name": self.first_name,
            "last_name": self.last_name,
            "full_name": f"{self.first_name} {self.last_name}",
            "address_line1": self.address_line1,
            "address_line2": self.address_line2,
            "city": city,
            "state": self.state,
            "postcode": self.postcode,
            "country": self.country,
            "phone": self.phone,
        }


class FilledField(BaseModel):
    """One field of a checkout form and what was done with it."""

    name: str | None = Field(None, description="The element's name in the twin's reading of the page, when it has one.")
    label: str = Field(..., description="What the field says it wants (its label, else its own name).")
    kind: str | None = Field(
        None,
        description="email, first_name, last_name, address_line1, city, postcode, country, "
        "phone ...; None when nothing said.",
    )
    value: str | None = Field(None, description="The TEST value entered; None when the field was left empty.")
    test_detail: bool = Field(True, description="Always true for a value: made-up test data, never the person's.")
    note: str | None = Field(None, description="Why a required field was left empty, or what was chosen.")


def short_id(persona_id: str) -> str:
    """The persona id's first 8 letters and digits: enough to tell twins' orders apart in a shop's order list."""
    return _SHORT_ID.sub("", persona_id.lower())[:8] or "twin"


def _persona_city(persona: Persona) -> str | None:
    """The city the person gave, up to a comma and capitalised ("malden, MA" -> "Malden")."""
    city = (persona.demographics.city or "").split(",")[0].strip()
    return city.title() if city else None
