#include "ui/views/compare/CompareFigure.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/HeadMetrics.h"
#include "core/analysis/ProbabilityPercentile.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/heatmap/HeatmapData.h"
#include "ui/heatmap/HeatmapPlot.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>

#include <cmath>
#include <numbers>

namespace attn {

// Below this the two heatmaps of a small window (each with its colour bar) and the caption's
// first line stop being readable: the figure scrolls.
constexpr QSize kMinimumContent(420, 180);
// The heatmap a plot draws is its panel less about this much across (tick labels and colour bar)
// and down (title and tick labels); compact panels.
constexpr double kPanelChromeWidth = 150.0;
constexpr double kPanelChromeHeight = 60.0;
// Three in a row while each heatmap is at least this large; below it A and B alone.
constexpr double kReadableSide = 110.0;

CompareFigure::CompareFigure(QWidget* parent) : QWidget(parent)
{
    // In a small window the figure scrolls rather than squeezing the heatmaps into strips.
    auto* scroll = new QScrollArea(this);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    auto* content = new QWidget(scroll);
    content->setMinimumSize(kMinimumContent);
    scroll->setWidget(content);
    m_content = content;

    m_plot_a = new HeatmapPlot(content);
    m_plot_b = new HeatmapPlot(content);
    m_plot_difference = new HeatmapPlot(content);
    for (HeatmapPlot* plot : {m_plot_a, m_plot_b}) {
        plot->setColorMap(ColorMaps::Map::Viridis);
        plot->setColorBarVisible(true);
        plot->setColorBarLabel(tr("weight (shared scale)\u009Cweight"));
        plot->setAxisTitles(tr("key"), tr("query"));
    }
    m_plot_difference->setColorMap(ColorMaps::Map::Diverging);
    m_plot_difference->setColorBarVisible(true);
    m_plot_difference->setColorBarLabel(tr("A \u2212 B"));
    m_plot_difference->setAxisTitles(tr("key"), tr("query"));
    for (HeatmapPlot* plot : {m_plot_a, m_plot_b, m_plot_difference}) {
        plot->setSquareCells(true);  // a head is T x T
        plot->setZoomable(true);
    }
    // The three plots show one window of the heads: zooming or panning one moves the others.
    for (HeatmapPlot* plot : {m_plot_a, m_plot_b, m_plot_difference})
        connect(plot, &HeatmapPlot::viewChanged, this, [this, plot] {
            const QRectF window = plot->isZoomed() ? plot->viewWindow() : QRectF();
            for (HeatmapPlot* other : {m_plot_a, m_plot_b, m_plot_difference})
                if (other != plot && other->fullRowCount() == plot->fullRowCount() &&
                    other->fullColumnCount() == plot->fullColumnCount())
                    other->setViewWindow(window);  // nothing when it shows that window already
        });

    m_caption = new QLabel(content);
    m_caption->setWordWrap(true);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_plots_layout = new QBoxLayout(QBoxLayout::LeftToRight);
    m_plots_layout->setSpacing(4);
    m_plots_layout->addWidget(m_plot_a, 1);
    m_plots_layout->addWidget(m_plot_b, 1);
    m_plots_layout->addWidget(m_plot_difference, 1);
    auto* inner = new QVBoxLayout(content);
    inner->setContentsMargins(0, 0, 0, 0);
    inner->addLayout(m_plots_layout, 1);
    inner->addWidget(m_caption);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    for (HeatmapPlot* plot : {m_plot_a, m_plot_b, m_plot_difference})
        connect(plot, &HeatmapPlot::cellHovered, this, [this](int query, int key, double) {
            if (query < m_comparison->a.rows() && key < m_comparison->a.cols())
                emit cellHovered(query, key, m_comparison->a(query, key), m_comparison->b(query, key));
        });
}

void CompareFigure::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitPlotsToSize();
}

void CompareFigure::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    fitPlotsToSize();
}

QSize CompareFigure::contentSize() const
{
    return size().expandedTo(kMinimumContent);
}

