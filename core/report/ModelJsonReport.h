#pragma once

#include "core/analysis/AttentionRollout.h"
#include "core/base/Result.h"
#include "core/model/ModelConfig.h"
#include "core/model/ModelRun.h"
#include "core/model/TokenPredictions.h"
#include "core/report/HeadsJson.h"

#include <QIODevice>
#include <QStringList>

#include <functional>
#include <vector>

namespace attn {

// The --json document with --model (docs/command-line.md, "Real models"):
//   {"model": {...}, "tokens": [...], "token_ids": [...], "attention": (L, H, T, T),
//    "last_hidden_state": (T, C), "rollout": (T, T), "head_scores": (L, H) of
//    {"previous", "duplicate", "induction", "entropy", "first"},
//    "top5": [{"position", "ids", "tokens", "logits"}, ...]}
// "top5" (an addition) holds the head's predictions when there are any: GPT-2's next token after
// every position, BERT's and DistilBERT's token at every [MASK]. The document is written to the
// device in pieces of about a megabyte: a 1,024-token GPT-2 run has 150 million attention
// weights, never held as text at once.
class ModelJsonReport {
public:
    // token_text: a vocabulary id's string (convert_ids_to_tokens), for the predictions.
    // rollout: how "rollout" fuses heads and mixes the residual (after the last layer).
    // heads: "metric", "logit_lens", "attribution" when computed (HeadsJson), after "top5";
    // "attention_norms" (L, H, T, T) after "attention" with heads.value_norms.
    static Status write(const ModelConfig& config, const ModelRun& run, const QStringList& tokens,
                        const std::vector<TokenPrediction>& predictions, const std::function<QString(int)>& token_text,
                        const AttentionRollout::Options& rollout, QIODevice& device, const HeadsReport& heads = {});
};

}  // namespace attn
