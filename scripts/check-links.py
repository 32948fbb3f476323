#!/usr/bin/env python3
"""Checks that the repository's Markdown points at things that exist.

- Every relative link [text](path#anchor) names a file or folder that exists and, in a Markdown
  file, a heading that exists (GitHub's anchors: lower case, punctuation dropped, spaces as -).
- Every path written in backticks as a file of the repository (`gateway/server/router.cpp`,
  `signet/plugin.hpp`) exists, from the root, the Markdown file's folder, or an include root.

Files move; prose that still names the old place misleads the next engineer. ctest runs this
(docs_links). Usage: scripts/check-links.py [ROOT]
"""
import glob
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
skip = ("build", "node_modules", ".git")
# Where a path written in backticks may start: include roots and the example plugin's root.
search = ["", "sdk/include", "sdk/testkit/include", "gateway", "sdk/examples/hello-plugin"]
path_pattern = re.compile(
    r"`([\w.-]+(?:/[\w.-]+)+\.(?:cpp|hpp|h|md|sh|mjs|js|json|txt|py|cmake|service))`")


def markdown_files():
    for path in glob.glob(os.path.join(root, "**", "*.md"), recursive=True):
        parts = os.path.relpath(path, root).split(os.sep)
        if not any(p.startswith(skip) for p in parts[:-1]):
            yield path


def anchors(path):
    """GitHub's anchors: headings outside code fences, lower case, punctuation dropped, spaces
    as -, and a repeated heading's anchor suffixed -1, -2, ..."""
    out, fenced = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fenced = not fenced
            m = None if fenced else re.match(r"^#+\s+(.*)", line)
            if m:
                anchor = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
                n, unique = 0, anchor
                while unique in out:
                    n += 1
                    unique = f"{anchor}-{n}"
                out.add(unique)
    return out


def problems(path):
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)  # examples, not claims
    here = os.path.dirname(path)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        base = root if file.startswith("/") else here  # "/docs/x.md": from the repository's root
        dest = os.path.normpath(os.path.join(base, file.lstrip("/"))) if file else path
        if not os.path.exists(dest):
            yield f"link {target}: no such file"
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            yield f"link {target}: no heading '{anchor}' in {os.path.relpath(dest, root)}"
    for m in path_pattern.finditer(text):
        name = m.group(1)
        if name.split("/")[0].isupper():  # a placeholder: DIR/signet.json
            continue
        places = [os.path.join(root, s, name) for s in search] + [os.path.join(here, name)]
        if not any(os.path.exists(p) for p in places):
            yield f"`{name}`: no such file"


broken = 0
files = sorted(markdown_files())
for path in files:
    for problem in problems(path):
        print(f"{os.path.relpath(path, root)}: {problem}")
        broken += 1
print(f"{len(files)} Markdown files, {broken} broken references")
sys.exit(1 if broken else 0)