// Three plots side by side with their colour bars: at a laptop's 1000 x 700 each is about 230
// pixels wide, where full-size fonts and margins leave cells of a few pixels; at the window's
// smallest size three in a row would be about 60 pixels, so A and B are shown alone (side by side
// or stacked, whichever is larger), the difference being what the caption's divergence sums up.
// Exports (never shown) keep the full layout.
void CompareFigure::fitPlotsToSize()
{
    const QSize room = contentSize();
    const double caption_line = m_caption->fontMetrics().lineSpacing() + 4;
    const double plots_height = room.height() - caption_line;
    const auto heatmap = [](double width, double height) {
        return std::min(width - kPanelChromeWidth, height - kPanelChromeHeight);
    };
    const double row = heatmap((room.width() - 8) / 3.0, plots_height - 2 * caption_line);
    const double side_by_side = heatmap((room.width() - 4) / 2.0, plots_height);
    const double stacked = heatmap(room.width(), (plots_height - 4) / 2.0);
    const Arrangement arrangement = !isVisible() || row >= kReadableSide ? Arrangement::Row
                                    : side_by_side >= stacked            ? Arrangement::PairSideBySide
                                                                         : Arrangement::PairStacked;
    if (arrangement != m_arrangement) {
        m_arrangement = arrangement;
        m_plots_layout->setDirection(arrangement == Arrangement::PairStacked ? QBoxLayout::TopToBottom
                                                                             : QBoxLayout::LeftToRight);
        m_plot_difference->setVisible(arrangement == Arrangement::Row);
        if (m_a.result)
            m_caption->setText(shownCaption());
    }
    constexpr int kCompactBelow = 340;  // plot width in pixels
    const bool compact = isVisible() && (arrangement != Arrangement::Row || (room.width() - 8) / 3 < kCompactBelow);
    bool changed = false;
    for (HeatmapPlot* plot : {m_plot_a, m_plot_b, m_plot_difference}) {
        if (plot->isCompact() == compact)
            continue;
        plot->setCompact(compact);
        // At this size the token labels alone name the axes (queries down, keys across).
        plot->setAxisTitles(compact ? QString() : tr("key"), compact ? QString() : tr("query"));
        changed = true;
    }
    if (changed)
        applyColorScale();  // a narrow plot's bar label is one word
}

QString CompareFigure::sideTitle(const QString& letter, const CompareSide& side)
{
    QString title = tr("%1: head %2").arg(letter).arg(side.head);
    if (!side.settings.isEmpty())
        title += QStringLiteral(" (%1)").arg(side.settings);
    return title;
}

Status CompareFigure::setComparison(const CompareSide& a, const CompareSide& b)
{
    auto comparison = computeComparison(a, b);
    if (!comparison)
        return Error{comparison.error()};
    showComparison(a, b, std::move(comparison).value());
    return {};
}

Result<std::shared_ptr<const HeadComparison>> CompareFigure::computeComparison(const CompareSide& a,
                                                                               const CompareSide& b)
{
    if (!a.result || !b.result)
        return Error{tr("nothing to compare yet")};
    auto weights_a = CompareData::headProbabilities(*a.result, a.head);
    if (!weights_a)
        return Error{QStringLiteral("A: %1").arg(weights_a.error())};
    auto weights_b = CompareData::headProbabilities(*b.result, b.head);
    if (!weights_b)
        return Error{QStringLiteral("B: %1").arg(weights_b.error())};
    // Value-weighted attention is no distribution: the divergence and the metrics are of its
    // rows normalised to sum 1, the heatmaps of the norms themselves.
    const bool norms = a.result->value_norms || b.result->value_norms;
    std::optional<HeadComparison> of_rows;
    if (norms) {
        auto normalised = CompareData::compare(AttentionDisplay::rowNormalised(*weights_a),
                                               AttentionDisplay::rowNormalised(*weights_b));
        if (!normalised)
            return Error{normalised.error()};
        of_rows = std::move(normalised).value();
    }
    auto comparison = CompareData::compare(std::move(weights_a).value(), std::move(weights_b).value());
    if (!comparison)
        return Error{comparison.error()};
    if (of_rows) {
        comparison->divergence = of_rows->divergence;
        comparison->metric_a = of_rows->metric_a;
        comparison->metric_b = of_rows->metric_b;
    }
    if (recomputesHeads(a, b)) {  // a long input's, here on the worker rather than when the scale is chosen
        comparison->percentile_a =
            matrixPercentile(comparison->a, HeatmapData::fromResult(*a.result).mask, ColorScales::kPercentile);
        comparison->percentile_b =
            matrixPercentile(comparison->b, HeatmapData::fromResult(*b.result).mask, ColorScales::kPercentile);
    }
    return std::make_shared<const HeadComparison>(std::move(comparison).value());
}

