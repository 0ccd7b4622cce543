#!/usr/bin/env bash
# Makes the pictures of the README and docs/ with the command line, exactly as the window draws them:
#   scripts/make_readme_images.sh [build-dir]
# Headless: works with no display (QT_QPA_PLATFORM=offscreen).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
exe="$build/app/attention-lab"
[ -x "$exe" ] || cmake --build "$build" --target attention-lab
out=docs/images
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen

# Every head of the default sentence, random weights (seed 0).
"$exe" --export "$out/heads-grid.png" --view grid --size 1200x900
# The same heads with the causal (decoder) mask: the upper triangles are hatched.
"$exe" --export "$out/heads-grid-causal.png" --view grid --causal --size 1200x900
# One head large, causal, with the weights written in the cells.
"$exe" --export "$out/head-causal.png" --view head --head 2 --causal --size 1000x900
# The causal grid with the first token hidden (each row renormalised over the others) and the
# weights clipped at their 99th percentile; one head on the logarithmic scale.
"$exe" --export "$out/heads-grid-hidden-first.png" --view grid --causal --hide-tokens 0 --color-scale percentile \
  --size 1200x900
"$exe" --export "$out/head-log.png" --view head --head 2 --causal --color-scale log --size 1000x900
# A vector version for papers.
"$exe" --export "$out/heads-grid.svg" --view grid --size 1200x900

# The shape diagram of the classic example: batch 32, 10 tokens, d_model 512, 8 heads.
classic="The quick brown fox jumps over the lazy sleeping dog"
"$exe" --export "$out/shapes-classic.png" --view shapes --batch 32 --sentence "$classic" --size 1200x900
"$exe" --export "$out/shapes-classic.svg" --view shapes --batch 32 --sentence "$classic" --size 1200x900
# Two heads side by side with their difference.
"$exe" --export "$out/compare.png" --view compare --compare 2,5 --size 1300x560
# Whole models (the tiny GPT-2 and BERT checkpoints of the tests, random weights in the hub's
# layout): every layer x head as one grid (the Model tab), and the shapes of the whole model.
models=tests/fixtures/models
model_sentence="The cat sat on the mat because it was tired."
"$exe" --model "$models/gpt2-tiny" --sentence "$model_sentence" --view model --export "$out/model-gpt2-tiny.png" --size 1200x700
"$exe" --model "$models/bert-tiny" --sentence "$model_sentence" --view model --export "$out/model-bert-tiny.png" --size 1200x560
"$exe" --model "$models/gpt2-tiny" --sentence "$model_sentence" --view model-shapes --export "$out/shapes-model-gpt2-tiny.png" --size 1200x660
# Every head framed by its weight on the first token (the attention sink).
"$exe" --model "$models/gpt2-tiny" --sentence "$model_sentence" --view model --mark-heads first --export "$out/model-gpt2-tiny-first.png" --size 1200x700
# The induction probe (random ids given twice): each layer's heads sorted by their induction score,
# with an extra column of each layer's mean, a row of each head across the layers and their corner.
"$exe" --model "$models/gpt2-tiny" --induction-probe 12 --view model --sort-heads induction --mark-heads induction \
  --aggregate-heads mean --export "$out/model-gpt2-tiny-induction-sorted.png" --size 1200x760
# The rollout with the first token (the attention sink) hidden, on the logarithmic scale.
"$exe" --model "$models/gpt2-tiny" --sentence "$model_sentence" --view rollout --hide-tokens 0 --color-scale log \
  --export "$out/rollout-gpt2-tiny-hidden-log.png" --size 1200x640
# One head's queries and keys in one scatter (the tiny GPT-2, layer 1, head 2).
"$exe" --model "$models/gpt2-tiny" --sentence "$model_sentence" --view qk --layer 1 --head 2 --export "$out/qk-gpt2-tiny.png" --size 1000x700
# Attention rollout across the tiny GPT-2's layers, and the last token's row as bars.
"$exe" --model "$models/gpt2-tiny" --sentence "$model_sentence" --view rollout --export "$out/rollout-gpt2-tiny.png" --size 1200x640
# A Llama-family model: the tiny Llama checkpoint with the small Llama 3-style tokenizer of the
# tokenizer tests. Grouped-query attention shows as the "kv" brackets over the heads that share a
# key/value head; the shapes gain the rotary step and the repeat of K and V.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
llama="$scratch/llama-tiny"  # the folder's name is the picture's title
mkdir "$llama"
cp "$models/llama-tiny/"* tests/data/tokenizers/llama3-tiny/tokenizer.json "$llama/"
"$exe" --model "$llama" --sentence "$model_sentence" --view model --export "$out/model-llama-tiny.png" --size 1200x700
"$exe" --model "$llama" --sentence "$model_sentence" --view shapes --export "$out/shapes-llama-tiny.png" --size 1200x900
# The window itself, one screenshot per tab, at the default window size.
for tab in grid head compare lines shapes walkthrough; do
  "$exe" --screenshot "$out/window-$tab.png" --tab "$tab" --head 2 --compare 2,5 --batch 32 --size 1400x900
done
# The toy example of the Examples menu in the walkthrough: every number can be checked by hand.
"$exe" --screenshot "$out/window-walkthrough-toy.png" --tab walkthrough --example toy --size 1400x900

ls -l "$out"
