#include "ui/views/heads/HeadsGrid.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/heatmap/ColorBar.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/KvGroupMarks.h"
#include "ui/heatmap/ReductionNote.h"

#include <QComboBox>
#include <QPainter>
#include <QResizeEvent>

#include <algorithm>
#include <cmath>

namespace attn {

HeadsGrid::HeadsGrid(QWidget* parent) : QWidget(parent)
{
    m_color_bar = new ColorBar(this);
    m_color_bar->setLabel(tr("weight"));
    m_scale_box = new QComboBox(this);
    for (ColorScale scale : ColorScales::all()) {
        m_scale_box->addItem(ColorScales::title(scale), int(scale));
        m_scale_box->setItemData(m_scale_box->count() - 1, ColorScales::toolTip(scale), Qt::ToolTipRole);
    }
    m_scale_box->setToolTip(tr("Which weights set the top of the shared colour scale"));
    connect(m_scale_box, &QComboBox::activated, this,
            [this](int index) { setColorScale(ColorScale(m_scale_box->itemData(index).toInt())); });
    setMinimumSize(320, 240);
    setAutoFillBackground(true);  // one white canvas, as in the exported picture
    QPalette canvas = palette();
    canvas.setColor(QPalette::Window, Qt::white);
    setPalette(canvas);
}

void HeadsGrid::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    updatePlots();
}

