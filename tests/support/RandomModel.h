#pragma once

// Whole models with random weights for the benchmarks: the shapes of GPT-2 small and BERT-base,
// every weight in memory (no file), initialised as scripts/bench_models_torch.py initialises its
// PyTorch peer (linear weights and embeddings uniform with std 0.02, LayerNorm weights near 1).

#include "core/model/TransformerModel.h"

#include <cstdint>
#include <memory>

namespace attn::testing {

ModelConfig gpt2SmallConfig();  // 12 layers, 12 heads, width 768, vocab 50257, 1024 positions
ModelConfig bertBaseConfig();   // 12 layers, 12 heads, width 768, intermediate 3072, vocab 30522, 512 positions

std::unique_ptr<TransformerModel> randomModel(const ModelConfig& config, std::uint64_t seed);

}  // namespace attn::testing
