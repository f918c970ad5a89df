#!/usr/bin/env bash
# An installed rocesim works on its own (issue #18, "Install and first
# look"; issue #20, "Relocatable"): `cmake --install` into a prefix, moved
# elsewhere so nothing can come from the build or source tree, then the
# installed binary runs an installed example, a scenario drawing flow sizes
# from a built-in CDF, its report and the validation listing, and the
# installed Python module runs a scenario. With --deb, also builds the
# Debian package with CPack and checks its contents and dependencies.
#   tests/install/install_test.sh BUILD_DIR [--deb]
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }
# flows.KEY of a results directory's summary.json.
flows() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["flows"][sys.argv[2]])' "$1/summary.json" "$2"; }

cmake --install "$build" --prefix "$tmp/staged" >/dev/null
mv "$tmp/staged" "$tmp/moved"  # relocated: the compiled-in paths lead nowhere
p=$tmp/moved
export ROCESIM_DATA_DIR=  # the installed layout alone
cd "$tmp"

[ -x "$p/bin/rocesim" ] || fail "no bin/rocesim"
for f in share/rocesim/cdf/websearch.txt share/rocesim/python/rocesim_report.py \
  share/rocesim/validation/validate.py share/rocesim/examples/quickstart.yaml \
  share/doc/rocesim/README.md; do
  [ -f "$p/$f" ] || fail "missing $f"
done

# An installed example, with its monitors; then its report.
"$p/bin/rocesim" run "$p/share/rocesim/examples/quickstart.yaml" -q -o qs
[ "$(flows qs completed)" = 16 ] || fail "quickstart did not complete its 16 flows"
[ -s qs/queues.csv ] && [ -s qs/counters.csv ] || fail "quickstart wrote no monitor files"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  MPLBACKEND=Agg "$p/bin/rocesim" report qs >/dev/null
  for png in queue_occupancy port_throughput pause_frames; do
    [ -s "qs/report/$png.png" ] || fail "report drew no $png.png"
  done
fi

# A built-in CDF found under share/rocesim/cdf.
"$p/bin/rocesim" run "$p/share/rocesim/examples/rcm-workloads.yaml" -q -o cdf \
  --set duration=50us --set traffic.0.cdf=websearch
[ "$(flows cdf total)" -gt 0 ] || fail "no flows drawn from the websearch CDF"

"$p/bin/rocesim" validate --help | grep -q -- --quick || fail "validate found no validation suite"

# The installed Python module (lib/python3/dist-packages under the prefix).
pkg=$(find "$p/lib" -name _core*.so -path '*rocesim*' | head -1)
if [ -n "$pkg" ]; then
  PYTHONPATH=$(dirname "$(dirname "$pkg")") /usr/bin/python3 - "$p" <<'PY'
import sys, rocesim
prefix = sys.argv[1]
assert rocesim.__file__.startswith(prefix), rocesim.__file__
r = rocesim.run(prefix + "/share/rocesim/examples/quickstart.yaml", overrides={"monitors.interval": 0})
assert r.summary["flows"]["completed"] == 16, r.summary["flows"]
PY
fi

if [ "${2:-}" = "--deb" ]; then
  (cd "$build" && cpack -G DEB -B "$tmp/deb" >/dev/null)
  deb=$(ls "$tmp"/deb/rocesim_*_amd64.deb)
  dpkg-deb -c "$deb" >contents.txt
  grep -q ' ./usr/bin/rocesim$' contents.txt || fail ".deb lacks /usr/bin/rocesim"
  grep -q ' ./usr/share/rocesim/cdf/websearch.txt$' contents.txt || fail ".deb lacks the CDFs"
  dpkg-deb -f "$deb" Depends | grep -q 'libyaml-cpp' || fail ".deb Depends lacks yaml-cpp"
  # Unpacked (as dpkg would, without installing), it runs from its /usr tree.
  dpkg-deb -x "$deb" "$tmp/root"
  "$tmp/root/usr/bin/rocesim" run "$tmp/root/usr/share/rocesim/examples/quickstart.yaml" -q \
    -o deb_qs --set monitors.interval=0
  [ "$(flows deb_qs completed)" = 16 ] || fail "the packaged binary's run failed"
fi
echo "install test: ok ($p)"
