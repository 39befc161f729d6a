#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root): installs what is missing, builds, then
#   tools/setup.sh demo   runs the flagship demo: a scheduled all-reduce on 264 TSPs beside dynamic routing
#   tools/setup.sh test   runs the whole test suite (ctest, in parallel)
#   tools/setup.sh asan   runs the unit tests once more in an ASan+UBSan build
#   tools/setup.sh fuzz   runs the libFuzzer targets (config and sweep readers) for a fixed number of inputs
#   tools/setup.sh build  only installs and builds
# Idempotent: packages already present are not reinstalled and builds are incremental. Each mode sets every
# CMake option it depends on, so modes can follow one another in one checkout in any order (the CMake cache
# would otherwise keep the previous mode's choice).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-demo}"
jobs="$(nproc 2>/dev/null || echo 2)"
packages=(build-essential cmake ninja-build pkg-config libboost-graph-dev libfmt-dev libspdlog-dev
          libcli11-dev catch2 nlohmann-json3-dev libbenchmark-dev python3 python3-matplotlib)

# Only the fuzz mode needs clang and its libFuzzer runtime.
if [ "$mode" = fuzz ]; then packages+=(clang libclang-rt-14-dev); fi
# Only the test mode needs Open MPI: it runs a sweep over 2 ranks against a single process (LOOM_MPI=ON there;
# the other modes build with LOOM_MPI=AUTO, or OFF under the sanitizers, which would report MPI's own allocations).
if [ "$mode" = test ]; then packages+=(libopenmpi-dev openmpi-bin); fi

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

# build DIR [cmake args...] [-- targets...]
build() {
    local dir="$1"; shift
    local args=() targets=()
    while (($#)); do
        if [ "$1" = -- ]; then shift; targets=("$@"); break; fi
        args+=("$1"); shift
    done
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOOM_UNITY_BUILD=ON "${args[@]}" >/dev/null
    if ((${#targets[@]})); then
        cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
    else
        cmake --build "$dir" -j "$jobs"
    fi
}

install_packages
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON

# Fixed number of inputs per fuzz target: a few seconds each in CI (override with LOOM_FUZZ_RUNS).
fuzz_runs="${LOOM_FUZZ_RUNS:-10000}"

case "$mode" in
    build)
        build build -DLOOM_WERROR="$werror" -DLOOM_SANITIZE=OFF -DLOOM_FUZZ=OFF -DLOOM_BUILD_TESTS=ON \
            -DLOOM_BUILD_BENCH=ON -DLOOM_MPI=AUTO ;;
    demo)
        build build -DLOOM_WERROR="$werror" -DLOOM_SANITIZE=OFF -DLOOM_FUZZ=OFF -DLOOM_BUILD_TESTS=OFF \
            -DLOOM_BUILD_BENCH=OFF -DLOOM_MPI=AUTO
        ./build/src/cli/loom schedule configs/tsp/compare-264.json --compare dynamic --brief ;;
    test)
        build build -DLOOM_WERROR="$werror" -DLOOM_SANITIZE=OFF -DLOOM_FUZZ=OFF -DLOOM_BUILD_TESTS=ON \
            -DLOOM_BUILD_BENCH=ON -DLOOM_MPI=ON
        (cd build && ctest -j "$jobs" --output-on-failure --no-tests=error --timeout 600) ;;
    asan)
        # Only the unit tests are built; -O1 -g1 compiles in about 40% less time than -O2 -g and still gives
        # sanitizer reports with function names and lines.
        build build-asan -DLOOM_WERROR="$werror" -DLOOM_SANITIZE=ON -DLOOM_FUZZ=OFF -DLOOM_BUILD_TESTS=ON \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
            -DLOOM_BUILD_BENCH=OFF -DLOOM_MPI=OFF -- loom_unit_tests
        (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            ctest -j "$jobs" -L unit --output-on-failure --no-tests=error --timeout 900) ;;
    fuzz)
        # Only the two fuzz targets and the layers they read with are built (clang, ASan+UBSan, libFuzzer).
        cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
            -DLOOM_WERROR=OFF -DLOOM_SANITIZE=OFF -DLOOM_FUZZ=ON -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_BENCH=OFF \
            -DLOOM_MPI=OFF >/dev/null
        cmake --build build-fuzz -j "$jobs" --target loom_config_fuzz loom_sweep_fuzz
        for target in config sweep; do
            # A scratch corpus: new inputs found in one run never land in the source tree.
            work="build-fuzz/corpus-$target"
            mkdir -p "$work"
            echo "setup: fuzzing the $target reader for $fuzz_runs inputs" >&2
            log="build-fuzz/fuzz-$target.log"
            if ! UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./build-fuzz/tests/fuzz/loom_${target}_fuzz \
                -runs="$fuzz_runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build-fuzz/ \
                "$work" "tests/fuzz/corpus/$target" >"$log" 2>&1; then
                tail -n 60 "$log" >&2
                echo "setup: the $target fuzz target failed (build-fuzz/ holds the crashing input)" >&2
                exit 1
            fi
            grep -E "^(Done|stat::number_of_executed_units)" "$log" >&2 || true
        done ;;
    *)
        echo "usage: tools/setup.sh demo|test|asan|fuzz|build" >&2; exit 2 ;;
esac
