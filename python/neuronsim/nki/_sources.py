"""The source table of a traced kernel: its Python files and each instruction's line, in
the assembly's `source NAME "PATH" text="..."` declarations and `@NAME:LINE` suffixes
(docs/assembly.md, "Source locations"). The NEFF keeps them (docs/neff.md, version 1.1),
so `neuronsim view`, `report`, Perfetto and the viewer name and search the Python lines,
and the report's source view shows the text with each line's device time.
"""
from __future__ import annotations

import os
import re

# The assembler's and NEFF's bounds (isa/kernel.hpp): a file's text over this is left out
# (the locations stay), and so are texts past the total.
MAX_TEXT_BYTES = 4 << 20
MAX_TOTAL_BYTES = 16 << 20
MAX_FILES = 1024


def quote(text):
    """A string literal the assembler's lexer reads back as `text` (asm/lexer.cpp)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _read(path):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_BYTES + 1)
    except OSError:
        return ""
    if len(data) > MAX_TEXT_BYTES:
        return ""
    return data.decode("utf-8", errors="replace")


class SourceTable:
    """Files in order of first use, each with an assembly name not in `taken`."""

    def __init__(self, taken=()):
        self._taken = set(taken)
        self._files = {}  # path -> name
        self._order = []

    def at(self, location):
        """The `@NAME:LINE` suffix of an instruction traced at (path, line), or ""."""
        if not location:
            return ""
        path, line = location
        if not path or not line or int(line) < 1:
            return ""
        name = self._files.get(path)
        if name is None:
            if len(self._order) >= MAX_FILES:
                return ""
            stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]) or "src"
            name, n = f"py_{stem}", 1
            while name in self._taken:
                n += 1
                name = f"py_{stem}_{n}"
            self._taken.add(name)
            self._files[path] = name
            self._order.append(path)
        return f"@{name}:{int(line)}"

    def declarations(self):
        """The `source` statements, one per file used, texts read from disk now."""
        out, total = [], 0
        for path in self._order:
            if "\n" in path or "\0" in path:
                path_text = path.replace("\n", " ").replace("\0", " ")
            else:
                path_text = path
            text = _read(path)
            size = len(text.encode("utf-8"))
            if total + size > MAX_TOTAL_BYTES:
                text, size = "", 0
            total += size
            decl = f"source {self._files[path]} {quote(path_text)}"
            out.append(decl + (f" text={quote(text)}" if text else ""))
        return out
