"""llama.cpp's OpenAI-compatible servers (via xllamacpp) on 127.0.0.1: chat on PORT for one GGUF
model and, given a second, embeddings (`/v1/embeddings`, mean-pooled) on EMBED_PORT.

Usage: DEST/venv/bin/python scripts/llm-serve.py CHAT.gguf [EMBED.gguf]
Environment: PORT (8091), EMBED_PORT (8092), THREADS (1: two threads collapsed throughput on a
shared 2-core machine), CTX (4096 tokens), PARALLEL (1 request at a time: the calls a debate asks
at once wait their turn here, and each streams as it is answered).
"""
import os
import sys
import threading
import time

import xllamacpp as xlc

params = xlc.CommonParams()
params.model.path = sys.argv[1]
params.hostnames = ["127.0.0.1"]
params.port = int(os.environ.get("PORT", "8091"))
threads = int(os.environ.get("THREADS", "1"))
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
params.n_parallel = int(os.environ.get("PARALLEL", "1"))
params.n_ctx = int(os.environ.get("CTX", "4096"))
started = time.time()
server = xlc.Server(params)
print(f"chat model {sys.argv[1]} on {server.listening_address} (load {time.time() - started:.2f}s)", flush=True)
if len(sys.argv) > 2:
    e = xlc.CommonParams()
    e.model.path = sys.argv[2]
    e.hostnames = ["127.0.0.1"]
    e.port = int(os.environ.get("EMBED_PORT", "8092"))
    e.cpuparams.n_threads = e.cpuparams_batch.n_threads = threads
    e.n_parallel = 1
    e.embedding = True
    e.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    e.n_ctx = e.n_batch = e.n_ubatch = 512
    started = time.time()
    embedder = xlc.Server(e)
    print(f"embedding model {sys.argv[2]} on {embedder.listening_address} (load {time.time() - started:.2f}s)", flush=True)
threading.Event().wait()
