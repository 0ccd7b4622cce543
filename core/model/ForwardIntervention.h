#pragma once

#include "core/base/Tensor.h"

#include <QString>

#include <atomic>
#include <functional>
#include <vector>

namespace attn {

// Where in block l of a forward pass an activation is read or replaced.
enum class InterventionSite {
    Residual,   // the block's input (T, C): transformers' hidden_states[l] (the BERT family: the
                // layer's input, which its attention reads)
    Attention,  // the attention sub-layer's output after the output projection (T, C), before it
                // joins the residual (and, BERT family, before the layer norm)
    Mlp,        // the MLP's output (T, C), before it joins the residual
    HeadZ,      // the heads' outputs z = A V side by side, before the output projection (T, H * D):
                // head h in columns h * D .. h * D + D - 1
};

// What an ablated head's z becomes: zeros, or its own mean over the T positions of the pass.
enum class HeadAblation { Zero, Mean };

// Activations recorded from a pass at the sites asked for: per layer, the (T, C) or (T, H * D)
// matrix as the pass used it (after any replacement at that site). Layers not computed (before
// the start layer) stay empty.
struct ActivationRecord {
    std::vector<Matrix> residual;
    std::vector<Matrix> attention;
    std::vector<Matrix> mlp;
    std::vector<Matrix> head_z;

    std::vector<Matrix>& at(InterventionSite site);
    const std::vector<Matrix>& at(InterventionSite site) const;
};

// A head whose z a pass replaced, and what it became (T, D): the attribution's part of an
// ablated head is this z times W_O^h.
struct ReplacedHead {
    int layer = 0;
    int head = 0;
    Matrix z;  // (T, D)
};

// Progress and cancellation of a scan of many passes. report(done, total) is called after each
// pass, from the scanning threads one at a time; once `cancel` reads true no new pass starts and
// the scan returns an error saying it was cancelled.
struct ScanControl {
    std::function<void(int done, int total)> report;
    const std::atomic<bool>* cancel = nullptr;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

// The one seam through which a forward pass (TransformerForward::runIntervened) is changed:
// replacements and recordings at the sites of each layer, and the layer the pass starts at.
//   - a head's z replaced at every position (ablation: zeros or its mean; patching: given values),
//   - one row (a position) of the residual, attention or MLP output replaced by given values,
//   - the activations of chosen sites recorded into an ActivationRecord (a clean run for patching),
//   - startAt(l): blocks 0..l-1 are not computed; block l begins from the residual entering it
//     in an earlier run of the same ids (so that a scan never recomputes the layers before its
//     intervention).
// An empty intervention changes nothing, and a pass without one does no extra work: the blocks
// see a null pointer. A pure value: a scan builds one per pass, on any thread.
class ForwardIntervention {
public:
    void ablateHead(int layer, int head, HeadAblation mode);
    void replaceHead(int layer, int head, Matrix z);  // z (T, D)
    // site Residual, Attention or Mlp: row `position` of that site's (T, C) activation becomes `value` (C).
    void replaceRow(InterventionSite site, int layer, int position, RowVector value);
    // Every layer's activation at `site` is copied into `into` (resized to the model's L layers by the pass).
    void record(InterventionSite site, ActivationRecord* into);
    void startAt(int layer) { m_start_layer = layer; }
    // Only last_hidden_state is wanted (a scan's pass): no attention maps, layer inputs or
    // residual stream are kept.
    void setOutputOnly(bool output_only) { m_output_only = output_only; }

    int startLayer() const { return m_start_layer; }
    bool outputOnly() const { return m_output_only; }
    bool isEmpty() const;
    // Anything to do at this layer and site (a replacement or a recording).
    bool acts(int layer, InterventionSite site) const;
    bool acts(int layer) const;
    // The heads whose z this intervention replaces at `layer`.
    std::vector<int> replacedHeads(int layer) const;
    // What the pass calls: `activation`, the site's matrix at `layer`, edited in place (replacements
    // in the order given) and then recorded. head_dim: D, for the HeadZ site's columns.
    void apply(int layer, InterventionSite site, Matrix& activation, int head_dim) const;
    // The engine's hook for the HeadZ site of `layer` (empty when nothing acts there).
    std::function<void(Matrix&)> headOutputsHook(int layer, int head_dim) const;
    // Checks layers, heads, positions and given values' shapes against a model and T tokens.
    bool fits(int num_layers, int num_heads, int head_dim, int hidden_size, int seq_len, QString* why = nullptr) const;

private:
    struct Replacement {
        InterventionSite site = InterventionSite::HeadZ;
        int layer = 0;
        int index = 0;  // the head (HeadZ) or the position (the other sites)
        enum class Kind { Zero, Mean, Given } kind = Kind::Zero;
        Matrix values;  // Given: (T, D) for a head, (1, C) for a row
    };
    struct Recording {
        InterventionSite site = InterventionSite::Residual;
        ActivationRecord* into = nullptr;
    };
    std::vector<Replacement> m_replacements;
    std::vector<Recording> m_recordings;
    int m_start_layer = 0;
    bool m_output_only = false;
};

}  // namespace attn
