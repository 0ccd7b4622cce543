#include "ui/views/shapes/ShapeDiagramStages.h"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {
using Id = ShapeStep::Id;
}  // namespace

double logSide(std::int64_t n, double u)
{
    return u * (1.0 + std::log2(double(std::max<std::int64_t>(n, 1))));
}

TensorGlyph glyphForStep(const ShapeStep& step, const ShapeConfig& config, double u, int selected_head)
{
    TensorGlyph glyph;
    const auto& shape = step.shape;
    if (step.kind == ShapeStep::Kind::Weight) {
        glyph.style = TensorGlyph::Style::Weight;
        glyph.face_height = logSide(shape[0].value, u);
        glyph.face_width = logSide(shape[1].value, u);
        return glyph;
    }
    switch (step.id) {
        case Id::Scores:
            glyph.style = TensorGlyph::Style::Scores;
            break;
        case Id::Masked:
            glyph.style = TensorGlyph::Style::Scores;
            glyph.mask = config.windowed() ? TensorGlyph::Mask::SlidingWindow
                         : config.causal   ? TensorGlyph::Mask::Causal
                                           : TensorGlyph::Mask::Padding;
            if (config.windowed())
                glyph.window_fraction = double(config.sliding_window) / double(config.keyLength());
            break;
        case Id::Softmax:
            glyph.style = TensorGlyph::Style::Weights;
            break;
        default:
            glyph.style = TensorGlyph::Style::Tensor;
            break;
    }
    const double batch_depth = 0.6 * logSide(config.batch, u);
    glyph.face_width = logSide(shape.back().value, u);
    glyph.face_height = logSide(shape[shape.size() - 2].value, u);
    glyph.thickness = batch_depth;
    if (step.head_axis >= 0) {
        // Heads are slabs one behind the other; with many heads they close up into a deck.
        const int heads = int(shape[step.head_axis].value);
        glyph.slabs = heads;
        // Grouped-query attention: a tensor of h_kv heads highlights the selected head's key/value head.
        const int head = heads < config.num_heads && config.isGrouped()
                             ? selected_head / int(config.num_heads / config.kvHeads())
                             : selected_head;
        glyph.highlighted_slab = heads > 1 ? std::clamp(head, 0, heads - 1) : -1;  // one head: nothing to pick out
        if (heads > 1) {
            glyph.slab_step = std::min(2.0 * u, 5.5 * u / (heads - 1));
            glyph.thickness = std::min(batch_depth, 0.55 * glyph.slab_step);
        }
    }
    return glyph;
}

QString boxLabel(const ShapeStep& step)
{
    switch (step.id) {
        case Id::QRotated:
            return QStringLiteral("Q'_h");
        case Id::KRotated:
            return QStringLiteral("K'_h");
        case Id::KRepeated:
            return QStringLiteral("K_h");
        case Id::VRepeated:
            return QStringLiteral("V_h");
        default:
            break;
    }
    return step.name.endsWith(QStringLiteral(" heads")) ? step.name.left(step.name.size() - 6) + QStringLiteral("_h")
                                                        : step.name;
}

