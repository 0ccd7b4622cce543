#include "core/analysis/HeadScores.h"

#include <cmath>

namespace attn {

std::optional<HeadScoreKind> headScoreKindFromKey(const QString& key)
{
    for (HeadScoreKind kind :
         {HeadScoreKind::Previous, HeadScoreKind::Duplicate, HeadScoreKind::Induction, HeadScoreKind::First})
        if (headScoreKindKey(kind) == key)
            return kind;
    return std::nullopt;
}

QString headScoreKindKey(HeadScoreKind kind)
{
    switch (kind) {
        case HeadScoreKind::Previous: return QStringLiteral("previous");
        case HeadScoreKind::Duplicate: return QStringLiteral("duplicate");
        case HeadScoreKind::Induction: return QStringLiteral("induction");
        case HeadScoreKind::First: break;
    }
    return QStringLiteral("first");
}

double headScoreValue(const HeadScore& score, HeadScoreKind kind)
{
    switch (kind) {
        case HeadScoreKind::Previous: return score.previous;
        case HeadScoreKind::Duplicate: return score.duplicate;
        case HeadScoreKind::Induction: return score.induction;
        case HeadScoreKind::First: break;
    }
    return score.first;
}

std::optional<HeadOrderKind> headOrderKindFromKey(const QString& key)
{
    for (HeadOrderKind kind : {HeadOrderKind::Previous, HeadOrderKind::Duplicate, HeadOrderKind::Induction,
                               HeadOrderKind::Entropy, HeadOrderKind::First})
        if (headOrderKindKey(kind) == key)
            return kind;
    return std::nullopt;
}

QString headOrderKindKey(HeadOrderKind kind)
{
    switch (kind) {
        case HeadOrderKind::Previous: return QStringLiteral("previous");
        case HeadOrderKind::Duplicate: return QStringLiteral("duplicate");
        case HeadOrderKind::Induction: return QStringLiteral("induction");
        case HeadOrderKind::Entropy: return QStringLiteral("entropy");
        case HeadOrderKind::First: break;
    }
    return QStringLiteral("first");
}

QStringList headScoreNames()
{
    return {QStringLiteral("previous"), QStringLiteral("duplicate"), QStringLiteral("induction"),
            QStringLiteral("entropy"), QStringLiteral("first")};
}

std::optional<double> headScoreByName(const HeadScore& score, const QString& name)
{
    if (name == u"entropy")
        return score.entropy;
    if (const std::optional<HeadScoreKind> kind = headScoreKindFromKey(name))
        return headScoreValue(score, *kind);
    return std::nullopt;
}

std::vector<double> headScoreValues(const std::vector<HeadScore>& scores, const QString& name)
{
    std::vector<double> values;
    if (!headScoreNames().contains(name))
        return values;
    for (const HeadScore& score : scores)
        values.push_back(*headScoreByName(score, name));
    return values;
}

HeadScore HeadScores::score(const AttentionMaps& maps, int layer, int head, const std::vector<int>& token_ids,
                            const Options& options)
{
    const int seq_len = maps.seqLen();
    double total = 0.0;  // sum(A) after the exclusions
    double previous = 0.0, duplicate = 0.0, induction = 0.0;
    double entropy = 0.0, first = 0.0;
    for (int i = 0; i < seq_len; ++i) {
        const float* row = maps.row(layer, head, i);
        const int stored = maps.rowLength(i);  // the weights after these are 0
        for (int j = 0; j < stored; ++j) {
            const double a = row[j];
            if (a > 0.0)
                entropy -= a * std::log(a);
            if (j == 0)
                first += a;
            if ((options.exclude_first && j == 0) || (options.exclude_current && j == i))
                continue;
            total += a;
            if (j == i - 1)
                previous += a;
            if (j < i && token_ids[size_t(j)] == token_ids[size_t(i)])
                duplicate += a;
            if (j >= 1 && j <= i && token_ids[size_t(j - 1)] == token_ids[size_t(i)])
                induction += a;
        }
    }
    HeadScore score;
    if (total > 0.0) {
        score.previous = previous / total;
        score.duplicate = duplicate / total;
        score.induction = induction / total;
    }
    if (seq_len > 0) {
        score.entropy = entropy / seq_len;
        score.first = first / seq_len;
    }
    return score;
}

std::vector<HeadScore> HeadScores::compute(const AttentionMaps& maps, const std::vector<int>& token_ids,
                                           const Options& options)
{
    std::vector<HeadScore> scores;
    scores.reserve(size_t(maps.numLayers()) * size_t(maps.numHeads()));
    for (int l = 0; l < maps.numLayers(); ++l)
        for (int h = 0; h < maps.numHeads(); ++h)
            scores.push_back(score(maps, l, h, token_ids, options));
    return scores;
}

}  // namespace attn
