#pragma once

#include "core/model/AttentionMaps.h"

#include <QString>
#include <QStringList>

#include <optional>

#include <vector>

namespace attn {

// What one head of a whole model does, as numbers (the command-line contract's "head_scores").
// previous, duplicate and induction are TransformerLens's detect_head scores with the "mul"
// measure: sum(A * P) / sum(A) over the head's map A (T, T) and a 0/1 pattern P made from the
// input's own token ids:
//   previous   P[i][i-1] = 1;
//   duplicate  P[i][j] = 1 for j < i with id_j = id_i;
//   induction  P[i][j] = 1 for 1 <= j <= i with id_(j-1) = id_i (the token after an earlier copy).
// entropy is the mean over rows of -sum_j A_ij ln A_ij (0 ln 0 = 0), first the mean of A_i0.
// All sums in double.
struct HeadScore {
    double previous = 0.0;
    double duplicate = 0.0;
    double induction = 0.0;
    double entropy = 0.0;
    double first = 0.0;
};

// The scores in [0, 1] a head can be marked by: "previous", "duplicate", "induction", "first".
enum class HeadScoreKind { Previous, Duplicate, Induction, First };
std::optional<HeadScoreKind> headScoreKindFromKey(const QString& key);
QString headScoreKindKey(HeadScoreKind kind);
double headScoreValue(const HeadScore& score, HeadScoreKind kind);
// Every score heads can be ordered by: the marks' and the entropy.
enum class HeadOrderKind { Previous, Duplicate, Induction, Entropy, First };
std::optional<HeadOrderKind> headOrderKindFromKey(const QString& key);
QString headOrderKindKey(HeadOrderKind kind);  // one of headScoreNames()
// Every score by name, for ordering heads: "previous", "duplicate", "induction", "entropy", "first".
QStringList headScoreNames();
std::optional<double> headScoreByName(const HeadScore& score, const QString& name);
// Each head's score of that name, in the order of `scores`; empty for an empty or unknown name.
std::vector<double> headScoreValues(const std::vector<HeadScore>& scores, const QString& name);

class HeadScores {
public:
    // detect_head's two options: the first key's weights and the diagonal set to 0 before the
    // score is taken (both off in the contract's JSON).
    struct Options {
        bool exclude_first = false;
        bool exclude_current = false;
    };

    // (L x H), layer after layer. token_ids: (T), the ids the maps were computed from.
    static std::vector<HeadScore> compute(const AttentionMaps& maps, const std::vector<int>& token_ids,
                                          const Options& options);
    static std::vector<HeadScore> compute(const AttentionMaps& maps, const std::vector<int>& token_ids)
    {
        return compute(maps, token_ids, Options{});
    }
    static HeadScore score(const AttentionMaps& maps, int layer, int head, const std::vector<int>& token_ids,
                           const Options& options);
};

}  // namespace attn
