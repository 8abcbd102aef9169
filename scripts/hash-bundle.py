#!/usr/bin/env python3
"""Puts one content hash into the name of every file of the split bundle in PKG, so the
server can let browsers keep them for good (`Cache-Control: immutable`): a new build has new names.

consilium.js -> consilium.H.js, consilium_bg.wasm -> consilium.H.wasm (the names Leptos's
hydration script asks for when `hash.txt` says H), live-P.js -> live-P.H.js and live-P_bg.wasm ->
live-P.H.wasm (each protocol P's live bundle, when built: `hash.txt` then says `live: H` too),
__wasm_split.….js -> __wasm_split.H.js,
chunk_N.wasm -> chunk_N.H.wasm, split_….wasm -> split_….H.wasm; the names inside the JS files and
the manifest are rewritten to match, and PKG/hash.txt records H for the server. One hash for the
whole bundle, not one per file: the main module's glue imports the chunk loader and the loader
imports the glue back, so per-file hashes would depend on each other.
Usage: scripts/hash-bundle.py PKG"""
import hashlib
import json
import os
import re
import sys

pkg = sys.argv[1]
GLUE, WASM = "consilium.js", "consilium_bg.wasm"
LIVE_RE = re.compile(r"live-(\w+)\.js")
LOADER_RE = re.compile(r"__wasm_split\.[_A-Za-z0-9]*\.js")
CHUNK_RE = re.compile(r"(?:chunk_\d+|split_\w+)\.wasm")


def path(name):
    return os.path.join(pkg, name)


def main():
    names = sorted(os.listdir(pkg))
    loaders = [n for n in names if LOADER_RE.fullmatch(n)]
    chunks = [n for n in names if CHUNK_RE.fullmatch(n)]
    if not os.path.exists(path(GLUE)) or not os.path.exists(path(WASM)) or len(loaders) != 1:
        sys.exit(f"hash-bundle: {pkg} holds no split bundle to hash ({GLUE}, {WASM}, one loader)")
    loader = loaders[0]
    live_glues = [n for n in names if LIVE_RE.fullmatch(n)]
    live = []
    for glue in live_glues:
        wasm = glue[: -len(".js")] + "_bg.wasm"
        if not os.path.exists(path(wasm)):
            sys.exit(f"hash-bundle: the live bundle {glue} has no {wasm}")
        live += [glue, wasm]
    digest = hashlib.sha256()
    for name in [GLUE, WASM, loader] + live + chunks:
        with open(path(name), "rb") as f:
            digest.update(name.encode() + b"\0" + f.read() + b"\0")
    h = digest.hexdigest()[:16]
    renamed = {GLUE: f"consilium.{h}.js", WASM: f"consilium.{h}.wasm", loader: f"__wasm_split.{h}.js"}
    for c in chunks:
        renamed[c] = f"{c[:-len('.wasm')]}.{h}.wasm"
    for glue in live_glues:
        stem = glue[: -len(".js")]
        renamed[glue], renamed[stem + "_bg.wasm"] = f"{stem}.{h}.js", f"{stem}.{h}.wasm"

    # References inside the JS files, where a file is fetched or imported: the glue imports the
    # loader (and names the wasm as a default URL), the loader imports the glue and fetches every
    # chunk. Only `from "…"` and `new URL("…")`: the glue's import object also names the loader,
    # but as the module name the wasm asks for, which must not change.
    names = "|".join(re.escape(n) for n in renamed)
    pattern = re.compile(r"""((?:\bfrom|\bnew URL\()\s*["'](?:\./)?)(""" + names + r""")(["'])""")
    for js in [GLUE, loader] + live_glues:
        with open(path(js), encoding="utf-8") as f:
            text = f.read()
        text, n = pattern.subn(lambda m: m.group(1) + renamed[m.group(2)] + m.group(3), text)
        if n == 0:
            sys.exit(f"hash-bundle: no file reference found in {js}: has its generator changed?")
        with open(path(js), "w", encoding="utf-8") as f:
            f.write(text)

    # The manifest lists chunks without `.wasm`; the server and Leptos add it.
    manifest_path = path("__wasm_split_manifest.json")
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    stem = {old[: -len(".wasm")]: new[: -len(".wasm")] for old, new in renamed.items() if old.endswith(".wasm")}
    for split, listed in manifest.items():
        missing = [c for c in listed if c not in stem]
        if missing:
            sys.exit(f"hash-bundle: the manifest's {split} names chunks that are not here: {missing}")
        manifest[split] = [stem[c] for c in listed]
    with open(manifest_path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2)

    for old, new in renamed.items():
        os.rename(path(old), path(new))
    with open(path("hash.txt"), "w", encoding="utf-8") as f:
        f.write(f"js: {h}\nwasm: {h}\nsplit: {h}\n" + (f"live: {h}\n" if live else ""))
    print(f"bundle names carry its hash {h} ({len(renamed)} files)")


main()
