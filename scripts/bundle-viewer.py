#!/usr/bin/env python3
"""Writes the offline audit viewer: one self-contained HTML file (stylesheet, wasm-bindgen glue and
the WebAssembly module inlined) that a judge opens from disk, with no server and no network.

Usage: bundle-viewer.py <no-modules glue .js> <optimised .wasm> <stylesheet .css> <out .html>
"""
import base64
import hashlib
import sys

glue_path, wasm_path, css_path, out_path = sys.argv[1:5]
glue = open(glue_path, encoding="utf-8").read()
css = open(css_path, encoding="utf-8").read()
wasm = base64.b64encode(open(wasm_path, "rb").read()).decode("ascii")
for name, text in (("glue", glue), ("stylesheet", css)):
    if "</script" in text.lower() or "</style" in text.lower():
        sys.exit(f"bundle-viewer: the {name} contains a closing tag and cannot be inlined")

glue_script = f"\n{glue}\n"
boot_script = f"""
(async () => {{
  const bytes = Uint8Array.from(atob("{wasm}"), (c) => c.charCodeAt(0));
  await wasm_bindgen({{ module_or_path: bytes }});
  wasm_bindgen.viewer();
}})().catch((e) => {{
  document.body.insertAdjacentText("afterbegin", "The viewer could not start: " + e);
}});
"""


def sha256(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


# The viewer's own Content-Security-Policy: only these two scripts (by hash) run, WebAssembly is
# allowed, and it may not load or send anything (connect-src 'none'): a judge's log stays on disk.
csp = (
    "default-src 'none'; "
    f"script-src {sha256(glue_script)} {sha256(boot_script)} 'wasm-unsafe-eval'; "
    "style-src 'unsafe-inline'; img-src data:; connect-src 'none'; "
    "base-uri 'none'; form-action 'none'"
)

page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Consilium · offline audit viewer</title>
<style>
{css}
</style>
</head>
<body>
<noscript>The viewer verifies logs with WebAssembly: enable JavaScript to use it.</noscript>
<script>{glue_script}</script>
<script>{boot_script}</script>
</body>
</html>
"""
with open(out_path, "w", encoding="utf-8") as f:
    f.write(page)
print(f"offline viewer written to {out_path}: {len(page.encode()) // 1024} KiB")
