#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root): installs what is missing, builds, then
#   tools/setup.sh demo   runs the flagship demo: a scheduled all-reduce on 264 TSPs beside dynamic routing
#   tools/setup.sh test   runs the whole test suite (ctest, in parallel)
#   tools/setup.sh asan   runs the unit tests once more in an ASan+UBSan build
#   tools/setup.sh build  only installs and builds
# Idempotent: packages already present are not reinstalled and builds are incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-demo}"
jobs="$(nproc 2>/dev/null || echo 2)"
packages=(build-essential cmake ninja-build pkg-config libboost-graph-dev libfmt-dev libspdlog-dev
          libcli11-dev catch2 nlohmann-json3-dev libbenchmark-dev python3 python3-matplotlib)

install_packages() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "setup: installing ${missing[*]}" >&2
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# build DIR [cmake args...]
build() {
    local dir="$1"; shift
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
    cmake --build "$dir" -j "$jobs"
}

install_packages
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON

case "$mode" in
    build)
        build build -DLOOM_WERROR="$werror" ;;
    demo)
        build build -DLOOM_WERROR="$werror" -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_BENCH=OFF
        ./build/src/cli/loom schedule configs/tsp/compare-264.json --compare dynamic --brief ;;
    test)
        build build -DLOOM_WERROR="$werror"
        (cd build && ctest -j "$jobs" --output-on-failure --timeout 600) ;;
    asan)
        build build-asan -DLOOM_WERROR="$werror" -DLOOM_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DLOOM_BUILD_BENCH=OFF
        (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            ctest -j "$jobs" -L unit --output-on-failure --timeout 900) ;;
    *)
        echo "usage: tools/setup.sh demo|test|asan|build" >&2; exit 2 ;;
esac
