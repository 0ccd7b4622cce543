#include "ui/views/model/ModelGridPainter.h"

#include "ui/heatmap/ColorBar.h"
#include "ui/heatmap/Hatch.h"
#include "ui/heatmap/HeatmapCells.h"
#include "ui/heatmap/KvGroupMarks.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

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

QFont labelFont(const QFont& base)
{
    QFont font = base;
    font.setPixelSize(int(kLabelFontPixels));
    return font;
}

}  // namespace

void ModelGridPainter::setRun(std::shared_ptr<const ModelRun> run)
{
    m_run = std::move(run);
    m_cache.clear();
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
        if (r.bins == bins && r.reduction == m_reduction)
            return r;
    if (m_cache.size() >= 4)
        m_cache.erase(m_cache.begin());
    Reduced r;
    r.bins = bins;
    r.reduction = m_reduction;
    if (m_run)
        r.thumbnails = AttentionThumbnail::reduceAll(m_run->attention, bins, bins, m_reduction);
    for (const AttentionThumbnail& t : r.thumbnails) {
        r.top_all = std::max(r.top_all, t.top);
        r.top_without_one_key_rows = std::max(r.top_without_one_key_rows, t.top_without_one_key_rows);
    }
    m_cache.push_back(std::move(r));
    return m_cache.back();
}

double ModelGridPainter::top(int bins) const
{
    const Reduced& r = reduced(bins);
    // Every query sees a single key only when T = 1: then the scale is simply 0 .. the largest.
    const bool without = m_scale == ColorScale::WithoutOneKeyRows && r.top_without_one_key_rows > 0.0;
    const double top = without ? r.top_without_one_key_rows : r.top_all;
    return top > 0.0 ? top : 1.0;
}