void CompareFigure::showComparison(const CompareSide& a, const CompareSide& b,
                                   std::shared_ptr<const HeadComparison> comparison)
{
    m_comparison = std::move(comparison);
    m_a = a;
    m_b = b;
    showComparison();
}

bool CompareFigure::recomputesHeads(const CompareSide& a, const CompareSide& b)
{
    const auto recomputed = [](const CompareSide& side) {
        return side.result && !side.result->trace.keepsEveryHead() && side.head != side.result->trace.kept_head;
    };
    return recomputed(a) || recomputed(b);
}

void CompareFigure::showComparison()
{
    const HeatmapData data_a = HeatmapData::fromResult(*m_a.result);
    const HeatmapData data_b = HeatmapData::fromResult(*m_b.result);
    // The difference hides only cells that neither side may see (a masked cell against a
    // visible one is a real difference: weight against 0).
    const MaskMatrix both_masked = data_a.mask.size() == data_b.mask.size()
                                       ? MaskMatrix(data_a.mask.array() && data_b.mask.array())
                                       : MaskMatrix();
    // Reduced on worker threads (a long input), which keep the comparison alive meanwhile.
    m_plot_a->setMatrix(m_comparison->a, data_a.labels, data_a.key_labels, data_a.mask, m_comparison);
    m_plot_b->setMatrix(m_comparison->b, data_b.labels, data_b.key_labels, data_b.mask, m_comparison);
    m_plot_difference->setMatrix(m_comparison->difference, data_a.labels, data_a.key_labels, both_masked, m_comparison);
    applyColorScale();
    m_plot_difference->setValueRange(-m_comparison->difference_limit, m_comparison->difference_limit);
    m_plot_a->setTitle(sideTitle(tr("A"), m_a));
    m_plot_b->setTitle(sideTitle(tr("B"), m_b));
    m_plot_difference->setTitle(tr("A \u2212 B"));
    m_caption->setText(shownCaption());
}

void CompareFigure::setReduction(CellReduction how)
{
    if (how == m_plot_a->reduction())
        return;
    for (HeatmapPlot* plot : {m_plot_a, m_plot_b, m_plot_difference})
        plot->setReduction(how);
    if (m_a.result && m_b.result)
        showComparison();  // the same comparison, reduced again
}

void CompareFigure::setColorScale(ColorScale scale)
{
    if (scale == m_scale)
        return;
    m_scale = scale;
    applyColorScale();
}

