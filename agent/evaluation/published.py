"""Published results on the OPeRA filtered test split (992 actions, 90 sessions, 15 users), to print beside ours.

Sources: OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0), zero-shot prompting with persona, page
and history; Customer-R1 (arXiv 2510.07230), Qwen2.5-7B fine-tuned on OPeRA-train. All are page-conditioned
(the model sees the simplified HTML of step t). Fractions 0..1; None where the source reports no figure.
"""

from __future__ import annotations

_OPERA = "OPeRA, Wang et al. 2025, arXiv 2506.05606"
_CUSTOMER_R1 = "Customer-R1, arXiv 2510.07230"
_TASK = "page-conditioned, OPeRA filtered test split"


def _row(
    system: str,
    source: str,
    exact: float | None,
    macro: float | None = None,
    click: float | None = None,
    outcome: float | None = None,
    fine: float | None = None,
) -> dict:
    return {
        "system": system,
        "source": source,
        "task": _TASK,
        "exact_match": exact,
        "action_type_macro_f1": macro,
        "click_type_weighted_f1": click,
        "outcome_weighted_f1": outcome,
        "fine_grained_accuracy": fine,
    }


PUBLISHED_RESULTS: list[dict] = [
    _row("GPT-4.1 (zero-shot)", _OPERA, 0.215, 0.488, 0.445, 0.475),
    _row("DeepSeek-R1 (zero-shot)", _OPERA, 0.148),
    _row("Claude-3.7 (zero-shot)", _OPERA, 0.108),
    _row("Llama-3.3-70B (zero-shot)", _OPERA, 0.083),
    _row("Qwen2.5-7B SFT", _CUSTOMER_R1, 0.351),
    _row("Qwen2.5-7B SFT+RL (Customer-R1)", _CUSTOMER_R1, 0.396, 0.785, None, 0.795, 0.612),
]
