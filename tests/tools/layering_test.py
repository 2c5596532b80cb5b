#!/usr/bin/env python3
"""Tests of the layering check (CTest "tools: layering check fails"): small trees, each
breaking one rule of tests/tools/layering.py once, must each fail naming the place; the
same tree without the break must pass."""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layering.py")

TABLE = """# x

## Layers

| folder | holds | depends on |
|---|---|---|
| base/ | errors | nlohmann_json |
| isa/ | the ISA | base/ |
| asm/ | the assembler | isa/, base/ |
| include/neuronsim/ | the API | isa/, base/ |

"""
CMAKE = """neuronsim_library(neuronsim_base base nlohmann_json::nlohmann_json)
neuronsim_library(neuronsim_isa isa neuronsim_base)
neuronsim_library(neuronsim_asm asm neuronsim_isa
  neuronsim_base)
"""
FILES = {
    "base/error.hpp": "#pragma once\n",
    "isa/kernel.hpp": '#pragma once\n#include "base/error.hpp"\n',
    "asm/assembler.cpp": '#include "isa/kernel.hpp"\n#include "neuronsim/api.hpp"\n#include <vector>\n',
    "include/neuronsim/api.hpp": '#pragma once\n#include "isa/kernel.hpp"\n',
}


def run(tree):
    with tempfile.TemporaryDirectory() as root:
        for rel, text in tree.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        p = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
        return p.returncode, p.stdout


def tree(**changes):
    t = {"docs/architecture.md": TABLE, "CMakeLists.txt": CMAKE, **FILES}
    for rel, text in changes.items():
        t[rel.replace("__", "/").replace("_DOT_", ".")] = text
    return t


failures = []


def expect(name, t, code, needle):
    rc, out = run(t)
    if rc != code or needle not in out:
        failures.append(f"{name}: exit {rc}, wanted {code} with '{needle}'; printed:\n{out}")


expect("clean tree passes", tree(), 0, "every #include and library link follows the table")
expect("an include upwards", tree(isa__kernel_DOT_hpp='#include "asm/assembler.hpp"\n'), 1,
       "isa/kernel.hpp:1: isa/ includes asm/assembler.hpp, but isa/ does not depend on asm/")
expect("a public header using more than its includer may",
       tree(**{"include/neuronsim/api.hpp": '#include "asm/x.hpp"\n',
               "base/error.hpp": '#include "neuronsim/api.hpp"\n'}), 1,
       "base/error.hpp:1: base/ includes neuronsim/api.hpp, which uses asm/")
expect("a cycle", tree(docs__architecture_DOT_md=TABLE.replace(
    "| base/ | errors | nlohmann_json |", "| base/ | errors | asm/ |")), 1,
    "the layer table has a cycle")
expect("a library linking what the table does not list",
       tree(CMakeLists_DOT_txt=CMAKE.replace("isa neuronsim_base)",
                                             "isa neuronsim_base neuronsim_asm)")), 1,
       "neuronsim_isa links asm/ the table does not list")
expect("a library missing a listed link",
       tree(CMakeLists_DOT_txt=CMAKE.replace("neuronsim_asm asm neuronsim_isa\n  neuronsim_base)",
                                             "neuronsim_asm asm neuronsim_isa)")), 1,
       "neuronsim_asm does not link base/ the table lists")
expect("a folder the table does not list", tree(tools__x_DOT_cpp="int x;\n"), 1,
       "tools/x.cpp: C++ source in a folder the layer table does not list")
expect("a row for a folder that does not exist",
       tree(docs__architecture_DOT_md=TABLE.replace("| asm/ | the assembler | isa/, base/ |",
                                                    "| asm/ | the assembler | isa/, gone/ |")),
       1, "names gone/, which does not exist")

for f in failures:
    print(f)
print(f"{8 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
