#!/usr/bin/env bash
# Exports every view (PNG, SVG, PDF) and the JSON for fixed inputs, with random weights and with
# the tiny model folders of the tests, and writes their SHA-256 sums (and the window's screenshots,
# to look at), so that a change which should alter nothing a user sees can be checked byte for byte:
#   scripts/snapshot_views.sh BUILD-DIR OUT-DIR
#   scripts/snapshot_views.sh --compare OUT-DIR-BEFORE OUT-DIR-AFTER
# The first form writes OUT-DIR/SHA256SUMS; the second lists the files whose sums differ (and
# exits 1 if any does). PDFs carry a creation date, so they are compared as poppler draws them
# (pdftoppm at 72 dpi), not as bytes.
set -euo pipefail

if [ "${1:-}" = "--compare" ]; then
  before=$2 after=$3
  if diff <(sort -k2 "$before/SHA256SUMS") <(sort -k2 "$after/SHA256SUMS") >/dev/null; then
    echo "identical: $(wc -l <"$before/SHA256SUMS") files"
    exit 0
  fi
  join -1 2 -2 2 <(sort -k2 "$before/SHA256SUMS") <(sort -k2 "$after/SHA256SUMS") |
    awk '$2 != $3 {print "differs: " $1}'
  comm -3 <(awk '{print $2}' "$before/SHA256SUMS" | sort) <(awk '{print $2}' "$after/SHA256SUMS" | sort) |
    sed 's/^/only in one: /'
  exit 1
fi

build=${1:?usage: scripts/snapshot_views.sh BUILD-DIR OUT-DIR}
out=${2:?usage: scripts/snapshot_views.sh BUILD-DIR OUT-DIR}
cd "$(dirname "$0")/.."
exe="$build/app/attention-lab"
[ -x "$exe" ] || { echo "error: no $exe" >&2; exit 1; }
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
models=tests/fixtures/models
sentence="The cat sat on the mat because it was tired."

# name, then the arguments of one request.
snapshot() {
  local name=$1
  shift
  for format in png svg pdf; do
    "$exe" "$@" --export "$out/$name.$format"
  done
}

snapshot grid --view grid --size 1200x900
snapshot grid-causal --view grid --causal --hide-tokens 0 --color-scale percentile --size 1200x900
snapshot head --view head --head 2 --causal --size 1000x900
snapshot head-log --view head --head 2 --color-scale log --top-mass 90 --size 1000x900
snapshot compare --view compare --compare 2,5 --size 1300x560
snapshot lines --view lines --causal --size 1200x700
snapshot shapes --view shapes --batch 32 --size 1200x900
snapshot cross --sentence "the cat sat" --kv-sentence "le chat est assis" --pad-keys 3 --view grid --size 1200x900
snapshot long-head --sentence "$(yes word | head -1500 | tr '\n' ' ')" --view head --size 1000x900
"$exe" --json "$out/layer.json"
"$exe" --sentence "the cat sat" --json "$out/layer-trace.json" --json-trace

for model in gpt2-tiny bert-tiny llama-biased; do
  args=(--model "$models/$model" --sentence "$sentence")
  [ "$model" = llama-biased ] && args=(--model "$models/$model" --token-ids 1,5,9,2,7,3)
  snapshot "$model-model" "${args[@]}" --view model --size 1200x700
  snapshot "$model-model-shapes" "${args[@]}" --view model-shapes --size 1200x660
  snapshot "$model-grid" "${args[@]}" --layer 1 --view grid --size 1200x900
  snapshot "$model-head" "${args[@]}" --layer 1 --view head --head 1 --size 1000x900
  snapshot "$model-rollout" "${args[@]}" --view rollout --size 1200x640
  snapshot "$model-qk" "${args[@]}" --layer 1 --view qk --head 1 --size 1000x700
  "$exe" "${args[@]}" --json "$out/$model.json"
done
"$exe" --model "$models/gpt2-tiny" --induction-probe 12 --view model --sort-heads induction --mark-heads induction \
  --aggregate-heads mean --export "$out/gpt2-tiny-induction.png" --size 1200x760

# The window's status bar shows how long the pass took, so its screenshots go to look/, to be
# looked at, and are not hashed.
mkdir -p "$out/look"
for tab in grid head compare lines shapes walkthrough; do
  "$exe" --tab "$tab" --screenshot "$out/look/window-$tab.png" --size 1400x900
done
for tab in model rollout qk; do
  "$exe" --model "$models/gpt2-tiny" --sentence "$sentence" --tab "$tab" \
    --screenshot "$out/look/window-gpt2-tiny-$tab.png" --size 1400x900
done

# A PDF's bytes hold its creation date: its pages as drawn stand in for it.
for pdf in "$out"/*.pdf; do
  pdftoppm -r 72 -png "$pdf" "${pdf%.pdf}.pdf-page"
  rm "$pdf"
done
(cd "$out" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%P\n' | sort | xargs sha256sum -- >SHA256SUMS)
echo "$(wc -l <"$out/SHA256SUMS") files in $out/SHA256SUMS"
