#pragma once

#include "core/attention/KeyValueCache.h"
#include "core/model/ModelRun.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

// What a causal model's forward pass leaves for the next one, so that typing at the end of the
// sentence computes only the new tokens (TransformerModel::forward with a cache): every layer's
// keys and values after any position rotation (num_kv_heads heads with grouped-query attention),
// and the run they belong to, whose token ids, attention rows, last hidden state and selected
// layer's rows are reused for the unchanged prefix.
//   memory: 2 * L * T * kv_dim floats of keys and values (GPT-2 small at T = 1024: 75.5 MB),
//   planned by TransformerForward::checkInput with the maps, plus the run, which is shared with
//   the caller (not copied).
// A cache belongs to one model and one sequence of calls on one thread at a time.
struct ForwardCache {
    const void* model = nullptr;          // the model whose keys these are, by address: clear() when it goes
    std::vector<KeyValueCache> layers;    // L x (K, V), each (T, kv_dim)
    std::shared_ptr<const ModelRun> run;  // the pass that filled them: token_ids are the T cached tokens

    void clear()
    {
        model = nullptr;
        layers.clear();
        run.reset();
    }
    int length() const { return run ? run->seqLen() : 0; }
    std::int64_t bytes() const
    {
        std::int64_t total = 0;
        for (const KeyValueCache& layer : layers)
            total += layer.bytes();
        return total;
    }
};

}  // namespace attn
