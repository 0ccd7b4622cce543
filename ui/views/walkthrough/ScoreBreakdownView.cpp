#include "ui/views/walkthrough/ScoreBreakdownView.h"

#include "ui/heatmap/ColorMaps.h"
#include "ui/views/walkthrough/WalkthroughItemModel.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

constexpr double kCellW = 24;        // up to kWideColumns dimensions
constexpr double kNarrowCellW = 14;  // more dimensions
constexpr int kWideColumns = 24;
constexpr double kCellH = 20;
constexpr double kGap = 6;

}  // namespace

ScoreBreakdownView::ScoreBreakdownView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ScoreBreakdownView::setData(const WalkthroughTable& products, std::optional<RowVector> raw_scores,
                                 int widest_label)
{
    m_products = products;
    m_raw_scores = std::move(raw_scores);
    m_widest_label = widest_label;
    measureLabels();
    updateGeometry();
    update();
}

void ScoreBreakdownView::measureLabels()
{
    // One label when the widest is known: a long input has thousands of keys, and the layout asks
    // for the size hints several times.
    const QFontMetricsF fm(font());
    const QStringList& labels = m_products.row_labels;
    m_label_w = 0;
    if (m_widest_label >= 0 && m_widest_label < labels.size())
        m_label_w = fm.horizontalAdvance(labels[m_widest_label]);
    else
        for (const QString& label : labels)
            m_label_w = std::max(m_label_w, fm.horizontalAdvance(label));
}

void ScoreBreakdownView::setPrecision(int digits)
{
    m_precision = digits;
    updateGeometry();
    update();
}

ScoreBreakdownView::Geometry ScoreBreakdownView::geometry(const QRectF& rect) const
{
    Geometry g;
    const QFontMetricsF fm(font());
    g.label_w = m_label_w + kGap;
    g.score_w =
        m_raw_scores
            ? fm.horizontalAdvance(QStringLiteral("= -000.") + QString(m_precision, QLatin1Char('0'))) + 2 * kGap
            : 0;
    g.header_h = fm.height() + 4;
    g.legend_h = fm.height() + 14;
    g.cell_w = m_products.values.cols() <= kWideColumns ? kCellW : kNarrowCellW;
    g.cell_h = std::max(kCellH, fm.height() + 2);
    const double columns = double(m_products.values.cols());
    // Narrow cells when the head is wide and the widget is not.
    const double room = rect.width() - g.label_w - g.score_w;
    if (columns > 0 && room / columns < g.cell_w)
        g.cell_w = std::max(4.0, room / columns);
    g.cells = QRectF(rect.left() + g.label_w, rect.top() + g.header_h, g.cell_w * columns,
                     g.cell_h * double(m_products.values.rows()));
    return g;
}

QSize ScoreBreakdownView::sizeHint() const
{
    const Geometry g = geometry(QRectF(0, 0, 1e6, 1e6));
    return QSize(int(std::ceil(g.label_w + g.cells.width() + g.score_w)) + 2,
                 int(std::ceil(g.header_h + g.cells.height() + g.legend_h)) + 2);
}

QSize ScoreBreakdownView::minimumSizeHint() const
{
    return QSize(200, sizeHint().height());
}

