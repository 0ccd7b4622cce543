#include "ui/views/model/ModelGridPainter.h"

#include "core/analysis/AttentionDisplay.h"
#include "ui/heatmap/ColorBar.h"
#include "ui/heatmap/Hatch.h"
#include "ui/heatmap/HeatmapCells.h"
#include "ui/heatmap/KvGroupMarks.h"
#include "ui/views/AblatedHeads.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <map>

namespace attn {
namespace {

constexpr int kLevels = 256;
constexpr double kCaptionHeight = 24;
constexpr double kBarWidth = 78;
constexpr double kLabelFontPixels = 11;

int levelOf(double value, double top)
{
    return std::clamp(int(std::lround(value / std::max(top, 1e-12) * (kLevels - 1))), 0, kLevels - 1);
}

// Every n-th of `count` labels, n the smallest step at which labels `extent` pixels long fit into
// cells `pitch` apart; the last one is always shown when it fits after the one before it.
QList<int> thinnedLabels(int count, double pitch, double extent)
{
    QList<int> shown;
    if (count <= 0 || pitch <= 0)
        return shown;
    const int step = std::max(1, int(std::ceil((extent + 2) / pitch)));
    for (int i = 0; i < count; i += step)
        shown.append(i);
    if (shown.last() != count - 1 && (count - 1 - shown.last()) >= step)
        shown.append(count - 1);
    return shown;
}

// The largest unmasked value of a pixel row (the per-row scale's top); 1 for a row of nothing.
double rowTop(const AttentionThumbnail& thumbnail, int row)
{
    double top = 0.0;
    for (float value : thumbnail.values.row(row))
        if (value > top)  // false for NaN
            top = value;
    return top > 0.0 ? top : 1.0;
}

QFont labelFont(const QFont& base)
{
    QFont font = base;
    font.setPixelSize(int(kLabelFontPixels));
    return font;
}

}  // namespace

void ModelGridPainter::setHiddenKeys(const QList<int>& positions)
{
    m_hidden_positions = positions;
    updateHidden();
}

void ModelGridPainter::updateHidden()
{
    const std::vector<bool> flags = AttentionDisplay::shownHiddenKeys(m_hidden_positions, m_run ? m_run->seqLen() : 0);
    std::vector<int> hidden;  // the positions flagged, in order
    for (size_t key = 0; key < flags.size(); ++key)
        if (flags[key])
            hidden.push_back(int(key));
    if (hidden != m_hidden) {
        m_hidden = std::move(hidden);
        m_cache.clear();
    }
}

QString ModelGridPainter::aggregateAt(const QPointF& point, const QSizeF& size) const
{
    if (!m_aggregate)
        return {};
    const Layout layout = layoutFor(size);
    const QString fusion = headFusionKey(*m_aggregate);
    for (int layer = 0; layer < layout.layer_aggregates.size(); ++layer)
        if (layout.layer_aggregates[layer].contains(point))
            return QCoreApplication::translate("ModelGridPainter", "the %1 of layer %2's heads").arg(fusion).arg(layer);
    for (int head = 0; head < layout.head_aggregates.size(); ++head)
        if (layout.head_aggregates[head].contains(point))
            return QCoreApplication::translate("ModelGridPainter", "the %1 of head %2 over every layer")
                .arg(fusion)
                .arg(head);
    if (layout.all_aggregate.contains(point))
        return QCoreApplication::translate("ModelGridPainter", "the %1 of every head of every layer").arg(fusion);
    return {};
}

void ModelGridPainter::setRun(std::shared_ptr<const ModelRun> run)
{
    m_run = std::move(run);
    m_cache.clear();
    m_arrangement.keepOrderFor(numLayers(), numHeads());
    updateHidden();
    if (m_current_layer >= numLayers() || m_current_head >= numHeads())
        setCurrent(-1, -1);
}

void ModelGridPainter::setColorMap(ColorMaps::Map map)
{
    m_map = map;
    m_levels.clear();
}

void ModelGridPainter::setCurrent(int layer, int head)
{
    const bool valid = layer >= 0 && head >= 0 && layer < numLayers() && head < numHeads();
    m_current_layer = valid ? layer : -1;
    m_current_head = valid ? head : -1;
}

QRgb ModelGridPainter::colorOf(ColorMaps::Map map, double value, double top)
{
    if (std::isnan(value))
        return Hatch::fill().rgb();
    return ColorMaps::colorAt(map, double(levelOf(value, top)) / (kLevels - 1)).rgb();
}

int ModelGridPainter::binsFor(double side, double pixel_ratio) const
{
    const int seq_len = m_run ? m_run->seqLen() : 0;
    return std::clamp(int(std::ceil(side * pixel_ratio - 1e-6)), 1, std::max(1, seq_len));
}

const ModelGridPainter::Reduced& ModelGridPainter::reduced(int bins) const
{
    for (const Reduced& r : m_cache)
        if (r.bins == bins && r.reduction == m_reduction && r.aggregate == m_aggregate)
            return r;
    if (m_cache.size() >= 4)
        m_cache.erase(m_cache.begin());
    Reduced r;
    r.bins = bins;
    r.reduction = m_reduction;
    r.aggregate = m_aggregate;
    if (m_run) {
        const AttentionMaps& maps = m_run->attention;
        r.thumbnails = AttentionThumbnail::reduceAll(maps, bins, bins, m_reduction, m_hidden);
        if (m_aggregate) {
            const int layers = maps.numLayers();
            const int heads = maps.numHeads();
            std::vector<std::vector<std::pair<int, int>>> groups;  // layer by layer, head by head, then all
            for (int layer = 0; layer < layers; ++layer) {
                groups.emplace_back();
                for (int head = 0; head < heads; ++head)
                    groups.back().emplace_back(layer, head);
            }
            for (int head = 0; head < heads; ++head) {
                groups.emplace_back();
                for (int layer = 0; layer < layers; ++layer)
                    groups.back().emplace_back(layer, head);
            }
            groups.emplace_back();
            for (int layer = 0; layer < layers; ++layer)
                for (int head = 0; head < heads; ++head)
                    groups.back().emplace_back(layer, head);
            std::vector<AttentionThumbnail> fused(groups.size());
#pragma omp parallel for schedule(dynamic)
            for (int g = 0; g < int(groups.size()); ++g)
                fused[size_t(g)] =
                    AttentionThumbnail::reduceFused(maps, groups[size_t(g)], *m_aggregate, bins, bins, m_reduction,
                                                                  m_hidden);
            r.layer_aggregates.assign(fused.begin(), fused.begin() + layers);
            r.head_aggregates.assign(fused.begin() + layers, fused.end());
        }
    }
    for (const auto* list : {&r.thumbnails, &r.layer_aggregates, &r.head_aggregates})
        for (const AttentionThumbnail& t : *list) {
            r.top_all = std::max(r.top_all, t.top);
            r.top_without_one_key_rows = std::max(r.top_without_one_key_rows, t.top_without_one_key_rows);
        }
    m_cache.push_back(std::move(r));
    return m_cache.back();
}

double ModelGridPainter::top(int bins) const
{
    const Reduced& r = reduced(bins);
    double top = r.top_all;
    if (m_scale == ColorScale::WithoutOneKeyRows && r.top_without_one_key_rows > 0.0)
        top = r.top_without_one_key_rows;  // every query sees a single key only when T = 1
    if (m_scale == ColorScale::Percentile) {
        if (r.percentile_top < 0.0) {
            std::vector<float> pixels;  // every reduced pixel that is not masked
            for (const auto* list : {&r.thumbnails, &r.layer_aggregates, &r.head_aggregates})
                for (const AttentionThumbnail& t : *list)
                    for (float value : t.values.reshaped())
                        if (!std::isnan(value))
                            pixels.push_back(value);
            double percentile = 0.0;
            if (!pixels.empty()) {
                const auto rank = size_t(std::ceil(ColorScales::kPercentile / 100.0 * double(pixels.size()))) - 1;
                std::nth_element(pixels.begin(), pixels.begin() + std::ptrdiff_t(rank), pixels.end());
                percentile = pixels[rank];
            }
            const_cast<Reduced&>(r).percentile_top = percentile;  // a cache of the reduction
        }
        if (r.percentile_top > 0.0)
            top = r.percentile_top;
    }
    return top > 0.0 ? top : 1.0;
}

QString ModelGridPainter::scaleNote(int bins) const
{
    if (!m_run)
        return {};
    switch (m_scale) {
        case ColorScale::WithoutOneKeyRows:
            return m_run->attention.isCausal() && top(bins) < reduced(bins).top_all
                       ? QCoreApplication::translate("ModelGridPainter", "row 0 (one key) off scale")
                       : QString();
        case ColorScale::AllCells: return {};
        case ColorScale::PerRow: return QCoreApplication::translate("ModelGridPainter", "each row / its max");
        case ColorScale::Log: return QCoreApplication::translate("ModelGridPainter", "log scale");
        case ColorScale::Percentile:
            return QCoreApplication::translate("ModelGridPainter", "clipped at the %1th percentile")
                .arg(ColorScales::kPercentile);
    }
    return {};
}

int ModelGridPainter::levelFor(double value, double top, double row_top) const
{
    switch (m_scale) {
        case ColorScale::PerRow: return levelOf(value, row_top);
        case ColorScale::Log: {
            if (!(value > 0.0))
                return 0;
            const double decades = std::log10(value / top);  // <= 0 below the top
            return std::clamp(int(std::lround((1.0 + decades / ColorScales::kLogDecades) * (kLevels - 1))), 0,
                              kLevels - 1);
        }
        default: return levelOf(value, top);
    }
}

QRgb ModelGridPainter::colourFor(double value, double top, double row_top) const
{
    if (std::isnan(value))
        return Hatch::fill().rgb();
    return m_levels[levelFor(value, top, row_top)];
}

ModelGridPainter::Layout ModelGridPainter::layoutFor(const QSizeF& size) const
{
    Layout layout;
    layout.caption = QRectF(8, 2, std::max(0.0, size.width() - 16), kCaptionHeight);
    const int layers = numLayers();
    const int heads = numHeads();
    if (layers == 0 || heads == 0)
        return layout;
    const QFontMetricsF metrics(labelFont(QFont()));
    const double row_label_width =
        std::max(metrics.horizontalAdvance(QStringLiteral("L%1").arg(layers - 1)),
                 m_aggregate ? metrics.horizontalAdvance(QCoreApplication::translate("ModelGridPainter", "all")) : 0.0) +
        8;
    // An aggregate adds a column and a row, set apart by a wider gap.
    const int columns = heads + (m_aggregate ? 1 : 0);
    const int rows = layers + (m_aggregate ? 1 : 0);
    // Grouped-query attention: a band above the head labels for the "kv g" brackets.
    const double group_band =
        KvGroupMarks(heads, m_run->num_kv_heads).isGrouped() && !isOrdered() ? KvGroupMarks::kBandHeight : 0.0;
    const double column_label_height = metrics.height() + 4 + group_band;
    const QRectF area(4 + row_label_width, kCaptionHeight + 4 + column_label_height,
                      std::max(10.0, size.width() - row_label_width - kBarWidth - 20),
                      std::max(10.0, size.height() - kCaptionHeight - column_label_height - 10));
    // Square thumbnails as large as fit; the gap between them shrinks with them.
    double side = std::min(area.width() / columns, area.height() / rows);
    const double gap = std::clamp(side * 0.08, 1.0, 6.0);
    const double apart = m_aggregate ? 2 * gap + 4 : 0.0;  // the extra gap before the aggregates
    side = std::max(1.0, std::min((area.width() - gap * (columns - 1) - apart) / columns,
                                  (area.height() - gap * (rows - 1) - apart) / rows));
    layout.side = side;
    const double block_width = columns * side + (columns - 1) * gap + apart;
    const double block_height = rows * side + (rows - 1) * gap + apart;
    // The block and the colour bar centred together.
    const double shift = std::max(0.0, (area.width() - block_width) / 2);
    const double drop = std::max(0.0, (area.height() - block_height) / 2);
    layout.grid = QRectF(area.left() + shift, area.top() + drop, block_width, block_height);
    const auto slot = [&](int row, int column) {
        return QRectF(layout.grid.left() + column * (side + gap) + (column == heads ? apart : 0.0),
                      layout.grid.top() + row * (side + gap) + (row == layers ? apart : 0.0), side, side);
    };
    for (int layer = 0; layer < layers; ++layer)
        for (int head = 0; head < heads; ++head)
            layout.thumbnails.append(slot(layer, columnOf(layer, head)));
    for (int column = 0; column < heads; ++column)
        layout.columns.append(slot(0, column));
    if (m_aggregate) {
        for (int layer = 0; layer < layers; ++layer)
            layout.layer_aggregates.append(slot(layer, heads));
        if (!isOrdered())  // a column of the sorted grid holds a different head in every layer
            for (int head = 0; head < heads; ++head)
                layout.head_aggregates.append(slot(layers, head));
        layout.all_aggregate = slot(layers, heads);
    }
    layout.row_labels = thinnedLabels(layers, side + gap, metrics.height());
    layout.column_labels =
        thinnedLabels(heads, side + gap, metrics.horizontalAdvance(QStringLiteral("H%1").arg(heads - 1)));
    const double bar_height = std::min(area.height(), std::max(160.0, block_height * 0.8));
    layout.color_bar =
        QRectF(layout.grid.right() + 14, layout.grid.center().y() - bar_height / 2, kBarWidth, bar_height);
    if (layout.color_bar.top() < area.top())
        layout.color_bar.moveTop(area.top());
    return layout;
}

std::optional<std::pair<int, int>> ModelGridPainter::headAt(const QPointF& point, const QSizeF& size) const
{
    const Layout layout = layoutFor(size);
    for (int i = 0; i < layout.thumbnails.size(); ++i)
        if (layout.thumbnails[i].contains(point))
            return std::make_pair(i / numHeads(), i % numHeads());
    return std::nullopt;
}

QImage ModelGridPainter::thumbnailImage(const AttentionThumbnail& thumbnail, double top, int pixels_per_cell) const
{
    const int rows = int(thumbnail.values.rows());
    const int cols = int(thumbnail.values.cols());
    const int k = std::max(1, pixels_per_cell);
    QImage image(cols * k, rows * k, QImage::Format_RGB32);
    const QRgb masked = Hatch::fill().rgb();
    for (int r = 0; r < rows; ++r) {
        QRgb* line = reinterpret_cast<QRgb*>(image.scanLine(r * k));
        const double row_top = rowTop(thumbnail, r);
        for (int c = 0; c < cols; ++c) {
            const float value = thumbnail.values(r, c);
            std::fill_n(line + c * k, k, std::isnan(value) ? masked : m_levels[levelFor(value, top, row_top)]);
        }
        for (int i = 1; i < k; ++i)
            std::copy_n(line, cols * k, reinterpret_cast<QRgb*>(image.scanLine(r * k + i)));
    }
    return image;
}

// Filled rectangles, runs of equal colour in a row merged, one path per colour, over a fill of
// the whole thumbnail so that viewers that antialias shared edges show no seams.
void ModelGridPainter::paintVectorCells(QPainter& painter, const QRectF& rect, const AttentionThumbnail& thumbnail,
                                        double top) const
{
    const int rows = int(thumbnail.values.rows());
    const int cols = int(thumbnail.values.cols());
    const double cell_width = rect.width() / cols;
    const double cell_height = rect.height() / rows;
    std::map<QRgb, QPainterPath> runs;  // ordered: the same file every time
    for (int r = 0; r < rows; ++r) {
        const double row_top = rowTop(thumbnail, r);
        for (int c = 0; c < cols;) {
            const QRgb colour = colourFor(thumbnail.values(r, c), top, row_top);
            int end = c + 1;
            while (end < cols && colourFor(thumbnail.values(r, end), top, row_top) == colour)
                ++end;
            runs[colour].addRect(QRectF(rect.left() + c * cell_width, rect.top() + r * cell_height,
                                        (end - c) * cell_width, cell_height));
            c = end;
        }
    }
    painter.fillRect(rect, QColor(m_levels[0]));
    for (const auto& [colour, path] : runs) {
        painter.setBrush(QColor(colour));
        painter.drawPath(path);
    }
}

QList<QRectF> ModelGridPainter::maskedRuns(const QRectF& rect, const AttentionThumbnail& thumbnail)
{
    const int rows = int(thumbnail.values.rows());
    const int cols = int(thumbnail.values.cols());
    const double cell_width = rect.width() / cols;
    const double cell_height = rect.height() / rows;
    QList<QRectF> runs;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols;) {
            if (!std::isnan(thumbnail.values(r, c))) {
                ++c;
                continue;
            }
            int end = c + 1;
            while (end < cols && std::isnan(thumbnail.values(r, end)))
                ++end;
            runs.append(QRectF(rect.left() + c * cell_width, rect.top() + r * cell_height, (end - c) * cell_width,
                               cell_height));
            c = end;
        }
    return runs;
}

