#!/usr/bin/env python3
"""Trunk post_build hook (Trunk.toml): gives the static judge viewer its Content-Security-Policy.

Trunk writes the wasm loader as an inline module script whose text (hashed file names) changes with
every build, so the policy, which allows that script by its SHA-256, is written after the HTML.
Like viewer.html: no third-party origin, WebAssembly allowed, nothing sent anywhere else.
"""
import base64
import hashlib
import os
import re
import sys

html_path = os.path.join(os.environ["TRUNK_STAGING_DIR"], "index.html")
page = open(html_path, encoding="utf-8").read()
inline = [m.group(1) for m in re.finditer(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", page, re.S)]
if not inline:
    sys.exit("viewer-static-csp: no inline loader script in index.html: did Trunk change its output?")
hashes = " ".join(
    "'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'" for s in inline
)
# 'self' scripts are the wasm-bindgen glue and boot.js; connect-src 'self' is the .wasm fetch;
# style-src 'unsafe-inline' covers the style attributes the views set (bar widths).
csp = (
    "default-src 'none'; "
    f"script-src 'self' {hashes} 'wasm-unsafe-eval'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'"
)
meta = f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
page, n = re.subn(r'(<meta charset="utf-8">)', lambda m: m.group(1) + "\n" + meta, page, count=1)
if n != 1:
    sys.exit("viewer-static-csp: no <meta charset> to put the policy after")
open(html_path, "w", encoding="utf-8").write(page)
