#pragma once

#include "core/analysis/ModelParameters.h"
#include "core/model/ModelConfig.h"
#include "ui/views/PaintTarget.h"

#include <QList>
#include <QRectF>
#include <QSize>
#include <QString>

class QPainter;

namespace attn {

// The shapes of a whole model as one chain: token ids -> embeddings (+ positions, + token types)
// -> L x (LayerNorm -> attention -> residual -> LayerNorm -> MLP -> residual; BERT's post-LN
// order puts each LayerNorm after its residual) -> final norm -> last hidden state, every box
// with this model's shape and parameter count (ModelParameterCounts), and the totals. Drawn into
// any QPainter (widget, PNG, SVG, PDF); the layout follows the rectangle (designed at 1200 x 660).
class ModelChainPainter {
public:
    enum class Box {
        TokenIds,
        WordEmbeddings,
        PositionEmbeddings,
        TokenTypeEmbeddings,
        EmbeddingNorm,
        AttentionNorm,
        Attention,  // expands into the single-layer diagram in the window
        AttentionResidual,
        MlpNorm,
        Mlp,
        MlpResidual,
        FinalNorm,
        Output
    };
    struct Item {
        Box box = Box::TokenIds;
        QString name;    // "attention"
        QString shape;   // "(T, C) = (12, 768)"
        QString detail;  // "Wq, Wk, Wv, Wo (C, C) + biases"
        std::int64_t parameters = 0;
        bool in_block = false;  // one of the L repeated blocks
    };
    struct HitRegion {
        QRectF rect;
        Box box = Box::TokenIds;
    };

    ModelChainPainter(const ModelConfig& config, int seq_len);

    const ModelConfig& config() const { return m_config; }
    const ModelParameterCounts& counts() const { return m_counts; }
    int seqLen() const { return m_seq_len; }
    const QList<Item>& items() const { return m_items; }
    void setCaption(const QString& caption) { m_caption = caption; }
    void setHovered(Box box, bool hovered);  // drawn on screen only
    // The attention box can be opened: on screen it says so, and its tooltip too.
    void setInteractive(bool interactive) { m_interactive = interactive; }

    QList<HitRegion> paint(QPainter& painter, const QRectF& rect, PaintTarget target = PaintTarget::Picture) const;
    QString toolTip(Box box) const;

    static QSize defaultSize() { return {1200, 660}; }

private:
    ModelConfig m_config;
    ModelParameterCounts m_counts;
    int m_seq_len = 0;
    QList<Item> m_items;
    QString m_caption;
    int m_hovered = -1;
    bool m_interactive = false;
};

}  // namespace attn