// A and B on one scale made from the two heads shown: linear from their smallest to their largest
// weight (the one-key-row rule is the grid's; here two heads set it), per row, logarithmic below
// their largest, or clipped at the percentile of their unmasked weights.
void CompareFigure::applyColorScale()
{
    if (!m_a.result)
        return;
    HeatmapPlot::ColorMapping mapping = HeatmapPlot::ColorMapping::Linear;
    double low = m_comparison->shared_min;
    double high = m_comparison->shared_max;
    QString note;
    switch (m_scale) {
        case ColorScale::AllCells:
        case ColorScale::WithoutOneKeyRows:
            break;
        case ColorScale::PerRow:
            mapping = HeatmapPlot::ColorMapping::PerRow;
            note = tr("each row ÷ its max");
            break;
        case ColorScale::Log:
            mapping = HeatmapPlot::ColorMapping::Log;
            low = high * std::pow(10.0, -ColorScales::kLogDecades);
            note = tr("log scale");
            break;
        case ColorScale::Percentile: {
            // Each head's cells outside its own mask (the two sides may differ in their masks).
            const double top_a =
                m_comparison->percentile_a
                    ? *m_comparison->percentile_a
                    : AttentionDisplay::percentile({m_comparison->a}, m_plot_a->mask(), ColorScales::kPercentile);
            const double top_b =
                m_comparison->percentile_b
                    ? *m_comparison->percentile_b
                    : AttentionDisplay::percentile({m_comparison->b}, m_plot_b->mask(), ColorScales::kPercentile);
            low = 0.0;
            high = std::max(top_a, top_b) > 0.0 ? std::max(top_a, top_b) : high;
            note = tr("clipped at the %1th percentile").arg(ColorScales::kPercentile);
            break;
        }
    }
    for (HeatmapPlot* plot : {m_plot_a, m_plot_b}) {
        plot->setColorMapping(mapping);
        plot->setValueRange(low, high);
        const bool norms = m_a.result && m_a.result->value_norms;
        const QString weight = norms ? HeatmapData::kindLabel(true) : tr("weight");  // the note says how it is scaled
        // Beside a narrow plot's bar a longer label runs off the plot's edge.
        plot->setColorBarLabel(plot->isCompact() ? weight
                               : note.isEmpty()  ? tr("%1 (shared scale)\u009C%1").arg(weight)
                                                 : tr("%1 · %2\u009C%1").arg(weight, note));
    }
}

void CompareFigure::setColorMap(ColorMaps::Map map)
{
    m_plot_a->setColorMap(map);
    m_plot_b->setColorMap(map);
}

QString CompareFigure::header() const
{
    if (!m_a.result)
        return {};
    const AttentionResult& r = *m_a.result;
    QStringList words;
    for (const Token& token : r.input.tokens)
        words << token.text;
    return tr("Compare heads (%1) — %2 weights, d_model %3, %4 heads%5 — %6 tokens: %7")
        .arg(HeatmapData::kindLabel(r.value_norms), r.weights_description)
        .arg(r.trace.dModel())
        .arg(r.numHeads())
        .arg(r.trace.causal ? tr(", causal") : QString())
        .arg(r.seqLen())
        .arg(words.join(QLatin1Char(' ')));
}

QString CompareFigure::caption() const
{
    if (!m_a.result)
        return {};
    const HeadMetric& a = m_comparison->metric_a;  // computed with the comparison (a worker's, at length)
    const HeadMetric& b = m_comparison->metric_b;
    auto metrics = [](const HeadMetric& m) {
        return tr("entropy %1, max %2, diagonal %3, previous %4, first %5")
            .arg(m.entropy, 0, 'f', 3)
            .arg(m.max, 0, 'f', 3)
            .arg(m.diagonal, 0, 'f', 3)
            .arg(m.previous, 0, 'f', 3)
            .arg(m.first, 0, 'f', 3);
    };
    return normsNote() + tr("Jensen\u2013Shannon divergence of A and B: %1 (0 = the same, ln 2 = %2 = disjoint); "
              "largest |A \u2212 B| = %3\nA: %4\nB: %5")
        .arg(m_comparison->divergence, 0, 'f', 4)
        .arg(std::numbers::ln2, 0, 'f', 3)
        .arg(double(m_comparison->largest_difference), 0, 'f', 3)
        .arg(metrics(a), metrics(b));
}

// Value-weighted attention: what the divergence and the metrics are of.
QString CompareFigure::normsNote() const
{
    const bool norms = (m_a.result && m_a.result->value_norms) || (m_b.result && m_b.result->value_norms);
    return norms ? tr("Norms ||A f(x)||; divergence and metrics of their rows normalised to sum 1. ") : QString();
}

