#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz in build-fuzz/ (clang, ASan + UBSan, one target per
# parser) and runs each for SECONDS (default 30) with its dictionary, starting from its committed
# seed corpus (tests/fuzz/corpus/<target>/, read-only) plus what earlier runs found
# (build-fuzz/corpus/<target>/). A crash, a leak, an allocation over 2 GiB or an input taking
# over 10 s stops the run and leaves the input in build-fuzz/findings/<target>/; minimise it with
#   build-fuzz/tests/fuzz/<target> -minimize_crash=1 -runs=100000 FILE
# and commit it to tests/fuzz/regressions/<target>/ with a test. Prints each target's executions
# and coverage (libFuzzer's cov: and ft:). Targets run one after another, on one core.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(fuzz_safetensors fuzz_npy fuzz_npz fuzz_json_weights fuzz_weight_file fuzz_model_config
    fuzz_tokenizer_json fuzz_vocab_json fuzz_merges_txt fuzz_vocab_txt fuzz_model_index fuzz_session)
fi

missing=()
for p in clang libclang-rt-14-dev; do  # libclang-rt-14-dev ships libFuzzer (also as libfuzzer-14-dev)
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

source scripts/ccache-env.sh
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DATTENTION_LAB_FUZZ=ON "${launcher[@]}" >/dev/null
cmake --build build-fuzz --parallel "$(nproc)" --target "${targets[@]}"

export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
summary=()
for target in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$target" "build-fuzz/findings/$target"
  log="build-fuzz/findings/$target.log"
  echo "== $target: $seconds s"
  if ! "build-fuzz/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -dict="tests/fuzz/$target.dict" -artifact_prefix="build-fuzz/findings/$target/" -print_final_stats=1 \
    "build-fuzz/corpus/$target" "tests/fuzz/corpus/$target" >"$log" 2>&1; then
    status=1
    echo "   FINDING: see $log and build-fuzz/findings/$target/"
  fi
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  summary+=("$target: ${runs:-?} executions; last status: ${last:-none}")
done
printf '%s\n' "${summary[@]}"
exit $status