void ScoreBreakdownView::paint(QPainter& painter, const QRectF& rect) const
{
    const Matrix& values = m_products.values;  // (key_len, head_dim)
    if (values.size() == 0)
        return;
    const Geometry g = geometry(rect);
    const QFontMetricsF fm(painter.font());
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);

    // Only the rows in the painter's clip: a long input has a row for each of thousands of keys,
    // and a screen shows a few dozen.
    const QRectF exposed = painter.hasClipping() ? painter.clipBoundingRect() : rect;
    const int rows = int(values.rows());
    const int first_row = std::clamp(int(std::floor((exposed.top() - g.cells.top()) / g.cell_h)), 0, rows);
    const int end_row = std::clamp(int(std::ceil((exposed.bottom() - g.cells.top()) / g.cell_h)), first_row, rows);

    // Symmetric colour scale around 0: the sign is what matters.
    const float extent = std::max(values.cwiseAbs().maxCoeff(), 1e-12f);
    for (int j = first_row; j < end_row; ++j) {
        for (int i = 0; i < values.cols(); ++i) {
            const QRectF cell(g.cells.left() + i * g.cell_w, g.cells.top() + j * g.cell_h, g.cell_w, g.cell_h);
            painter.fillRect(cell,
                             ColorMaps::colorAt(ColorMaps::Map::Diverging, 0.5 + 0.5 * double(values(j, i) / extent)));
        }
    }
    painter.setPen(QPen(QColor(0xb0, 0xb0, 0xb0), 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(g.cells);

    painter.setPen(palette().color(QPalette::WindowText));
    for (int j = first_row; j < end_row; ++j) {
        const QRectF row(rect.left(), g.cells.top() + j * g.cell_h, g.label_w - kGap, g.cell_h);
        painter.drawText(row, Qt::AlignRight | Qt::AlignVCenter, m_products.row_labels.value(j));
        if (m_raw_scores && j < m_raw_scores->size())
            painter.drawText(
                QRectF(g.cells.right() + kGap, row.top(), g.score_w, g.cell_h), Qt::AlignLeft | Qt::AlignVCenter,
                QStringLiteral("= ") + WalkthroughItemModel::formatValue((*m_raw_scores)[j], m_precision));
    }
    // Dimension numbers, as many as fit.
    const double label_w = fm.horizontalAdvance(QStringLiteral("000"));
    const int every = std::max(1, int(std::ceil(label_w / g.cell_w)));
    for (int i = 0; i < values.cols(); i += every)
        painter.drawText(
            QRectF(g.cells.left() + i * g.cell_w - label_w, rect.top(), 2 * label_w + g.cell_w, g.header_h - 2),
            Qt::AlignHCenter | Qt::AlignBottom, QString::number(i));

    // Legend: the colour scale.
    const double legend_y = g.cells.bottom() + 8;
    const double bar_w = std::min(240.0, std::max(120.0, g.cells.width() / 2));
    const QRectF bar(g.cells.left(), legend_y, bar_w, 8);
    for (int x = 0; x < int(bar_w); ++x)
        painter.fillRect(QRectF(bar.left() + x, bar.top(), 1.0, bar.height()),
                         ColorMaps::colorAt(ColorMaps::Map::Diverging, double(x) / (bar_w - 1)));
    painter.drawText(QRectF(bar.right() + kGap, legend_y - fm.height() / 2 + 4, 600, fm.height()),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     QStringLiteral("−%1  …  0  …  +%1   (q_i · k_j,i: blue lowers the score, red raises it)")
                         .arg(WalkthroughItemModel::formatValue(extent, m_precision)));
    painter.restore();
}

QPoint ScoreBreakdownView::cellAt(QPointF point) const
{
    const Geometry g = geometry(QRectF(rect()));
    if (!g.cells.contains(point) || g.cell_w <= 0)
        return {-1, -1};
    const int key = std::min(int(m_products.values.rows()) - 1, int((point.y() - g.cells.top()) / g.cell_h));
    const int dim = std::min(int(m_products.values.cols()) - 1, int((point.x() - g.cells.left()) / g.cell_w));
    return {key, dim};
}

void ScoreBreakdownView::paintEvent(QPaintEvent* event)
{
    QPainter painter(this);
    painter.setFont(font());
    painter.setClipRect(event->rect());
    paint(painter, QRectF(rect()));
}

bool ScoreBreakdownView::event(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        measureLabels();
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint cell = cellAt(help->pos());
        if (cell.x() >= 0) {
            const float value = m_products.values(cell.x(), cell.y());
            QToolTip::showText(help->globalPos(),
                               QStringLiteral("key %1, dimension %2: q_%2 · k_%2 = %3")
                                   .arg(m_products.row_labels.value(cell.x()))
                                   .arg(cell.y())
                                   .arg(QString::number(double(value), 'g', 7)),
                               this);
        } else {
            QToolTip::hideText();
            event->ignore();
        }
        return true;
    }
    return QWidget::event(event);
}

}  // namespace attn
