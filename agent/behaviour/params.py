"""The shipped behaviour parameters (params.json): reading them into a model, writing them exactly.

Written with sorted keys and rounded floats so that `twinsim calibrate` with the same data and seed
reproduces the file byte for byte. Loaded once per process (a few milliseconds).
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path

from agent.behaviour.element_choice import DEFAULT_WEIGHTS
from agent.behaviour.label_chain import LabelChain
from agent.behaviour.labels import LABELS, bias_vector
from agent.behaviour.linear_softmax import LinearSoftmax
from agent.behaviour.model import BehaviourModel, BehaviourVariant
from agent.behaviour.names_without_page import NamingTables
from agent.behaviour.page_terms import PRIORS, PageTermCoefficients
from agent.behaviour.person_chain import PersonChain

PARAMS_PATH = Path(__file__).with_name("params.json")
PARAMS_FORMAT = 1
# Known before any data: clicking into the search box is followed by typing (the OPeRA recorder logs
# the click, then the input when the query is submitted). Calibrating on the full release (names
# known) replaces these with measured log-ratios.
DEFAULT_NAME_PRIORS: dict[str, dict[str, float]] = {"nav_bar.search_input": {"input": round(math.log(4.0), 4)}}


class BehaviourParamsError(ValueError):
    """A parameters file that exists but cannot be read as parameters (truncated, edited, another format)."""


@dataclass(frozen=True)
class BehaviourParams:
    model: BehaviourModel
    naming: NamingTables
    name_priors: dict[str, dict[str, float]]
    element_weights: dict[str, float]
    meta: dict = field(default_factory=dict)
    page_terms: PageTermCoefficients = PRIORS


def params_from_json(data: dict) -> BehaviourParams:
    if data.get("format") != PARAMS_FORMAT:
        raise ValueError(f"behaviour params format {data.get('format')!r} is not {PARAMS_FORMAT}; recalibrate")
    if list(data.get("labels", [])) != list(LABELS):
        raise ValueError("behaviour params were fitted for another label set; recalibrate")
    variants = data["variants"]
    decision = data.get("decision", {})
    bias = bias_vector(decision.get("bias", {}))
    start_bias = bias_vector(decision["start_bias"]) if "start_bias" in decision else None

    chain = LabelChain.from_json(data["label_chain"]) if data.get("label_chain") else None
    chain_weight = float(data.get("hyperparameters", {}).get("chain_weight", 0.0)) if chain is not None else 0.0

    person_chain = (
        PersonChain.from_json(chain, data["person_chain"]) if chain is not None and data.get("person_chain") else None
    )

    def variant(key: str) -> BehaviourVariant:
        part = variants[key]
        own_chain = person_chain if key == "known_person" and person_chain is not None else chain
        return BehaviourVariant(
            action=LinearSoftmax.from_json(part["action"]),
            outcome=LinearSoftmax.from_json(part["outcome"]),
            chain=own_chain,
            chain_weight=chain_weight,
        )

    model = BehaviourModel(
        with_persona=variant("persona"),
        without_persona=variant("no_persona"),
        decision_bias=bias,
        known_person=variant("known_person") if "known_person" in variants else None,
        repeat_bias=float(decision.get("repeat_bias", 0.0)),
        start_bias=start_bias,
    )
    weights = dict(DEFAULT_WEIGHTS)
    weights.update(data.get("element_choice", {}))
    return BehaviourParams(
        model=model,
        naming=NamingTables.from_json(data.get("naming")),
        name_priors={k: dict(v) for k, v in data.get("name_priors", DEFAULT_NAME_PRIORS).items()},
        element_weights=weights,
        meta={
            k: data[k] for k in ("source", "hyperparameters", "cross_validation", "citation", "page_terms") if k in data
        },
        page_terms=PageTermCoefficients.from_json((data.get("page_terms") or {}).get("coefficients")),
    )


def dump_params(data: dict, path: Path) -> None:
    """Deterministic JSON: sorted keys, no NaN, one trailing newline."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")


_lock = threading.Lock()
_loaded: dict[Path, BehaviourParams] = {}


def load_params(path: Path | str | None = None) -> BehaviourParams:
    """The parameters at `path` (default: the shipped params.json), parsed once per process."""
    resolved = Path(path) if path is not None else PARAMS_PATH
    with _lock:
        if resolved not in _loaded:
            if not resolved.is_file():
                raise FileNotFoundError(f"behaviour parameters not found at {resolved}; run `twinsim calibrate`")
            try:
                _loaded[resolved] = params_from_json(json.loads(resolved.read_text(encoding="utf-8")))
            except (ValueError, KeyError, TypeError, IndexError, AttributeError) as error:  # ValueError: bad JSON too
                detail = f"missing {error}" if isinstance(error, KeyError) else str(error)
                raise BehaviourParamsError(
                    f"behaviour parameters at {resolved} are not usable ({detail}); "
                    f"make them with `twinsim calibrate --out {resolved}`"
                ) from None
        return _loaded[resolved]