std::vector<std::vector<DiagramStage>> diagramStages(const ShapeData& model)
{
    const auto& steps = model.steps();
    const ShapeConfig& c = model.config();
    auto index = [&](Id id) {
        for (size_t i = 0; i < steps.size(); ++i)
            if (steps[i].id == id)
                return int(i);
        return -1;
    };
    auto single = [&](Id id, QString title, QString caption = {}) {
        const int i = index(id);
        return DiagramStage{std::move(title),
                            {i},
                            steps[size_t(i)].shapeText(),
                            steps[size_t(i)].shapeNames(),
                            caption.isEmpty() ? steps[size_t(i)].formula : caption};
    };
    // Two or three boxes; the shape line names them apart when the first differs (cross-attention:
    // T_q is not T_kv; grouped-query attention: K and V have h_kv heads).
    auto several = [&](std::vector<Id> ids, QString title, QString caption) {
        const ShapeStep& first = steps[size_t(index(ids[0]))];
        const ShapeStep& second = steps[size_t(index(ids[1]))];
        const bool same = first.shape == second.shape;
        const QString both =
            QStringLiteral("%1 %2 · %3 %4")
                .arg(boxLabel(first), QStringLiteral("%1"),
                     ids.size() > 2 ? boxLabel(second) + QStringLiteral(", ") + boxLabel(steps[size_t(index(ids[2]))])
                                    : boxLabel(second),
                     QStringLiteral("%2"));
        std::vector<int> indices;
        for (Id id : ids)
            indices.push_back(index(id));
        return DiagramStage{
            std::move(title), std::move(indices),
            same ? first.shapeText() + QStringLiteral(" each") : both.arg(first.shapeText(), second.shapeText()),
            same ? first.shapeNames() : both.arg(first.shapeNames(), second.shapeNames()), std::move(caption)};
    };
    auto triple = [&](Id a, Id b, Id d, QString title, QString caption) {
        const ShapeStep& first = steps[size_t(index(a))];
        const ShapeStep& second = steps[size_t(index(b))];
        if (first.shape != second.shape && !c.isCross())
            return several({a, b, d}, std::move(title), std::move(caption));
        // Cross-attention: the queries' length T_q is not the keys' and values' T_kv.
        const bool same = first.shape == second.shape;
        const QString both = QStringLiteral("Q %1 · K, V %2");
        return DiagramStage{
            std::move(title),
            {index(a), index(b), index(d)},
            same ? first.shapeText() + QStringLiteral(" each") : both.arg(first.shapeText(), second.shapeText()),
            same ? first.shapeNames() : both.arg(first.shapeNames(), second.shapeNames()),
            std::move(caption)};
    };

    // Rotary positions and grouped-query attention get a row of their own after the split.
    const bool rotary = index(Id::QRotated) >= 0;
    const bool grouped = index(Id::KRepeated) >= 0;
    std::vector<std::vector<DiagramStage>> rows(rotary || grouped ? 4 : 3);
    const size_t scores_row = rows.size() - 2;
    rows[0].push_back(single(Id::Input, QStringLiteral("Input X")));
    rows[0].push_back(triple(Id::Wq, Id::Wk, Id::Wv, QStringLiteral("Weights Wq, Wk, Wv"),
                             grouped ? QStringLiteral("Wq %1, Wk and Wv %2 parameters each")
                                           .arg(ShapeData::formatCount(steps[size_t(index(Id::Wq))].parameters),
                                                ShapeData::formatCount(steps[size_t(index(Id::Wk))].parameters))
                                     : QStringLiteral("%1 parameters each")
                                           .arg(ShapeData::formatCount(steps[size_t(index(Id::Wq))].parameters))));
    rows[0].push_back(
        triple(Id::Q, Id::K, Id::V, QStringLiteral("Projections Q, K, V"),
               steps[size_t(index(Id::Q))].formula +
                   (c.isCross() ? QStringLiteral(", K and V likewise from X_kv") : QStringLiteral(", same for K, V"))));
    rows[1].push_back(triple(
        Id::QHeads, Id::KHeads, Id::VHeads,
        c.num_heads == 1 ? QStringLiteral("Split into 1 head") : QStringLiteral("Split into %1 heads").arg(c.num_heads),
        grouped ? QStringLiteral("d_model = h × d_k = %1 × %2, d_kv = h_kv × d_k = %3 × %2")
                      .arg(c.num_heads)
                      .arg(c.headDim())
                      .arg(c.kvHeads())
                : QStringLiteral("d_model = h × d_k = %1 × %2").arg(c.num_heads).arg(c.headDim())));
    if (rotary)
        rows[1].push_back(several({Id::QRotated, Id::KRotated},
                                  c.rotary_dim < c.headDim() ? QStringLiteral("Rotary positions (partial)")
                                                             : QStringLiteral("Rotary positions"),
                                  steps[size_t(index(Id::QRotated))].formula));
    if (grouped)
        rows[1].push_back(several({Id::KRepeated, Id::VRepeated},
                                  QStringLiteral("Repeat K, V for %1 query heads each").arg(c.num_heads / c.kvHeads()),
                                  steps[size_t(index(Id::KRepeated))].formula));
    rows[scores_row].push_back(single(Id::Scores, QStringLiteral("Scores")));
    if (index(Id::Masked) >= 0)
        rows[scores_row].push_back(single(
            Id::Masked, c.windowed() ? QStringLiteral("Mask (causal + sliding window)") : QStringLiteral("Mask")));
    rows[scores_row].push_back(single(Id::Softmax, QStringLiteral("Softmax")));
    rows.back().push_back(single(Id::HeadOutputs, QStringLiteral("Weighted sum A V")));
    rows.back().push_back(single(Id::Concat, QStringLiteral("Concatenate heads"),
                                 c.isCross() ? QStringLiteral("(B, h, T_q, d_k) → (B, T_q, h·d_k)")
                                             : QStringLiteral("(B, h, T, d_k) → (B, T, h·d_k)")));
    if (index(Id::Wo) >= 0)
        rows.back().push_back(single(
            Id::Wo, QStringLiteral("Output weights Wo"),
            QStringLiteral("%1 parameters").arg(ShapeData::formatCount(steps[size_t(index(Id::Wo))].parameters))));
    rows.back().push_back(single(Id::Output, QStringLiteral("Output Y")));
    return rows;
}

}  // namespace attn