QString ModelGridPainter::scaleNote(int bins) const
{
    if (!m_run || m_scale != ColorScale::WithoutOneKeyRows || !m_run->attention.isCausal())
        return {};
    return top(bins) < reduced(bins).top_all
               ? QCoreApplication::translate("ModelGridPainter", "row 0 (one key) off scale")
               : QString();
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
    const double row_label_width = metrics.horizontalAdvance(QStringLiteral("L%1").arg(layers - 1)) + 8;
    // Grouped-query attention: a band above the head labels for the "kv g" brackets.
    const double group_band = KvGroupMarks(heads, m_run->num_kv_heads).isGrouped() ? KvGroupMarks::kBandHeight : 0.0;
    const double column_label_height = metrics.height() + 4 + group_band;
    const QRectF area(4 + row_label_width, kCaptionHeight + 4 + column_label_height,
                      std::max(10.0, size.width() - row_label_width - kBarWidth - 20),
                      std::max(10.0, size.height() - kCaptionHeight - column_label_height - 10));
    // Square thumbnails as large as fit; the gap between them shrinks with them.
    double side = std::min(area.width() / heads, area.height() / layers);
    const double gap = std::clamp(side * 0.08, 1.0, 6.0);
    side = std::max(
        1.0, std::min((area.width() - gap * (heads - 1)) / heads, (area.height() - gap * (layers - 1)) / layers));
    layout.side = side;
    const double block_width = heads * side + (heads - 1) * gap;
    const double block_height = layers * side + (layers - 1) * gap;
    // The block and the colour bar centred together.
    const double shift = std::max(0.0, (area.width() - block_width) / 2);
    const double drop = std::max(0.0, (area.height() - block_height) / 2);
    layout.grid = QRectF(area.left() + shift, area.top() + drop, block_width, block_height);
    for (int layer = 0; layer < layers; ++layer)
        for (int head = 0; head < heads; ++head)
            layout.thumbnails.append(
                QRectF(layout.grid.left() + head * (side + gap), layout.grid.top() + layer * (side + gap), side, side));
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
        for (int c = 0; c < cols; ++c) {
            const float value = thumbnail.values(r, c);
            std::fill_n(line + c * k, k, std::isnan(value) ? masked : m_levels[levelOf(value, top)]);
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
        for (int c = 0; c < cols;) {
            const QRgb colour = colorOf(m_map, thumbnail.values(r, c), top);
            int end = c + 1;
            while (end < cols && colorOf(m_map, thumbnail.values(r, end), top) == colour)
                ++end;
            runs[colour].addRect(QRectF(rect.left() + c * cell_width, rect.top() + r * cell_height,
                                        (end - c) * cell_width, cell_height));
            c = end;
        }
    }
    painter.fillRect(rect, QColor(colorOf(m_map, 0.0, top)));
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

void ModelGridPainter::setHeadMarks(std::vector<double> scores, const QString& name)
{
    m_marks = std::move(scores);
    m_marks_name = name;
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
    const QString caption = m_marks.empty() ? m_caption
                                            : m_caption + QStringLiteral(" · frames: %1 score (0 to 1)").arg(m_marks_name);
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
    for (int i = 0; i < layout.thumbnails.size(); ++i) {
        const AttentionThumbnail& thumbnail = r.thumbnails[size_t(i)];
        if (vector_cells)
            paintVectorCells(painter, layout.thumbnails[i], thumbnail, scale_top);
        else
            painter.drawImage(layout.thumbnails[i], thumbnailImage(thumbnail, scale_top, pixels_per_cell));
        // Masked cells hatched as in every other heatmap, small spacing as in the compact grid.
        Hatch::draw(&painter, maskedRuns(layout.thumbnails[i], thumbnail), 4.0);
    }
    painter.restore();

    // Labels: "L0".. left of the rows, "H0".. above the columns, thinned to what fits.
    painter.setFont(labelFont(painter.font()));
    const QFontMetricsF metrics(painter.font());
    const int heads = numHeads();
    for (int layer : layout.row_labels) {
        const QRectF row = layout.thumbnails[layer * heads];
        painter.setPen(layer == m_current_layer ? QColor(0x1e, 0x88, 0xe5) : QColor(0x30, 0x30, 0x30));
        painter.drawText(QRectF(0, row.center().y() - metrics.height() / 2, row.left() - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("L%1").arg(layer));
    }
    for (int head : layout.column_labels) {
        const QRectF column = layout.thumbnails[head];
        painter.setPen(head == m_current_head ? QColor(0x1e, 0x88, 0xe5) : QColor(0x30, 0x30, 0x30));
        painter.drawText(QRectF(column.center().x() - 40, column.top() - metrics.height() - 3, 80, metrics.height()),
                         Qt::AlignHCenter | Qt::AlignBottom, QStringLiteral("H%1").arg(head));
    }
    if (m_marks.size() == size_t(layout.thumbnails.size())) {
        // Frames in one hue whose strength is the score: a head that does the job stands out.
        const QColor mark(0xd9, 0x5f, 0x02);
        QFont small = painter.font();
        small.setPixelSize(std::max(8, small.pixelSize() - 1));
        const QFontMetricsF small_metrics(small);
        for (int i = 0; i < layout.thumbnails.size(); ++i) {
            const double score = std::clamp(m_marks[size_t(i)], 0.0, 1.0);
            QColor frame = mark;
            frame.setAlphaF(float(0.2 + 0.8 * std::sqrt(score)));
            painter.setPen(QPen(frame, 1.0 + 5.0 * score));
            painter.setBrush(Qt::NoBrush);
            const QRectF box = layout.thumbnails[i].adjusted(-1.5, -1.5, 1.5, 1.5);
            painter.drawRect(box);
            if (box.width() >= 44) {
                const QString text = QString::number(m_marks[size_t(i)], 'f', 2);
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
    if (groups.isGrouped())
        groups.paint(painter, layout.thumbnails.mid(0, heads), metrics.height() + 3, layout.grid.top(),
                     layout.grid.bottom());
    if (m_framed && m_current_layer >= 0) {
        painter.setPen(QPen(QColor(0x1e, 0x88, 0xe5), 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(layout.thumbnails[m_current_layer * heads + m_current_head].adjusted(-2, -2, 2, 2));
    }

    ColorBar bar;
    bar.setColorMap(m_map);
    bar.setRange(0.0, scale_top);
    bar.setLabel(m_reduction == ThumbnailReduction::Max || bins == seq_len
                     ? QCoreApplication::translate("ModelGridPainter", "weight")
                     : QCoreApplication::translate("ModelGridPainter", "mean weight"));
    bar.setMaskLegendVisible(m_run->attention.isCausal());
    bar.setNote(scaleNote(bins));
    bar.paintTo(&painter, layout.color_bar);
    painter.restore();
}

}  // namespace attn
