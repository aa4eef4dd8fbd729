"""Published Multimodal-Mind2Web results, to print beside ours, per test split (fractions 0..1; None: not reported).

Source: SeeAct, Zheng et al. 2024, "GPT-4V(ision) is a Generalist Web Agent, if Grounded", arXiv 2401.01614, on
Multimodal-Mind2Web (built on Mind2Web, Deng et al. 2023, NeurIPS). Their setting differs from ours in one way
that matters: they rank each page's candidates with MindAct's fine-tuned cross-encoder and show the model the top
50, where we show every candidate of the row (ranked by the task only when they overflow the LLM prompt).
"""

from __future__ import annotations

SOURCE = "SeeAct, Zheng et al. 2024, arXiv 2401.01614"
CITATION = (
    'Multimodal-Mind2Web: Zheng et al. 2024, "GPT-4V(ision) is a Generalist Web Agent, if Grounded", arXiv '
    "2401.01614 (dataset osunlp/Multimodal-Mind2Web, OpenRAIL); built on Mind2Web: Deng et al. 2023, "
    '"Mind2Web: Towards a Generalist Agent for the Web", NeurIPS.'
)


def _row(system: str, element: tuple | None, step: tuple) -> dict:
    splits = ("test_task", "test_website", "test_domain")
    return {
        "system": system,
        "source": SOURCE,
        "splits": {
            split: {
                "element_accuracy": element[i] if element else None,
                "operation_f1": None,
                "step_success_rate": step[i],
                "task_success_rate": None,
            }
            for i, split in enumerate(splits)
        },
    }


MIND2WEB_PUBLISHED: list[dict] = [
    _row("GPT-4V, textual choices grounding (SeeAct)", (0.489, 0.485, 0.440), (0.406, 0.417, 0.409)),
    _row("GPT-4V, image annotation (set-of-marks) grounding", (0.151, 0.113, 0.165), (0.130, 0.105, 0.147)),
    _row("GPT-4V with oracle grounding (upper bound)", (0.729, 0.744, 0.728), (0.657, 0.700, 0.621)),
    _row("GPT-4, text only", None, (0.317, 0.270, 0.297)),
    _row("FLAN-T5-XL fine-tuned (MindAct)", None, (0.525, 0.395, 0.407)),
]
