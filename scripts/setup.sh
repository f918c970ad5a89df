#!/usr/bin/env bash
# One-time setup of a fresh Debian 12 machine: dependencies, then the build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
