#!/usr/bin/env python3
"""Writes, for each lazy page of the split bundle in PKG that needs more than one file, one pack
holding all its chunks: the page the server renders preloads that one file instead of
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
A page that shows a protocol's panel (`app/src/ui/panels.rs`, a split point `PANEL_panel_N`) gets,
besides its own pack, one pack per panel holding its chunks and the panel's (`--panels-on
live,audit`): the server preloads the one for the debate it renders. A panel's entry also names,
under `after`, for each such page the pack of the chunks it adds to that page
(`pack_PANEL-after-PAGE.H.bin`), which the chunk loader fetches when a click brings the panel to a
page already loaded. Each page's entry also carries its name (`live`, `audit`, or the panel's
function name), which scripts/bundle-sizes.py prints.
Format: for each chunk, the length of its file name, the name (UTF-8), the length of its bytes,
the bytes; lengths as 32-bit little-endian.
Usage: scripts/pack-pages.py PKG [--panels-on PAGE,PAGE…]"""
import json
import os
import re
import struct
import sys


def name_of(split):
    """A split point's page name: `__live_route_view_123` → `live`, `es_panel_456` → `es_panel`."""
    route = re.fullmatch(r"__(\w+?)_route_view_\d+", split)
    if route:
        return route.group(1)
    panel = re.fullmatch(r"_*(\w+?_panel)_\d+", split)
    return panel.group(1) if panel else split


def write_pack(pkg, name, chunks):
    """Writes `name.bin` holding `chunks` (file names without `.wasm`), in order."""
    out = bytearray()
    for chunk in chunks:
        file = chunk + ".wasm"
        with open(os.path.join(pkg, file), "rb") as f:
            data = f.read()
        encoded = file.encode()
        out += struct.pack("<I", len(encoded)) + encoded + struct.pack("<I", len(data)) + data
    with open(os.path.join(pkg, name + ".bin"), "wb") as f:
        f.write(out)


def main():
    args = sys.argv[1:]
    panels_on = set()
    if len(args) == 3 and args[1] == "--panels-on":
        panels_on = set(args[2].split(","))
    elif len(args) != 1:
        sys.exit(__doc__)
    pkg = args[0]
    with open(os.path.join(pkg, "__wasm_split_manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(pkg, "hash.txt")) as f:
        h = dict(line.split(":", 1) for line in f.read().split("\n") if ":" in line)["js"].strip()
    loaders = [f for f in os.listdir(pkg) if re.fullmatch(r"__wasm_split\.[0-9a-f]+\.js", f)]
    if len(loaders) != 1:
        sys.exit(f"pack-pages: {pkg} holds no hashed chunk loader (run scripts/hash-bundle.py first)")
    panels = {name_of(split): chunks for split, chunks in manifest.items() if name_of(split).endswith("_panel")}
    missing = panels_on - {name_of(split) for split in manifest}
    if missing:
        sys.exit(f"pack-pages: no split point for page(s) {sorted(missing)} in {pkg}")
    pages, after = {}, {}
    for split, chunks in sorted(manifest.items()):
        name = name_of(split)
        page = pages[split] = {"name": name, "chunks": chunks, "pack": None, "panels": {}}
        if len(chunks) > 1:
            page["pack"] = f"pack_{name}.{h}"
            write_pack(pkg, page["pack"], chunks)
        if name not in panels_on:
            continue
        for panel, extra in sorted(panels.items()):
            rest = [c for c in extra if c not in chunks]
            both = chunks + rest
            pack = f"pack_{name}-{panel}.{h}" if len(both) > 1 else None
            if pack:
                write_pack(pkg, pack, both)
            page["panels"][panel] = {"chunks": both, "pack": pack}
            # A click to a debate loads the page, then its panel: what the panel adds, as one file.
            delta = f"pack_{panel}-after-{name}.{h}" if len(rest) > 1 else None
            if delta:
                write_pack(pkg, delta, rest)
            after.setdefault(panel, {})[split] = delta
    for page in pages.values():
        if page["name"] in after:
            page["after"] = after[page["name"]]
    with open(os.path.join(pkg, "pages.json"), "w") as f:
        json.dump({"loader": loaders[0], "pages": pages}, f, indent=2, sort_keys=True)
        f.write("\n")
    os.remove(os.path.join(pkg, "__wasm_split_manifest.json"))


main()
