#!/usr/bin/env python3
"""Writes, for each lazy page of the split bundle in PKG that needs more than one file, one pack
holding all its chunks (issue 17): the page the server renders preloads that one file instead of
one per chunk (`app/src/ui/chunks.rs`), and the chunk loader takes the chunks from it
(`vendor/wasm_split_cli_support`, PATCH.md). One compressed stream of a page's ~15–25 chunks is
smaller than the chunks compressed one by one (brotli finds what they share), and one request
replaces many. The chunks stay beside it for pages reached by navigating in the browser, which
load only the chunks they do not have yet.

Runs after scripts/hash-bundle.py: a pack is named `pack_<page>.H.bin` with the bundle's hash H.
The splitter's manifest (`__wasm_split_manifest.json`) becomes PKG/pages.json, which the server
reads: the chunk loader's file, and for each split point its chunks and its pack (without
`.wasm`, `.bin`). The manifest itself is removed: Leptos would read it under its own name and
preload every chunk of a page one by one beside the pack.
Format: for each chunk, the length of its file name, the name (UTF-8), the length of its bytes,
the bytes; lengths as 32-bit little-endian.
Usage: scripts/pack-pages.py PKG"""
import json
import os
import re
import struct
import sys

pkg = sys.argv[1]


def main():
    with open(os.path.join(pkg, "__wasm_split_manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(pkg, "hash.txt")) as f:
        h = dict(line.split(":", 1) for line in f.read().split("\n") if ":" in line)["js"].strip()
    loaders = [f for f in os.listdir(pkg) if re.fullmatch(r"__wasm_split\.[0-9a-f]+\.js", f)]
    if len(loaders) != 1:
        sys.exit(f"pack-pages: {pkg} holds no hashed chunk loader (run scripts/hash-bundle.py first)")
    pages = {}
    for split, chunks in sorted(manifest.items()):
        pages[split] = {"chunks": chunks, "pack": None}
        if len(chunks) < 2:
            continue
        page = re.fullmatch(r"__(\w+?)_route_view_\d+", split)
        name = f"pack_{page.group(1) if page else split}.{h}"
        out = bytearray()
        for chunk in chunks:
            file = chunk + ".wasm"
            with open(os.path.join(pkg, file), "rb") as f:
                data = f.read()
            encoded = file.encode()
            out += struct.pack("<I", len(encoded)) + encoded + struct.pack("<I", len(data)) + data
        with open(os.path.join(pkg, name + ".bin"), "wb") as f:
            f.write(out)
        pages[split]["pack"] = name
    with open(os.path.join(pkg, "pages.json"), "w") as f:
        json.dump({"loader": loaders[0], "pages": pages}, f, indent=2, sort_keys=True)
        f.write("\n")
    os.remove(os.path.join(pkg, "__wasm_split_manifest.json"))


main()