void ModelGridPainter::paint(QPainter& painter, const QRectF& target, Output output, double pixel_ratio) const
{
    if (m_levels.isEmpty()) {
        auto* self = const_cast<ModelGridPainter*>(this);  // the colour levels are a cache of the map
        for (int i = 0; i < kLevels; ++i)
            self->m_levels.append(ColorMaps::colorAt(m_map, double(i) / (kLevels - 1)).rgb());
    }
    const Layout layout = layoutFor(target.size());
    painter.save();
    painter.translate(target.topLeft());
    painter.fillRect(QRectF(QPointF(0, 0), target.size()), Qt::white);
    QFont caption_font = painter.font();
    caption_font.setPixelSize(13);
    painter.setFont(caption_font);
    painter.setPen(QColor(0x30, 0x30, 0x30));
    if (!m_run || layout.thumbnails.isEmpty()) {  // no model: the caption says what to do, centred
        painter.drawText(QRectF(QPointF(0, 0), target.size()), Qt::AlignCenter | Qt::TextWordWrap, m_caption);
        painter.restore();
        return;
    }
    QString caption =
        m_caption + (m_run->value_norms ? QStringLiteral(" · norms ||A f(x)||") : QStringLiteral(" · weights"));
    const QString scored_on = m_run->value_norms ? QStringLiteral(" of row-normalised norms") : QString();
    if (!m_arrangement.marks().empty())
        caption += QStringLiteral(" · frames: %1 score (0 to 1)%2").arg(m_arrangement.marksName(), scored_on);
    if (isOrdered())
        caption += m_arrangement.orderName() == u"entropy"
                       ? QStringLiteral(" · heads sorted by entropy%1, highest first").arg(scored_on)
                       : QStringLiteral(" · heads sorted by %1 score%2, highest first")
                             .arg(m_arrangement.orderName(), scored_on);
    if (!m_hidden.empty()) {
        QStringList keys;
        for (int key : m_hidden)
            keys << QString::number(key);
        caption += QStringLiteral(" · %1 %2 hidden, rows renormalised")
                       .arg(m_hidden.size() == 1 ? QStringLiteral("key") : QStringLiteral("keys"), keys.join(u','));
    }
    if (!m_run->replaced_heads.empty())
        caption += QStringLiteral(" · ") + AblatedHeads::caption(*m_run);
    painter.drawText(layout.caption, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(caption_font).elidedText(caption, Qt::ElideRight, layout.caption.width()));
    const int seq_len = m_run->seqLen();
    const bool vector_cells = output == Output::Picture && qsizetype(seq_len) * seq_len <= kVectorCellLimit;
    const int bins = vector_cells ? seq_len : binsFor(layout.side, pixel_ratio);
    const Reduced& r = reduced(bins);
    const double scale_top = top(bins);
    // A picture's image holds a whole number of pixels per reduced pixel, about as many as the page shows.
    const int pixels_per_cell =
        output == Output::Picture ? std::clamp(int(std::lround(layout.side * pixel_ratio / bins)), 1, 16) : 1;

    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.setRenderHint(QPainter::LosslessImageRendering, true);
    painter.setPen(Qt::NoPen);
    const auto draw = [&](const QRectF& rect, const AttentionThumbnail& thumbnail) {
        if (vector_cells)
            paintVectorCells(painter, rect, thumbnail, scale_top);
        else
            painter.drawImage(rect, thumbnailImage(thumbnail, scale_top, pixels_per_cell));
        // Masked cells hatched as in every other heatmap, small spacing as in the compact grid.
        Hatch::draw(&painter, maskedRuns(rect, thumbnail), 4.0);
    };
    for (int i = 0; i < layout.thumbnails.size(); ++i)
        draw(layout.thumbnails[i], r.thumbnails[size_t(i)]);
    // Hidden keys: a pale band over their columns (at least a pixel wide), marked, not dropped.
    const auto mark_hidden = [&](const QRectF& rect) {
        for (int key : m_hidden) {
            const double left = rect.left() + rect.width() * key / seq_len;
            const double width = std::max(rect.width() / seq_len, 1.0 / pixel_ratio);
            painter.fillRect(QRectF(left, rect.top(), width, rect.height()), QColor(255, 255, 255, 170));
        }
    };
    if (m_aggregate && !r.head_aggregates.empty()) {
        for (int layer = 0; layer < layout.layer_aggregates.size(); ++layer)
            draw(layout.layer_aggregates[layer], r.layer_aggregates[size_t(layer)]);
        for (int head = 0; head < layout.head_aggregates.size(); ++head)
            draw(layout.head_aggregates[head], r.head_aggregates[size_t(head)]);
        draw(layout.all_aggregate, r.head_aggregates.back());
    }
    if (!m_hidden.empty()) {
        for (const QRectF& rect : layout.thumbnails)
            mark_hidden(rect);
        for (const QList<QRectF>* list : {&layout.layer_aggregates, &layout.head_aggregates})
            for (const QRectF& rect : *list)
                mark_hidden(rect);
        if (!layout.all_aggregate.isEmpty())
            mark_hidden(layout.all_aggregate);
    }
    painter.restore();

    // Labels: "L0".. left of the rows, "H0".. above the columns, thinned to what fits.
    painter.setFont(labelFont(painter.font()));
    const QFontMetricsF metrics(painter.font());
    const int heads = numHeads();
    // The current head is the window's state: a picture shows no trace of it.
    const int current_layer = output == Output::Screen ? m_current_layer : -1;
    const int current_head = output == Output::Screen ? m_current_head : -1;
    for (int layer : layout.row_labels) {
        const QRectF row = layout.thumbnails[layer * heads];
        painter.setPen(layer == current_layer ? QColor(0x1e, 0x88, 0xe5) : QColor(0x30, 0x30, 0x30));
        painter.drawText(QRectF(0, row.center().y() - metrics.height() / 2, layout.grid.left() - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(layer));
    }
    // Sorted, the columns are ranks ("#1" the highest score) and each thumbnail names its head.
    const auto column_label = [&](const QRectF& column, const QString& text) {
        painter.drawText(QRectF(column.center().x() - 40, column.top() - metrics.height() - 3, 80, metrics.height()),
                         Qt::AlignHCenter | Qt::AlignBottom, text);
    };
    for (int column : layout.column_labels) {
        const bool current = !isOrdered() && column == current_head;
        painter.setPen(current ? QColor(0x1e, 0x88, 0xe5) : QColor(0x30, 0x30, 0x30));
        column_label(layout.columns[column],
                     isOrdered() ? QStringLiteral("#%1").arg(column + 1) : QStringLiteral("H%1").arg(column));
    }
    if (m_aggregate) {
        painter.setPen(QColor(0x30, 0x30, 0x30));
        const QString fusion = headFusionKey(*m_aggregate);
        column_label(layout.all_aggregate.translated(0, -(layout.all_aggregate.top() - layout.grid.top())), fusion);
        const QRectF row = layout.all_aggregate;
        // Sorted, the row holds only the corner: its label beside it.
        const double right = layout.head_aggregates.isEmpty() ? row.left() - 4 : layout.grid.left() - 4;
        painter.drawText(QRectF(0, row.center().y() - metrics.height() / 2, right, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, QCoreApplication::translate("ModelGridPainter", "all"));
    }
    if (isOrdered() && layout.side >= 22) {
        QFont small = painter.font();
        small.setPixelSize(std::max(8, small.pixelSize() - 1));
        painter.setFont(small);
        const QFontMetricsF small_metrics(small);
        for (int i = 0; i < layout.thumbnails.size(); ++i) {
            const QString text = QStringLiteral("H%1").arg(i % heads);
            const QRectF box = layout.thumbnails[i];
            const QRectF label(box.left() + 1, box.bottom() - small_metrics.height() - 1,
                               small_metrics.horizontalAdvance(text) + 4, small_metrics.height());
            painter.fillRect(label, QColor(255, 255, 255, 210));
            painter.setPen(QColor(0x30, 0x30, 0x30));
            painter.drawText(label, Qt::AlignCenter, text);
        }
        painter.setFont(labelFont(painter.font()));
    }
    const std::vector<double>& marks = m_arrangement.marks();
    if (marks.size() == size_t(layout.thumbnails.size())) {
        // Frames in one hue whose strength is the score: a head that does the job stands out.
        const QColor mark(0xd9, 0x5f, 0x02);
        QFont small = painter.font();
        small.setPixelSize(std::max(8, small.pixelSize() - 1));
        const QFontMetricsF small_metrics(small);
        for (int i = 0; i < layout.thumbnails.size(); ++i) {
            const double score = std::clamp(marks[size_t(i)], 0.0, 1.0);
            QColor frame = mark;
            frame.setAlphaF(float(0.2 + 0.8 * std::sqrt(score)));
            painter.setPen(QPen(frame, 1.0 + 5.0 * score));
            painter.setBrush(Qt::NoBrush);
            const QRectF box = layout.thumbnails[i].adjusted(-1.5, -1.5, 1.5, 1.5);
            painter.drawRect(box);
            if (box.width() >= 44) {
                const QString text = QString::number(marks[size_t(i)], 'f', 2);
                const QRectF label(box.right() - small_metrics.horizontalAdvance(text) - 6, box.top() + 2,
                                   small_metrics.horizontalAdvance(text) + 4, small_metrics.height());
                painter.fillRect(label, QColor(255, 255, 255, 220));
                painter.setFont(small);
                painter.setPen(mark.darker(130));
                painter.drawText(label, Qt::AlignCenter, text);
                painter.setFont(labelFont(painter.font()));
            }
        }
    }
    const KvGroupMarks groups(heads, m_run->num_kv_heads);
    if (groups.isGrouped() && !isOrdered())
        groups.paint(painter, layout.thumbnails.mid(0, heads), metrics.height() + 3, layout.grid.top(),
                     layout.grid.bottom());
    if (current_layer >= 0 && current_head >= 0) {
        painter.setPen(QPen(QColor(0x1e, 0x88, 0xe5), 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(layout.thumbnails[current_layer * heads + current_head].adjusted(-2, -2, 2, 2));
    }

    for (const ReplacedHead& replaced : m_run->replaced_heads) {
        const qsizetype index = qsizetype(replaced.layer) * heads + replaced.head;
        if (index < layout.thumbnails.size())
            AblatedHeads::paintMark(painter, layout.thumbnails[index]);
    }

    ColorBar bar;
    bar.setColorMap(m_map);
    if (m_scale == ColorScale::Log) {
        bar.setLogarithmic(true);
        bar.setRange(scale_top * std::pow(10.0, -ColorScales::kLogDecades), scale_top);
    } else {
        bar.setRange(0.0, m_scale == ColorScale::PerRow ? 1.0 : scale_top);
    }
    const QString what = m_run->value_norms ? QStringLiteral("norm ||A f(x)||") : QStringLiteral("weight");
    bar.setLabel(m_reduction == ThumbnailReduction::Max || bins == seq_len ? what : QStringLiteral("mean ") + what);
    bar.setMaskLegendVisible(m_run->attention.isCausal());
    bar.setNote(scaleNote(bins));
    bar.paintTo(&painter, layout.color_bar);
    painter.restore();
}

}  // namespace attn
