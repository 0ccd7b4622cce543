#include "ui/views/heads/HeadView.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/ReductionNote.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace attn {

HeadView::HeadView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    auto* head_label = new QLabel(tr("He&ad"), this);
    m_head_box = new QSpinBox(this);
    m_head_box->setRange(0, 0);
    m_head_box->setToolTip(tr("Which head to show (PgUp / PgDn)"));
    head_label->setBuddy(m_head_box);
    m_of_label = new QLabel(this);
    m_hover = new QLabel(this);
    m_hover->setToolTip(tr("The attention weight under the mouse"));
    m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont mono = m_hover->font();
    mono.setPointSizeF(mono.pointSizeF() + 1);
    m_hover->setFont(mono);
    bar->addWidget(head_label);
    bar->addWidget(m_head_box);
    bar->addWidget(m_of_label);
    bar->addSpacing(24);
    bar->addWidget(m_hover, 1);
    m_scale_box = new QComboBox(this);
    for (ColorScale scale : ColorScales::all()) {
        m_scale_box->addItem(ColorScales::title(scale), int(scale));
        m_scale_box->setItemData(m_scale_box->count() - 1, ColorScales::toolTip(scale), Qt::ToolTipRole);
    }
    m_scale_box->setToolTip(tr("Which weights set the top of the colour scale"));
    m_whole = new QToolButton(this);
    m_whole->setText(tr("Whole matrix"));
    m_whole->setToolTip(
        tr("Zoomed in: show the whole matrix again (or double-click the heatmap). The mouse wheel "
           "zooms about the cursor, dragging pans"));
    m_whole->setEnabled(false);
    bar->addWidget(m_whole);
    bar->addWidget(m_scale_box);
    layout->addLayout(bar);

    m_plot = new HeatmapPlot(this);
    m_plot->setColorBarVisible(true);
    m_plot->setSquareCells(true);
    m_plot->setColorBarLabel(tr("attention weight"));
    m_plot->setAxisTitles(tr("key (attended to)"), tr("query (attending)"));
    m_plot->setToolTip(QString());
    m_plot->setZoomable(true);
    layout->addWidget(m_plot, 1);
    connect(m_whole, &QToolButton::clicked, m_plot, &HeatmapPlot::resetZoom);
    connect(m_plot, &HeatmapPlot::viewChanged, this, [this] {
        m_whole->setEnabled(m_plot->isZoomed());
        updateTitle();
    });

    connect(m_head_box, &QSpinBox::valueChanged, this, &HeadView::setHead);
    connect(m_scale_box, &QComboBox::activated, this,
            [this](int index) { setColorScale(ColorScale(m_scale_box->itemData(index).toInt())); });
    connect(m_plot, &HeatmapPlot::cellHovered, this, [this](int query, int key, double value) {
        m_hover->setText(describeCell(m_plot->rowLabel(query), m_plot->columnLabel(key), value));
        emit cellHovered(query, key);
    });
    connect(m_plot, &HeatmapPlot::cellClicked, this, [this](int query, int key) {
        highlightCell(query, key);
        emit cellSelected(m_head, query, key);
    });
    connect(m_plot, &HeatmapPlot::hoverLeft, this, [this] {
        m_hover->clear();
        emit cellHovered(-1, -1);
    });
}

QString HeadView::describeCell(const QString& query, const QString& key, double value)
{
    const QString number = std::isnan(value) ? tr("masked") : QString::number(value, 'f', 3);
    return tr("query '%1' → key '%2': %3").arg(query, key, number);
}

QString HeadView::hoverText() const
{
    return m_hover->text();
}

void HeadView::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    const int heads = m_result ? m_result->numHeads() : 1;
    m_head_box->blockSignals(true);
    m_head_box->setRange(0, std::max(0, heads - 1));
    m_head_box->blockSignals(false);
    m_of_label->setText(tr("of %1").arg(heads));
    m_head = std::clamp(m_head, 0, std::max(0, heads - 1));
    refresh();
}

void HeadView::highlightCell(int query, int key)
{
    m_selected_query = std::max(-1, query);
    m_selected_key = m_selected_query < 0 ? -1 : std::max(-1, key);
    m_plot->setSelection(m_selected_query, m_selected_key);
}

void HeadView::setColorMap(ColorMaps::Map map)
{
    m_plot->setColorMap(map);
}

void HeadView::setColorScale(ColorScale scale)
{
    m_scale_box->setCurrentIndex(m_scale_box->findData(int(scale)));
    if (scale == m_scale)
        return;
    m_scale = scale;
    refresh();
    emit colorScaleChanged(scale);
}

void HeadView::setTopMass(double fraction)
{
    fraction = std::clamp(fraction, 0.01, 1.0);
    if (fraction == m_top_mass)
        return;
    m_top_mass = fraction;
    m_plot->setTopMass(fraction);
    refresh();
}

void HeadView::setReduction(CellReduction how)
{
    if (how == m_plot->reduction())
        return;
    m_plot->setReduction(how);
    refresh();
}

void HeadView::setHead(int head)
{
    if (!m_result) {  // remembered until there is a result to clamp it to
        m_head = std::max(0, head);
        return;
    }
    const int heads = m_result ? m_result->numHeads() : 1;
    head = std::clamp(head, 0, std::max(0, heads - 1));
    if (head == m_head && m_head_box->value() == head)
        return;
    m_head = head;
    m_head_box->blockSignals(true);
    m_head_box->setValue(head);
    m_head_box->blockSignals(false);
    refresh();
    emit headChanged(head);
}