void HeadsGrid::updatePlots()
{
    const int heads = m_result ? m_result->numHeads() : 0;
    const int plots = heads + (heads > 0 && m_aggregate != HeadAggregate::None ? 1 : 0);
    while (m_plots.size() > plots)
        delete m_plots.takeLast();
    while (m_plots.size() < plots) {
        auto* plot = new HeatmapPlot(this);
        plot->setReduction(m_reduction);
        plot->setTopMass(m_top_mass);
        const int head = int(m_plots.size());
        plot->setCompact(true);
        plot->setSquareCells(true);
        plot->setColorMap(m_map);
        plot->setToolTip(tr("Head %1: click to open it large").arg(head));
        plot->setCursor(Qt::PointingHandCursor);
        connect(plot, &HeatmapPlot::cellClicked, this, [this, head](int query, int key) {
            if (!m_result || head >= m_result->numHeads())  // the aggregate is no head to open
                return;
            emit headActivated(head);
            emit cellActivated(head, query, key);
        });
        connect(plot, &HeatmapPlot::cellHovered, this,
                [this, head](int query, int key, double value) { emit cellHovered(head, query, key, value); });
        connect(plot, &HeatmapPlot::hoverLeft, this, [this] { emit cellHovered(-1, -1, -1, 0.0); });
        connect(plot, &HeatmapPlot::replotted, this, [this] {
            if (m_pending_replots > 0 && --m_pending_replots == 0)
                emit replotted();
        });
        plot->show();
        m_plots.append(plot);
    }
    if (!m_result)
        return;
    m_data = HeatmapData::fromResult(*m_result, m_scale);
    m_pending_replots = plots;
    const AttentionTrace& trace = m_result->trace;
    // A long input's heads, reduced by the engine as it computed them: the blocks a plot would
    // reduce the weights to (the same code). Dimmed blocks and hidden keys need the weights: the
    // heads are then recomputed one at a time and reduced here.
    const BlockShape blocks = attn::blockShape(m_result->seqLen(), m_result->keyLen(), HeatmapPlot::kReducedSide);
    const bool engine_pictures =
        trace.hasCellBlocks() && m_top_mass >= 1.0 && blocks == BlockShape::square(trace.cell_blocks.front().factor);
    m_reduce_job.supersede();  // a worker still reducing the heads of an earlier call stops
    const bool on_worker = !engine_pictures && !trace.keepsEveryHead() && blocks.reduces() && isVisible() &&
                           !testAttribute(Qt::WA_DontShowOnScreen);
    for (int head = 0; head < heads; ++head) {
        HeatmapPlot* plot = m_plots[head];
        if (on_worker) {
            // reduceHeadsOnWorker below; meanwhile the plot shows its last picture
        } else if (engine_pictures) {
            const CellBlocks& picture = trace.cell_blocks[size_t(head)];
            plot->setReducedMatrix({m_reduction == CellReduction::Max ? picture.max : picture.mean, picture.hidden,
                                    BlockShape::square(picture.factor), MaskMatrix()},
                                   m_result->seqLen(), m_result->keyLen(), m_data.labels, m_data.key_labels);
        } else if (trace.keepsEveryHead()) {
            plot->setMatrix(trace.probabilities[size_t(head)], m_data.labels, m_data.key_labels, m_data.mask, m_result);
        } else {  // reduced here, before the next head is recomputed
            plot->setMatrix(*AttentionDisplay::headProbabilities(*m_result, head), m_data.labels, m_data.key_labels,
                            m_data.mask);
        }
        plot->setTitle(tr("head %1\u009Ch%1").arg(head));  // "h3" in a narrow plot, not "hea\u2026"
        plot->setHighlighted(head == m_current);
    }
    if (HeatmapPlot* plot = aggregatePlot()) {
        const bool mean = m_aggregate == HeadAggregate::Mean;
        const AttentionDisplay::Fusion fusion = mean ? AttentionDisplay::Fusion::Mean : AttentionDisplay::Fusion::Max;
        if (trace.keepsEveryHead()) {
            plot->setMatrix(AttentionDisplay::fuseHeads(trace.probabilities, fusion), m_data.labels, m_data.key_labels,
                            m_data.mask);
        } else if (on_worker) {
            // reduceHeadsOnWorker
        } else {  // one head at a time (fuseHeads' order of operations)
            Matrix fused = *AttentionDisplay::headProbabilities(*m_result, 0);  // (query_len, key_len)
            for (int head = 1; head < heads; ++head) {
                const std::shared_ptr<const Matrix> weights = AttentionDisplay::headProbabilities(*m_result, head);
                if (mean)
                    fused += *weights;
                else
                    fused = fused.cwiseMax(*weights);
            }
            if (mean)
                fused /= float(heads);
            plot->setMatrix(fused, m_data.labels, m_data.key_labels, m_data.mask);
        }
        plot->setTitle(mean ? tr("mean of heads") : tr("max of heads"));
        plot->setToolTip(mean ? tr("The mean of every head's weights") : tr("The largest weight of any head"));
        plot->setHighlighted(false);
    }
    if (on_worker)
        reduceHeadsOnWorker(blocks);
    m_color_bar->setMaskLegendVisible(m_data.any_masked);
    applyColorScale();
    relayout();
    update();
}

void HeadsGrid::reduceHeadsOnWorker(BlockShape blocks)
{
    const int heads = m_result->numHeads();
    const bool any_masked = m_data.any_masked;
    // Each head's matrix reduced, handed over as it is done (plot, reduced); the grid's request
    // is the one refresh() made.
    using Reduced = std::pair<int, ReducedMatrix>;
    // On the GUI thread, as the plot's own reduction would take its matrix.
    const auto show = [this, rows = m_result->seqLen(), columns = m_result->keyLen(), labels = m_data.labels,
                       keys = m_data.key_labels](Reduced reduced) {
        if (reduced.first < m_plots.size())
            m_plots[reduced.first]->setReducedMatrix(std::move(reduced.second), rows, columns, labels, keys);
    };
    m_reduce_job.startAlongside(
        [result = m_result, heads, blocks, mask = any_masked ? m_data.mask : MaskMatrix(), how = m_reduction,
         top_mass = m_top_mass, aggregate = m_aggregate](const auto& ticket) {
            Matrix fused;  // (query_len, key_len): the aggregate head, fuseHeads' order of operations
            for (int head = 0; head < heads; ++head) {
                if (ticket.isStale())
                    return;  // a newer result or setting
                std::shared_ptr<const Matrix> weights = AttentionDisplay::headProbabilities(*result, head);
                ticket.deliver(Reduced(head, reduceCells(*weights, mask, wholeOf(*weights), blocks, how, top_mass)));
                if (aggregate == HeadAggregate::None)
                    continue;
                if (head == 0)
                    fused = *weights;
                else if (aggregate == HeadAggregate::Mean)
                    fused += *weights;
                else
                    fused = fused.cwiseMax(*weights);
            }
            if (aggregate == HeadAggregate::None || ticket.isStale())
                return;
            if (aggregate == HeadAggregate::Mean)
                fused /= float(heads);
            ticket.deliver(Reduced(heads, reduceCells(fused, mask, wholeOf(fused), blocks, how, top_mass)));
        },
        show);
}

