"""The experiment spec's JSON schema (the body POST /experiments documents) accepts what the API accepts: the
shipped example, written with the `page:` shorthand, validates against it, and a misspelt field still does not."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

from agent.experiments.spec import ExperimentSpec

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "experiments" / "deal_banner.yaml"


@pytest.fixture(scope="module")
def validator():
    return jsonschema.Draft202012Validator(ExperimentSpec.model_json_schema())


def test_the_page_shorthand_is_in_the_schema(validator):
    example = yaml.safe_load(EXAMPLE.read_text())
    assert any("page" in variant for variant in example["variants"])
    ExperimentSpec.model_validate(example)  # the model takes it ...
    validator.validate(example)  # ... and the schema says it may be sent


def test_an_unknown_variant_field_is_still_refused_by_the_schema(validator):
    example = yaml.safe_load(EXAMPLE.read_text())
    example["variants"][0]["pgae"] = example["variants"][0]["page"]
    with pytest.raises(jsonschema.ValidationError, match="pgae"):
        validator.validate(example)
