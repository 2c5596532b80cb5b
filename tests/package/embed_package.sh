#!/usr/bin/env bash
# The installed package, as an outside project sees it: installs this build into a fresh
# prefix, checks the installed headers (nothing but neuronsim/ at the top of the include
# tree, the internal headers under neuronsim/internal/ and only what the public ones
# need; each compiles on its own with -I<prefix>/include alone) and the exported include
# path (<prefix>/include alone), then builds two outside projects against the prefix with
# find_package(neuronsim), each with a platform's own isa/kernel.hpp and
# config/target_config.hpp first on its include path (headers that stop the build if a
# neuronsim header reaches them):
#   examples/embed           links neuronsim::core only (and no tool's library); makes a
#                            memory-bound NEFF with the installed program and runs
#     regs                   a host module driving one core through registers, HBM and irq
#     chip N                 N cores of a Device running the kernel at once (N = 2, 8)
#                            The output checksum of the register-driven run must equal
#                            every core's in the chip runs (same kernel and inputs, two
#                            ways of launching).
#   tests/package/platform   links neuronsim::neuronsim, includes its own headers of those
#                            names, builds a kernel with the builder and runs it.
# Environment (tests/CMakeLists.txt): BUILD_DIR, SOURCE_DIR, CMAKE, CXX, and
# EMBED_CXX_FLAGS / EMBED_LINK_FLAGS (the sanitizer build's flags, else empty).
set -euo pipefail
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}" "${CMAKE:=cmake}" "${CXX:=c++}"
jobs=$(nproc)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== install into $prefix (${SECONDS}s)"
"$CMAKE" --install "$BUILD_DIR" --prefix "$prefix" >"$work/install.log"
[[ -x $prefix/bin/neuronsim ]] || fail "bin/neuronsim not installed"
[[ -s $prefix/share/bash-completion/completions/neuronsim ]] || fail "bash completion not installed"
bash -n "$prefix/share/bash-completion/completions/neuronsim" || fail "bash completion does not parse"
[[ -s $prefix/share/man/man1/neuronsim.1 ]] || fail "man page not installed"
config=$(find "$prefix" -name neuronsimConfig.cmake)  # lib/ or lib/<multiarch>/
[[ -n $config ]] || fail "no neuronsimConfig.cmake"
cmakedir=$(dirname "$config")
libdir=$(dirname "$(dirname "$cmakedir")")
[[ -f $cmakedir/neuronsimConfigVersion.cmake ]] || fail "no neuronsimConfigVersion.cmake"
for lib in "$BUILD_DIR"/libneuronsim_*.a; do
  [[ -f $libdir/$(basename "$lib") ]] || fail "$(basename "$lib") not installed"
done

echo "== installed headers: exactly the public ones and what they include (${SECONDS}s)"
inc=$(realpath "$prefix/include")
[[ $(ls -A "$inc") == neuronsim ]] || fail "include/ holds more than neuronsim/: $(ls -A "$inc")"
[[ -f $inc/neuronsim/neuronsim.hpp ]] || fail "no umbrella header"
for public in "$SOURCE_DIR"/include/neuronsim/*.hpp; do
  [[ -f $inc/neuronsim/$(basename "$public") ]] || fail "$(basename "$public") not installed"
done
# Beside the public headers: the internal ones' private prefix, nothing else.
others=$(find "$inc/neuronsim" -mindepth 1 -maxdepth 1 ! -name '*.hpp' ! -name internal)
[[ -z $others ]] || fail "include/neuronsim/ holds more than the public headers and internal/: $others"
[[ -f $inc/neuronsim/internal/isa/kernel.hpp ]] || fail "no internal/isa/kernel.hpp"
for private in engines/engine.hpp sim/core_state.hpp sim/register_block.hpp memory/port.hpp \
               neff/neff.hpp semantics/semantics.hpp; do
  [[ ! -e $inc/neuronsim/internal/$private ]] || fail "private header $private installed"
done
! grep -rn 'nlohmann' "$inc" >"$work/nlohmann.txt" ||
  fail "installed headers name nlohmann: $(cat "$work/nlohmann.txt")"
# The include closure of the installed public headers, over the installed tree only and
# with <prefix>/include as the only include path: an include that resolves nowhere in it
# is a dependency's (<systemc>) or fails the compile-alone check below.
declare -A reached=()
pending=("$inc"/neuronsim/*.hpp)
while ((${#pending[@]})); do
  file=${pending[0]}
  pending=("${pending[@]:1}")
  [[ -n ${reached[$file]:-} ]] && continue
  reached[$file]=1
  while read -r name; do
    for candidate in "$(dirname "$file")/$name" "$inc/$name"; do
      [[ -f $candidate ]] && pending+=("$(realpath "$candidate")") && break
    done
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$file")
done
installed=$(cd "$inc" && find neuronsim -name '*.hpp' | sort)
needed=$(for f in "${!reached[@]}"; do echo "${f#$inc/}"; done | sort)
[[ $installed == "$needed" ]] ||
  fail "installed headers differ from what the public headers include:
$(diff <(echo "$needed") <(echo "$installed") || true)"
echo "$(echo "$installed" | wc -l) headers"

echo "== every installed header compiles on its own (${SECONDS}s)"
# Included as the installed headers include each other: <neuronsim/x.hpp>,
# <neuronsim/internal/folder/x.hpp>, with nothing but <prefix>/include on the path.
flags=(-std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$inc")
read -r -a systemc_flags <<<"$(pkg-config --cflags systemc)"
compile_alone() {
  echo "#include <$1>" | "$CXX" "${flags[@]}" "${systemc_flags[@]}" -x c++ - -o /dev/null ||
    echo "$1" >>"$work/bad_headers"
}
n=0
for name in $installed; do
  compile_alone "$name" &
  (((++n) % jobs)) || wait
done
wait
[[ ! -s $work/bad_headers ]] || fail "these headers do not compile on their own: $(cat "$work/bad_headers")"

echo "== the exported include path is <prefix>/include alone (${SECONDS}s)"
dirs=$(sed -n 's/.*INTERFACE_INCLUDE_DIRECTORIES "\([^"]*\)".*/\1/p' "$cmakedir"/neuronsimTargets.cmake |
  sort -u)
