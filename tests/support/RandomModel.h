#pragma once

// Whole models with random weights for the benchmarks: the shapes of GPT-2 small, BERT-base,
// SmolLM2-135M and Qwen2.5-0.5B,
// every weight in memory (no file), initialised as scripts/bench_models_torch.py initialises its
// PyTorch peer (linear weights and embeddings uniform with std 0.02, LayerNorm weights near 1).
// SmolLM2's and Qwen2's values are rounded to bfloat16, as their BF16 checkpoints hold them (so their
// MLPs run on the tiles where the processor has them: TileWeights).

#include "core/model/TransformerModel.h"

#include <cstdint>
#include <memory>

namespace attn::testing {

ModelConfig gpt2SmallConfig();  // 12 layers, 12 heads, width 768, vocab 50257, 1024 positions
ModelConfig bertBaseConfig();   // 12 layers, 12 heads, width 768, intermediate 3072, vocab 30522, 512 positions

// 30 layers, 9 heads / 3 key/value heads, width 576, intermediate 1536, vocab 49152, rope_theta 1e5
ModelConfig smollm2Config();
// 24 layers, 14 heads / 2 key/value heads, width 896, intermediate 4864, vocab 151936, q/k/v biases,
// rope_theta 1e6
ModelConfig qwen2HalfBConfig();

std::unique_ptr<TransformerModel> randomModel(const ModelConfig& config, std::uint64_t seed);

// A Hugging Face GPT-2 folder of config.json and an F32 model.safetensors with random weights in
// the names, shapes and layout of the hub's `gpt2` (no prefix, Conv1D (in, out) weights), written
// tensor by tensor (GPT-2 small: 498 MB). False when a file cannot be written.
bool writeGpt2Folder(const QString& dir, const ModelConfig& config, std::uint64_t seed);

}  // namespace attn::testing