HeatmapPlot* HeadsGrid::aggregatePlot() const
{
    if (!m_result || m_aggregate == HeadAggregate::None || m_plots.size() <= m_result->numHeads())
        return nullptr;
    return m_plots.last();
}

void HeadsGrid::setAggregate(HeadAggregate aggregate)
{
    if (aggregate == m_aggregate)
        return;
    m_aggregate = aggregate;
    updatePlots();
}

void HeadsGrid::setTopMass(double fraction)
{
    fraction = std::clamp(fraction, 0.01, 1.0);
    if (fraction == m_top_mass)
        return;
    m_top_mass = fraction;
    bool reduced = false;
    for (HeatmapPlot* plot : m_plots) {
        plot->setTopMass(fraction);
        reduced = reduced || plot->reductionFactor() > 1;
    }
    if (reduced)
        updatePlots();  // dimmed by block as they are reduced again
    else
        applyColorScale();
}

void HeadsGrid::setReduction(CellReduction how)
{
    if (how == m_reduction)
        return;
    m_reduction = how;
    for (HeatmapPlot* plot : m_plots)
        plot->setReduction(how);
    updatePlots();
}

void HeadsGrid::setColorScale(ColorScale scale)
{
    m_scale_box->setCurrentIndex(m_scale_box->findData(int(scale)));
    if (scale == m_scale)
        return;
    m_scale = scale;
    if (m_result)
        m_data = HeatmapData::fromResult(*m_result, m_scale);  // a percentile is computed only when asked for
    applyColorScale();
    emit colorScaleChanged(scale);
}

void HeadsGrid::percentileArrived()
{
    if (!m_result || m_scale != ColorScale::Percentile)
        return;
    m_data = HeatmapData::fromResult(*m_result, m_scale);
    applyColorScale();
}

void HeadsGrid::applyColorScale()
{
    if (!m_result)
        return;
    const HeatmapData::Range range = m_data.range(m_scale);
    for (HeatmapPlot* plot : m_plots) {
        plot->setColorMapping(range.mapping);
        plot->setValueRange(range.low, range.high);
    }
    m_color_bar->setLogarithmic(range.mapping == HeatmapPlot::ColorMapping::Log);
    m_color_bar->setRange(range.low, range.high);
    QString note = range.note;
    if (m_top_mass < 1.0) {
        const QString top = tr("top %1% per row").arg(std::lround(m_top_mass * 100));
        note = note.isEmpty() ? top : note + QStringLiteral(" · ") + top;
    }
    const QString reduced = reductionNote(m_result->seqLen(), m_result->keyLen(), m_reduction);
    if (!reduced.isEmpty())
        note = note.isEmpty() ? reduced : note + QStringLiteral(" · ") + reduced;
    m_color_bar->setNote(note);
    m_color_bar->setLabel(m_result->value_norms ? HeatmapData::kindLabel(true) : tr("weight"));
}

void HeadsGrid::setColorMap(ColorMaps::Map map)
{
    m_map = map;
    for (HeatmapPlot* plot : m_plots)
        plot->setColorMap(map);
    m_color_bar->setColorMap(map);
}

