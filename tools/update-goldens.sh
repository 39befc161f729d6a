#!/usr/bin/env bash
# Regenerates tests/golden/<name>.json from the current build and prints, per case, the keys that changed
# (paste them into the commit message with the reason). Usage: tools/update-goldens.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" --target loom golden_tests
LOOM_UPDATE_GOLDENS=1 "$build/tests/integration/golden_tests" "Golden*"
git status --short tests/golden
