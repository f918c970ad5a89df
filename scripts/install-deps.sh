#!/usr/bin/env bash
# Installs what rocesim needs to build, test and plot on Debian 12.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  cmake make g++ pkg-config \
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  libopenmpi-dev openmpi-bin libmetis-dev \
  python3 python3-yaml python3-numpy python3-matplotlib \
  pybind11-dev python3-dev python3-pandas \
  tshark clang-format >/dev/null
