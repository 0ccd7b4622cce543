// libFuzzer target: config.json through ModelConfig::fromJson, as ModelFolder::open reads it.

#include "core/model/ModelConfig.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    auto config = ModelConfig::fromJson(fuzz::bytesOf(data, size));
    if (!config) {
        fuzz::checkPrintedMessage(config.error());
        return 0;
    }
    // Every size that sets a tensor shape is positive and the heads split the width evenly.
    FUZZ_CHECK(config->num_layers > 0 && config->num_heads > 0 && config->num_kv_heads > 0);
    FUZZ_CHECK(config->hidden_size > 0 && config->intermediate_size > 0);
    FUZZ_CHECK(config->vocab_size > 0 && config->max_positions > 0 && config->type_vocab_size >= 0);
    FUZZ_CHECK(config->headDim() * config->num_heads == config->hidden_size);
    FUZZ_CHECK(config->layer_norm_eps >= 0);  // 0 is allowed, as torch.nn.LayerNorm allows it
    return 0;
}