// A small window's caption: the divergence alone (the metrics are in the head table), and what
// is left out.
QString CompareFigure::shownCaption() const
{
    if (m_arrangement == Arrangement::Row || !m_a.result)
        return caption();
    return normsNote() + tr("Jensen\u2013Shannon divergence of A and B: %1 (0 = the same, %2 = disjoint); "
                            "largest |A \u2212 B| = %3. A \u2212 B is drawn in a larger window.")
        .arg(m_comparison->divergence, 0, 'f', 4)
        .arg(std::numbers::ln2, 0, 'f', 3)
        .arg(double(m_comparison->largest_difference), 0, 'f', 3);
}

void CompareFigure::paint(QPainter* painter, const QRectF& target)
{
    painter->save();
    painter->fillRect(target, Qt::white);
    QFont font = this->font();
    font.setPixelSize(std::clamp(int(target.width() / 90), 10, 14));
    const QFontMetricsF metrics(font);
    const QStringList lines = caption().split(QLatin1Char('\n'));
    const double caption_height = lines.size() * metrics.lineSpacing() + 12.0;
    const QString header = this->header();
    const double header_height = metrics.lineSpacing() + 10.0;
    const double gap = 16.0;
    // Two layouts, the one whose heatmaps come out larger drawn: the three panels in a row with the
    // caption below (wide pictures), or A and B above, A - B and the caption beside it below (the
    // default 1200 x 900, where a row leaves half the height empty). A heatmap is square (T x T),
    // inside its panel's tick labels, titles and colour bar: about kChromeWidth x kChromeHeight.
    constexpr double kChromeWidth = 200.0;
    constexpr double kChromeHeight = 130.0;
    const auto heatmap_side = [](double width, double height) {
        return std::min(width - kChromeWidth, height - kChromeHeight);
    };
    const double row_width = (target.width() - 2 * gap) / 3.0;
    const double row_room = std::max(10.0, target.height() - caption_height - header_height);
    const double row_height = std::min(row_room, row_width * 1.1);  // no taller than about square
    const double grid_width = (target.width() - gap) / 2.0;
    const double grid_room = std::max(10.0, target.height() - header_height - gap);
    const double grid_height = std::min(grid_room / 2.0, grid_width * 1.1);
    const bool two_rows = heatmap_side(grid_width, grid_height) > heatmap_side(row_width, row_height);

    const double block_height = two_rows ? 2 * grid_height + gap : row_height + caption_height;
    const double block_top = target.top() + std::max(0.0, (target.height() - header_height - block_height) / 2.0);
    QFont header_font = font;
    header_font.setBold(true);
    painter->setFont(header_font);
    painter->setPen(Qt::black);
    painter->drawText(QRectF(target.left() + 12, block_top, target.width() - 24, header_height),
                      Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetricsF(header_font).elidedText(header, Qt::ElideRight, target.width() - 24));
    painter->setFont(font);
    const double top = block_top + header_height;
    HeatmapPlot* plots[] = {m_plot_a, m_plot_b, m_plot_difference};
    if (two_rows) {
        const double left = target.left();
        const double lower = top + grid_height + gap;
        plots[0]->render(painter, QRectF(left, top, grid_width, grid_height));
        plots[1]->render(painter, QRectF(left + grid_width + gap, top, grid_width, grid_height));
        plots[2]->render(painter, QRectF(left, lower, grid_width, grid_height));
        const QRectF caption_box(left + grid_width + gap + 12, lower, grid_width - 24, grid_height);
        painter->drawText(caption_box, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, lines.join(u"\n\n"));
        painter->restore();
        return;
    }
    for (int i = 0; i < 3; ++i)
        plots[i]->render(painter, QRectF(target.left() + i * (row_width + gap), top, row_width, row_height));
    double y = top + row_height + 6.0;
    for (const QString& line : lines) {
        painter->drawText(QRectF(target.left() + 12, y, target.width() - 24, metrics.lineSpacing()),
                          Qt::AlignLeft | Qt::AlignVCenter,
                          metrics.elidedText(line, Qt::ElideRight, target.width() - 24));
        y += metrics.lineSpacing();
    }
    painter->restore();
}

}  // namespace attn