void HeadsGrid::setCurrentHead(int head)
{
    m_current = head;
    for (int i = 0; i < m_plots.size(); ++i)
        m_plots[i]->setHighlighted(i == head);
}

QString HeadsGrid::caption() const
{
    if (!m_result)
        return {};
    const RunSettings& config = m_result->config;
    const int heads = m_result->numHeads();
    const int tokens = m_result->seqLen();
    const QString lengths = m_result->isCross() ? tr("%1 queries × %2 keys").arg(tokens).arg(m_result->keyLen())
                                                : (tokens == 1 ? tr("1 token") : tr("%1 tokens").arg(tokens));
    const QString groups = groupMarks().summary();
    // The mask early: a narrow window elides the end of the line.
    return tr("%1 %2 · %3%4 · d_model %5 · head_dim %6 · %7%8")
        .arg(HeatmapData::kindLabel(m_result->value_norms))
        .arg(heads == 1 ? tr("1 head") : tr("%1 heads").arg(heads), lengths,
             !config.causal ? QString()
             : m_result->trace.sliding_window > 0
                 ? tr(" · causal, sliding window %1").arg(m_result->trace.sliding_window)
                 : tr(" · causal"))
        .arg(config.d_model)
        .arg(m_result->trace.head_dim)
        .arg(m_result->weights_description, groups.isEmpty() ? QString() : QStringLiteral(" · ") + groups);
}

// The header in a narrow window: the longest of these that fits (U+009C between them, as
// QFontMetrics::elidedText takes length variants), the sizes and weights dropped before the mask.
QString HeadsGrid::shortCaptions() const
{
    const QString full = caption();
    if (!m_result)
        return full;
    QStringList variants{full};
    QStringList parts = full.split(QStringLiteral(" · "));
    // Last first: the groups and weights, head_dim, d_model; the heads, tokens and mask stay.
    const auto drop = [&parts](const QString& prefix) {
        for (qsizetype i = parts.size() - 1; i >= 0; --i)
            if (parts[i].startsWith(prefix)) {
                parts.removeAt(i);
                return true;
            }
        return false;
    };
    const auto add = [&] {
        const QString shorter = parts.join(QStringLiteral(" · "));
        if (shorter != variants.last())
            variants << shorter;
    };
    while (parts.size() > 3 && !parts.last().startsWith(QStringLiteral("d_model")) &&
           !parts.last().startsWith(QStringLiteral("head_dim"))) {
        parts.removeLast();  // the weights, the key-value groups
        add();
    }
    drop(QStringLiteral("head_dim"));
    add();
    drop(QStringLiteral("d_model"));
    add();
    return variants.join(QChar(0x9C));
}

// Square heads in the arrangement that makes them largest, the colour bar on the right.
HeadsGrid::Geometry HeadsGrid::layoutFor(const QSizeF& size) const
{
    Geometry geometry;
    const double caption_height = 24;
    const double bar_width = 78;
    const double gap = 6;
    geometry.caption = QRectF(8, 2, size.width() - 16, caption_height);
    // Grouped-query attention: a band above each row of heads for the "kv g" brackets.
    const double band = groupMarks().isGrouped() ? KvGroupMarks::kBandHeight : 0.0;
    const double row_gap = gap + band;
    const QRectF area(4, caption_height + 4 + band, std::max(10.0, size.width() - bar_width - 12),
                      std::max(10.0, size.height() - caption_height - 8 - band));
    const int count = int(m_plots.size());
    if (count == 0)
        return geometry;
    int best_columns = 1;
    double best_side = 0;
    for (int columns = 1; columns <= count; ++columns) {
        const int rows = (count + columns - 1) / columns;
        const double side =
            std::min((area.width() - gap * (columns - 1)) / columns, (area.height() - row_gap * (rows - 1)) / rows);
        if (side > best_side) {
            best_side = side;
            best_columns = columns;
        }
    }
    const int rows = (count + best_columns - 1) / best_columns;
    // Square heads (a head is T x T), the block at the top of the area, under the caption it
    // belongs to (centred, a wide window left a tall empty band between them).
    const double side = best_side;
    const double left = area.left();
    const double top = area.top();
    const double block_height = rows * side + row_gap * (rows - 1);
    const double cell_height = side;
    for (int i = 0; i < count; ++i) {
        const int row = i / best_columns;
        const int column = i % best_columns;
        geometry.heads.append(QRectF(left + column * (side + gap), top + row * (side + row_gap), side, side));
    }
    const double bar_height = std::min(area.height(), std::max(160.0, rows * cell_height * 0.8));
    // Beside the block of heads, the block and the bar centred together.
    const double block_width = best_columns * side + gap * (best_columns - 1);
    const double shift = (size.width() - 4 - bar_width - 12 - (left + block_width)) / 2;
    for (QRectF& head : geometry.heads)
        head.translate(std::max(0.0, shift), 0);
    geometry.color_bar = QRectF(left + std::max(0.0, shift) + block_width + 12,
                                area.top() + std::max(0.0, (block_height - bar_height) / 2), bar_width, bar_height);
    return geometry;
}