[[ $dirs == '${_IMPORT_PREFIX}/include' ]] || fail "exported include directories: $dirs"
for target in core neuronsim; do
  grep -q "add_library(neuronsim::$target INTERFACE IMPORTED)" "$cmakedir"/neuronsimTargets.cmake ||
    fail "neuronsim::$target not exported"
done

# An outside project built against the prefix, with the platform's own isa/ and config/
# headers first on the include path: build_outside <source> <build dir>.
platform_include=$SOURCE_DIR/tests/package/platform/include
build_outside() {
  "$CMAKE" -S "$1" -B "$2" -G "Unix Makefiles" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_CXX_FLAGS="-I$platform_include -Wall -Wextra -Werror ${EMBED_CXX_FLAGS:-}" \
    -DCMAKE_EXE_LINKER_FLAGS="${EMBED_LINK_FLAGS:-}" >"$2.configure.log" ||
    { cat "$2.configure.log"; fail "configure $1"; }
  grep -qx "neuronsim_DIR:PATH=$cmakedir" "$2/CMakeCache.txt" ||
    fail "find_package(neuronsim) did not find the installed package"
  "$CMAKE" --build "$2" -j"$jobs" >"$2.build.log" || { cat "$2.build.log"; fail "build $1"; }
}

echo "== build examples/embed (neuronsim::core) against the prefix (${SECONDS}s)"
build_outside "$SOURCE_DIR/examples/embed" "$work/embed"
embed=$work/embed/embed
# The model alone: no library of the tools on its link line.
link=$(cat "$work"/embed/CMakeFiles/embed.dir/link.txt)
[[ $link == *libneuronsim_sim.a* ]] || fail "embed does not link libneuronsim_sim.a: $link"
for tool in compiler report profile host io asm builder examples; do
  [[ $link != *libneuronsim_$tool.a* ]] || fail "neuronsim::core links libneuronsim_$tool.a"
done

echo "== build and run tests/package/platform (neuronsim::neuronsim) (${SECONDS}s)"
build_outside "$SOURCE_DIR/tests/package/platform" "$work/platform"
"$work/platform/platform" | tee "$work/platform.txt"
grep -q '^platform: twice ran in [0-9.]* ns, out = 2 \* a$' "$work/platform.txt" ||
  fail "platform: no result"

echo "== NEFF from the installed program (${SECONDS}s)"
neff=$work/rmsnorm.neff
"$prefix/bin/neuronsim" example rmsnorm --double-buffer --rows 4096 --cols 4096 -t trn2 \
  -o "$neff"

echo "== embed regs (${SECONDS}s)"
"$embed" regs "$neff" | tee "$work/regs.txt"
grep -q "int_status 0x1, error_code 0," "$work/regs.txt" || fail "regs: no clean done interrupt"
grep -q "interrupt cleared, irq low" "$work/regs.txt" || fail "regs: irq not cleared"
checksum=$(sed -n 's/^regs: output .*checksum \(0x[0-9a-f]*\),.*/\1/p' "$work/regs.txt")
[[ -n $checksum ]] || fail "regs: no output checksum"
grep -q "checksum $checksum, sum -\?[0-9]" "$work/regs.txt" || fail "regs: the output sum is not a number"
cycles=$(sed -n 's/.* cycles \([0-9]*\),.*/\1/p' "$work/regs.txt")
((cycles > 0)) || fail "regs: kCycles is 0"

for cores in 2 8; do
  echo "== embed chip $cores (${SECONDS}s)"
  "$embed" chip "$cores" "$neff" | tee "$work/chip$cores.txt"
  for ((i = 0; i < cores; ++i)); do
    grep -Eq "^core $i: [0-9]+\.[0-9]+ ns \([1-9][0-9]* neuroncore cycles at the profiler's counter clock\), HBM [1-9][0-9]* bytes read, [1-9][0-9]* written; output .* checksum $checksum," \
      "$work/chip$cores.txt" || fail "chip $cores: core $i has no time, HBM bytes or the regs run's checksum"
  done
  (($(grep -c '^core ' "$work/chip$cores.txt") == cores)) || fail "chip $cores: not $cores cores"
done
echo "== embed memory (${SECONDS}s)"
"$embed" memory "$neff" | tee "$work/memory.txt"
grep -Eq "^memory: trn2 core on a [0-9]+-byte memory of its own \(no DMI\): [0-9]+\.[0-9]+ ns, [1-9][0-9]* transactions; output .* checksum $checksum," \
  "$work/memory.txt" || fail "memory: no time, transactions or the regs run's checksum"
echo "embed_package: OK (${SECONDS}s)"
