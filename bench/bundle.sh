#!/usr/bin/env bash
# A self-contained rocesim for a machine with no packages installed (the
# tool library's 16-core device machine, which reaches no registry): a
# Release build without MPI, Python, tests or benchmarks, with every shared
# library it loads and this system's dynamic loader copied beside it, and a
# `rocesim` wrapper that runs it through that loader, so neither the other
# machine's libraries nor its glibc matter. For `rocesim run` (threads; no
# MPI): a sweep re-executes its own binary, which here is the loader.
#
# usage: bench/bundle.sh [DIR=build-bundle]
#   then, on the other machine: DIR/rocesim run bench/k32_websearch_dcqcn.yaml -t 16
#   (TIME_BIN=DIR/time bench/scaling.sh DIR/rocesim ... runs the
#   thread-scaling table with the GNU time carried beside it)
set -euo pipefail
DIR=${1:-build-bundle}
SRC=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$SRC" -B "$DIR/build" -DCMAKE_BUILD_TYPE=Release -DROCESIM_PYTHON=OFF \
  -DROCESIM_TESTS=OFF -DROCESIM_BENCH=OFF -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON >/dev/null
cmake --build "$DIR/build" -j"$(nproc)" --target rocesim
mkdir -p "$DIR/lib"
cp "$DIR/build/rocesim" "$DIR/lib/rocesim.bin"
loader=""
while read -r name _ path _; do
  if [ "${name#/}" != "$name" ]; then loader=$name; continue; fi  # the loader itself
  [ -n "${path:-}" ] && [ -f "$path" ] && cp -L "$path" "$DIR/lib/"
done < <(ldd "$DIR/build/rocesim")
[ -n "$loader" ] || { echo "bundle.sh: ldd named no dynamic loader" >&2; exit 1; }
cp -L "$loader" "$DIR/lib/ld.so"
# The built-in flow-size CDFs (`cdf: websearch`), found through
# ROCESIM_DATA_DIR (core/data_path.h): the binary's own path is the loader's.
mkdir -p "$DIR/share"
cp -r "$SRC/data/cdf" "$DIR/share/"
# wrap NAME [LINE]: DIR/NAME runs DIR/lib/NAME.bin through the bundled
# loader and libraries, after the shell line LINE if given.
wrap() {
  {
    printf '#!/bin/sh\nhere=$(cd "$(dirname "$0")" && pwd)\n'
    if [ -n "${2:-}" ]; then printf '%s\n' "$2"; fi
    printf 'exec "$here/lib/ld.so" --library-path "$here/lib" "$here/lib/%s.bin" "$@"\n' "$1"
  } >"$DIR/$1"
  chmod +x "$DIR/$1"
}
wrap rocesim 'export ROCESIM_DATA_DIR="${ROCESIM_DATA_DIR:-$here/share}"'
# GNU time for bench/scaling.sh (TIME_BIN=DIR/time): a bare machine may
# have none.
if [ -x /usr/bin/time ]; then
  cp -L /usr/bin/time "$DIR/lib/time.bin"
  wrap time
fi
echo "bundle: $DIR/rocesim ($(du -sh "$DIR/lib" | cut -f1) in $DIR/lib)"
