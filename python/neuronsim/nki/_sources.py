"""The source table of a traced kernel: its Python files and each instruction's line, in
the assembly's `source NAME "PATH"` declarations and `@NAME:LINE` suffixes (docs/assembly.md,
"Source locations"). neuronsim.assemble embeds each file's text (python/core/module.cpp),
and the NEFF keeps all of it (docs/neff.md, version 1.1), so `neuronsim view`, `report`,
Perfetto and the viewer name and search the Python lines, and the report's source view
shows the text with each line's device time. The generated assembly itself holds no
Python text: it stays short and searchable (`.asm()`).
"""
from __future__ import annotations

import os
import re

MAX_FILES = 1024  # the assembler's bound (isa/kernel.hpp)


def quote(text):
    """A string literal the assembler's lexer reads back as `text` (asm/lexer.cpp)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class SourceTable:
    """Files in order of first use, each with an assembly name not in `taken`."""

    def __init__(self, taken=()):
        self._taken = set(taken)
        self._files = {}  # path -> name
        self._order = []
        self._suffix = {}  # location -> its suffix (a loop body's lines recur)

    def at(self, location):
        """The `@NAME:LINE` suffix of an instruction traced at (path, line), or ""."""
        suffix = self._suffix.get(location)
        if suffix is None:
            suffix = self._suffix[location] = self._at(location)
        return suffix

    def _at(self, location):
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

    def files(self):
        """(name, path as declared) of each file used, in order."""
        return [(self._files[path], path.replace("\n", " ").replace("\0", " "))
                for path in self._order]

    def declarations(self):
        """The `source` statements, one per file used."""
        return [f"source {name} {quote(shown)}" for name, shown in self.files()]