void HeadsGrid::relayout()
{
    const Geometry geometry = layoutFor(size());
    // Every head the same size in whole pixels (aligned rectangles differ by one), so that every
    // map of the grid labels the same tokens.
    for (int i = 0; i < m_plots.size(); ++i) {
        const QRectF head = geometry.heads.value(i);
        m_plots[i]->setGeometry(QRect(head.topLeft().toPoint(), head.size().toSize()));
    }
    m_color_bar->setGeometry(geometry.color_bar.toAlignedRect());
    // The scale chooser at the right of the caption row (on screen only: not part of a picture).
    const QSize hint = m_scale_box->sizeHint();
    m_scale_box->setGeometry(QRect(QPoint(width() - hint.width() - 6, 2), hint));
}

void HeadsGrid::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void HeadsGrid::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    QFont font = painter.font();
    font.setPixelSize(13);
    painter.setFont(font);
    painter.setPen(QColor(0x30, 0x30, 0x30));
    QRectF caption_rect = layoutFor(size()).caption;
    caption_rect.setRight(std::min(caption_rect.right(), double(m_scale_box->geometry().left() - 8)));
    painter.drawText(caption_rect, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(font).elidedText(shortCaptions(), Qt::ElideRight, caption_rect.width()));
    groupMarks().paint(painter, layoutFor(size()).heads);
}

KvGroupMarks HeadsGrid::groupMarks() const
{
    return m_result ? KvGroupMarks(m_result->numHeads(), m_result->trace.kvHeads()) : KvGroupMarks(0, 0);
}

void HeadsGrid::render(QPainter* painter, const QRectF& target)
{
    const Geometry geometry = layoutFor(target.size());
    painter->save();
    painter->translate(target.topLeft());
    painter->fillRect(QRectF(QPointF(0, 0), target.size()), Qt::white);
    QFont font = painter->font();
    font.setPixelSize(13);
    painter->setFont(font);
    painter->setPen(QColor(0x30, 0x30, 0x30));
    painter->drawText(geometry.caption, Qt::AlignLeft | Qt::AlignVCenter, caption());
    // HeatmapPlot::render leaves out the frame around the current head: the window's state.
    for (int i = 0; i < m_plots.size(); ++i)
        m_plots[i]->render(painter, geometry.heads[i]);
    groupMarks().paint(*painter, geometry.heads);
    m_color_bar->paintTo(painter, geometry.color_bar);
    painter->restore();
}

void HeadsGrid::showResult(const ViewInput& input)
{
    setResult(input.shown);
}

void HeadsGrid::renderPicture(QPainter* painter, const QRectF& target)
{
    render(painter, target);
}

QSize HeadsGrid::pictureSize() const
{
    return size();
}

QString HeadsGrid::exportName() const
{
    return QStringLiteral("attention-heads.png");
}

}  // namespace attn