void HeadView::applyColorRange(const HeatmapData& data)
{
    const HeatmapData::Range range = data.range(m_scale);
    m_plot->setColorMapping(range.mapping);
    m_plot->setValueRange(range.low, range.high);
    QString note = range.note;
    if (m_top_mass < 1.0) {
        const QString top = tr("top %1% per row").arg(std::lround(m_top_mass * 100));
        note = note.isEmpty() ? top : note + QStringLiteral(" · ") + top;
    }
    // The note says how it is scaled.
    const QString label = m_result && m_result->value_norms ? HeatmapData::kindLabel(true) : tr("attention weight");
    m_plot->setColorBarLabel(note.isEmpty() ? label : tr("%1 · %2").arg(label, note));
}

void HeadView::percentileArrived()
{
    if (m_result && m_scale == ColorScale::Percentile)
        applyColorRange(HeatmapData::fromResult(*m_result, m_scale));
}

void HeadView::refresh()
{
    if (!m_result)
        return;
    m_head_box->blockSignals(true);
    m_head_box->setValue(m_head);
    m_head_box->blockSignals(false);
    const HeatmapData data = HeatmapData::fromResult(*m_result, m_scale);
    const AttentionTrace& shown = m_result->trace;
    m_recompute_job.supersede();  // a head still recomputed for an earlier call is dropped
    const BlockShape blocks = blockShape(m_result->seqLen(), m_result->keyLen(), HeatmapPlot::kReducedSide);
    if (!shown.keepsEveryHead() && m_head != shown.kept_head && blocks.reduces() && m_plot->isVisible() &&
        !m_plot->testAttribute(Qt::WA_DontShowOnScreen)) {
        // A long input's head that was not kept: recomputed and reduced on a worker (the plot keeps
        // its last picture meanwhile), as the plot would reduce it.
        m_recompute_job.start(
            [result = m_result, head = m_head, blocks, how = m_plot->reduction(), top_mass = m_plot->topMass(),
             mask = data.any_masked ? data.mask : MaskMatrix()](const auto&) {
                const std::shared_ptr<const Matrix> weights = AttentionDisplay::headProbabilities(*result, head);
                return reduceCells(*weights, mask, wholeOf(*weights), blocks, how, top_mass);
            },
            [this, rows = m_result->seqLen(), columns = m_result->keyLen(), labels = data.labels,
             keys = data.key_labels](ReducedMatrix reduced) {
                m_plot->setReducedMatrix(std::move(reduced), rows, columns, labels, keys);
            });
    } else {
        // (query_len, key_len): a long input's head that was not kept is recomputed here (offscreen)
        const std::shared_ptr<const Matrix> weights = AttentionDisplay::headProbabilities(*m_result, m_head);
        const auto keep_alive =
            std::make_shared<std::pair<std::shared_ptr<const AttentionResult>, std::shared_ptr<const Matrix>>>(m_result,
                                                                                                               weights);
        m_plot->setMatrix(*weights, data.labels, data.key_labels, data.mask, keep_alive);
    }
    applyColorRange(data);
    if (m_selected_query >= m_result->seqLen() || m_selected_key >= m_result->keyLen())
        highlightCell(-1);  // the selected token is gone (a shorter sentence)
    updateTitle();
}

// "Head 2 of 12 · causal", and what the cells are: reduced, or the window zoomed to.
void HeadView::updateTitle()
{
    if (!m_result)
        return;
    const QString reduced = m_plot->isZoomed()
                                ? zoomNote(m_plot->visibleCells(), m_result->seqLen(), m_result->keyLen(),
                                           m_plot->blockShape(), m_plot->reduction())
                                : reductionNote(m_result->seqLen(), m_result->keyLen(), m_plot->reduction());
    // Grouped-query attention: the key/value head this head shares; a sliding window's width.
    const AttentionTrace& trace = m_result->trace;
    const QString kv_head =
        trace.kvHeads() < trace.num_heads ? tr(" · kv head %1").arg(trace.kvHeadOf(m_head)) : QString();
    const QString mask = !m_result->config.causal   ? QString()
                         : trace.sliding_window > 0 ? tr(" · causal, sliding window %1").arg(trace.sliding_window)
                                                    : tr(" · causal");
    const QString title = tr("Head %1 of %2 · %3%4%5%6")
                              .arg(m_head)
                              .arg(m_result->numHeads())
                              .arg(HeatmapData::kindLabel(m_result->value_norms), kv_head, mask,
                                   reduced.isEmpty() ? QString() : QStringLiteral(" · ") + reduced);
    // Zoomed, a narrow plot keeps the window rather than the head's details.
    m_plot->setTitle(m_plot->isZoomed() ? title + QChar(0x9c) + tr("Head %1 · %2").arg(m_head).arg(reduced) : title);
}

void HeadView::render(QPainter* painter, const QRectF& target)
{
    m_plot->render(painter, target);
}

void HeadView::showResult(const ViewInput& input)
{
    setResult(input.shown);
}

void HeadView::renderPicture(QPainter* painter, const QRectF& target)
{
    render(painter, target);
}

QSize HeadView::pictureSize() const
{
    return plot()->size();
}

QString HeadView::exportName() const
{
    return QStringLiteral("attention-head-%1.png").arg(head());
}

}  // namespace attn
