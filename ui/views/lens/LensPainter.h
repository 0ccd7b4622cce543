#pragma once

#include "core/lens/LensResult.h"
#include "ui/heatmap/ColorMaps.h"

#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

class QPainter;

namespace attn {

// The logit lens drawn as a grid (the Lens tab and --view lens): rows hidden_states[0..L] from the
// top, columns the input's tokens, each cell the top token's text on its probability's colour (or
// the tracked token's probability or rank), the chosen layer's row framed, and the pinned
// position's top K listed beside the grid. Cells not yet computed stay blank.
class LensPainter {
public:
    enum class Shade { TopP, TrackedP, TrackedRank };

    struct Cell {
        int row = 0;
        int position = 0;
    };

    void setResult(std::shared_ptr<const LensResult> result) { m_result = std::move(result); }
    const std::shared_ptr<const LensResult>& result() const { return m_result; }
    void setColumns(const QStringList& labels) { m_columns = labels; }
    // A vocabulary id as the cells spell it ("␣cat").
    void setTokenLabel(std::function<QString(int)> label) { m_token_label = std::move(label); }
    void setVocabSize(int vocab) { m_vocab = vocab; }
    void setShade(Shade shade) { m_shade = shade; }
    Shade shade() const { return m_shade; }
    void setHighlightRow(int row) { m_highlight_row = row; }
    int highlightRow() const { return m_highlight_row; }
    void setPinned(int position) { m_pinned = position; }
    int pinned() const { return m_pinned; }
    void setCaption(const QString& caption) { m_caption = caption; }
    // Shown instead of the grid (no model, no prediction head, an error).
    void setMessage(const QString& message) { m_message = message; }
    const QString& message() const { return m_message; }
    void setColorMap(ColorMaps::Map map) { m_map = map; }
    ColorMaps::Map colorMap() const { return m_map; }

    void paint(QPainter& painter, const QRectF& target) const;

    std::optional<Cell> cellAt(const QPointF& point, const QRectF& target) const;
    // What a cell shows (its top token's label, the tracked token's p or rank); empty until computed.
    QString cellText(int row, int position) const;
    // The cell's top K with their p (the hover text).
    QString hoverText(int row, int position) const;
    // The pinned position's top K at the framed row (else the last): "1. ␣cat  0.512" lines.
    QStringList pinnedLines() const;
    // The cell's value on the colour scale, 0..1.
    double shadeOf(const LensCell& cell) const;

private:
    struct Layout {
        QRectF title;
        QRectF columns;  // the tokens' labels above the grid
        QRectF rows;     // the rows' labels left of it
        QRectF grid;
        QRectF panel;  // the pinned position's top K
        QRectF legend;
    };
    Layout layout(const QRectF& target) const;
    bool filled(int position) const;
    QString label(int id) const;
    QString title() const;

    std::shared_ptr<const LensResult> m_result;
    QStringList m_columns;
    std::function<QString(int)> m_token_label;
    int m_vocab = 1;
    Shade m_shade = Shade::TopP;
    int m_highlight_row = -1;
    int m_pinned = -1;
    QString m_caption;
    QString m_message;
    ColorMaps::Map m_map = ColorMaps::Map::Viridis;
};

}  // namespace attn
