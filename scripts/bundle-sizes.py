#!/usr/bin/env python3
"""Prints what each page of the site fetches before it works, as sent (brotli), from the split
bundle in PKG (scripts/build-site.sh): every page loads the main module, its JS glue, the chunk
loader and the stylesheet; a lazy route adds its pack (all its chunks in one file,
scripts/pack-pages.py) or, without one, the chunks PKG/pages.json lists. A page that
shows a protocol's panel is printed once without one (an S4 debate's) and once with each panel
(`audit + es_panel`: an ES debate's audit page), as the server preloads it. A debate's live page
asked for by address is sent with its protocol's live bundle alone (`live-escalation (by
address)`), when the site has them; through the split bundle (`live + es_panel (split)`) is how
a site without them sends it, and a link from another page fetches its pack of that."""
import json
import os
import re
import sys

pkg = sys.argv[1]


def kib(names, ext=".br"):
    return sum(os.path.getsize(os.path.join(pkg, n + ext)) for n in names) / 1024


def main():
    loader = [f for f in os.listdir(pkg) if re.fullmatch(r"__wasm_split\..*\.js", f)]
    # The main module and its glue: consilium.H.js / consilium.H.wasm (scripts/hash-bundle.py).
    main_files = [f for f in os.listdir(pkg) if re.fullmatch(r"consilium(\.[0-9a-f]+\.js|\.[0-9a-f]+\.wasm|\.js|_bg\.wasm)", f)]
    first = main_files + ["consilium.css"] + loader
    with open(os.path.join(pkg, "pages.json")) as f:
        manifest = json.load(f)["pages"]
    pages = []
    fetched = lambda code: [code["pack"] + ".bin"] if code["pack"] else [c + ".wasm" for c in code["chunks"]]
    for split, page in sorted(manifest.items()):
        name = page["name"]
        if name.endswith("_panel"):
            continue  # loaded with a page (below), never alone first
        pages.append(("home (/)" if name == "home" else name, fetched(page)))
        for panel, code in sorted(page["panels"].items()):
            pages.append((f"{name} + {panel}", fetched(code)))
    pages.sort(key=lambda page: page[0] != "home (/)")
    every = [f for f in os.listdir(pkg) if f.endswith((".wasm", ".js", ".css"))]
    packed = [f for f in os.listdir(pkg) if f.endswith(".bin")]
    print(f"bundle: {len(every)} files, {kib(every, '') :,.0f} KiB raw, {kib(every, '.gz'):,.0f} KiB gzip, "
          f"{kib(every):,.0f} KiB brotli in all; and {len(packed)} packs of a page's chunks, "
          f"{kib(packed):,.0f} KiB brotli")
    print("page: on the wire before it works (brotli; raw)")
    live_glues = sorted(f for f in os.listdir(pkg) if re.fullmatch(r"live-\w+\.[0-9a-f]+\.js", f))
    for name, chunks in pages:
        if live_glues and name.startswith("live"):
            name += " (split)"  # by address, it takes its live bundle (below)
        files = first + chunks
        print(f"  {name:<30} {kib(files):7,.0f} KiB  ({kib(files, ''):,.0f} KiB raw, {len(files)} files)")
    # The live bundles: a debate's live page asked for by address loads its protocol's instead
    # of all of the above (its glue, its module, the stylesheet).
    for glue in live_glues:
        stem = glue.split(".")[0]
        files = [glue, glue[: -len(".js")] + ".wasm", "consilium.css"]
        name = f"{stem} (by address)"
        print(f"  {name:<30} {kib(files):7,.0f} KiB  ({kib(files, ''):,.0f} KiB raw, {len(files)} files)")


main()
