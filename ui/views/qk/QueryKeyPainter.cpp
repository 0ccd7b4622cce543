#include "ui/views/qk/QueryKeyPainter.h"

#include "ui/heatmap/HeatmapData.h"
#include "ui/views/qk/LabelPlacer.h"

#include <QCoreApplication>
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

const QColor kInk(0x22, 0x22, 0x22);
const QColor kMuted(0x66, 0x66, 0x66);
const QColor kQuery(0xd9, 0x5f, 0x02);  // ColorBrewer Dark2: orange for queries
const QColor kKey(0x1b, 0x9e, 0x77);    // and green for keys, apart for colour-blind readers too
constexpr double kMarkRadius = 4.5;

// The picture's text: `base` at a size that follows the picture's smaller side.
QFont pictureFont(QFont base, const QRectF& target)
{
    base.setPixelSize(std::max(9, int(std::min(target.width(), target.height()) / 60)));
    return base;
}

// A mark's radius for text `line` pixels high.
double markRadius(double line)
{
    return kMarkRadius * std::max(1.0, line / 14);
}

}  // namespace

void QueryKeyPainter::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    recompute();
}

void QueryKeyPainter::setHead(int head)
{
    m_head = std::max(0, head);
    recompute();
}

void QueryKeyPainter::setResultAndHead(std::shared_ptr<const AttentionResult> result, int head)
{
    m_result = std::move(result);
    m_head = std::max(0, head);
    recompute();
}

void QueryKeyPainter::recompute()
{
    m_points = {};
    m_problem.clear();
    if (!m_result) {
        m_problem = QStringLiteral("No result yet.");
        return;
    }
    const AttentionTrace& trace = m_result->trace;
    if (m_head >= trace.num_heads) {
        m_problem =
            QStringLiteral("head %1 is out of range, the layer has heads 0 to %2").arg(m_head).arg(trace.num_heads - 1);
        return;
    }
    if (trace.q.rows() == 0 || trace.k.rows() == 0) {
        m_problem = QStringLiteral("The queries and keys are not kept for an input this long.");
        return;
    }
    m_points = QueryKeySpace::project(Matrix(trace.qHead(m_head)), Matrix(trace.kHead(m_head)));
}

QString QueryKeyPainter::token(int index, bool key) const
{
    const TokenList& tokens = key ? m_result->keyTokens() : m_result->input.tokens;
    return index < tokens.size() ? tokens[index].text : QString::number(index);
}

QPointF QueryKeyPainter::Frame::map(double x, double y) const
{
    return {plot.center().x() + (x - x0) * scale, plot.center().y() - (y - y0) * scale};
}

std::optional<QueryKeyPainter::Frame> QueryKeyPainter::frame(const QRectF& target, double line) const
{
    if (!m_problem.isEmpty() || m_points.queries.rows() == 0)
        return std::nullopt;
    Frame f;
    f.plot = target.adjusted(2 * line, 3 * line, -2 * line, -2.5 * line);
    MatrixD all(m_points.queries.rows() + m_points.keys.rows(), 2);
    all << m_points.queries, m_points.keys;
    const Eigen::RowVector2d low = all.colwise().minCoeff();
    const Eigen::RowVector2d high = all.colwise().maxCoeff();
    f.x0 = (low(0) + high(0)) / 2;
    f.y0 = (low(1) + high(1)) / 2;
    // One scale for both axes: distances in the picture are distances in the plane.
    const double span = std::max({high(0) - low(0), high(1) - low(1), 1e-12});
    f.scale = std::min(f.plot.width(), f.plot.height()) / span * 0.92;
    return f;
}

void QueryKeyPainter::paint(QPainter& painter, const QRectF& target) const
{
    painter.save();
    painter.fillRect(target, Qt::white);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QFont font = pictureFont(painter.font(), target);
    painter.setFont(font);
    const QFontMetricsF fm(font, painter.device());
    const double line = fm.height();
    const std::optional<Frame> f = frame(target, line);
    const double r = markRadius(line);
    const std::vector<PlacedLabel> placed = f ? placeLabels(*f, fm, r) : std::vector<PlacedLabel>();

    QString title =
        m_caption.isEmpty() ? QStringLiteral("Query-key space") : m_caption + QStringLiteral(" · query-key space");
    if (m_problem.isEmpty() && m_result) {
        const AttentionTrace& trace = m_result->trace;
        title += QStringLiteral(" · head %1").arg(m_head);
        if (trace.kvHeads() < trace.num_heads)
            title += QStringLiteral(" (keys of kv head %1)").arg(trace.kvHeadOf(m_head));
        title += QStringLiteral(" · PCA of the joint set: %1% + %2% of the variance")
                     .arg(m_points.explained[0] * 100, 0, 'f', 0)
                     .arg(m_points.explained[1] * 100, 0, 'f', 0);
        const Eigen::Index all_labels = m_points.queries.rows() + m_points.keys.rows();
        if (Eigen::Index(placed.size()) < all_labels)
            title += QStringLiteral(" · labels where they fit: %1 of %2").arg(placed.size()).arg(all_labels);
    }
    painter.setPen(kInk);
    painter.drawText(QRectF(target.left() + line, target.top() + line / 2, target.width() - 2 * line, line),
                     Qt::AlignLeft | Qt::AlignVCenter, title);
    if (!f) {
        painter.setPen(kMuted);
        painter.drawText(target, Qt::AlignCenter | Qt::TextWordWrap, m_problem);
        painter.restore();
        return;
    }
    painter.setPen(QPen(QColor(0xdd, 0xdd, 0xdd), 0));
    painter.drawRect(f->plot);
    // Keys hidden in the heatmaps (the attention sink, say) stay in the scatter, where they are:
    // grey and dashed, their labels struck through.
    bool any_hidden = false;
    for (Eigen::Index i = 0; i < m_points.keys.rows(); ++i) {
        const QPointF p = f->map(m_points.keys(i, 0), m_points.keys(i, 1));
        any_hidden = any_hidden || isHiddenKey(int(i));
        painter.setPen(isHiddenKey(int(i)) ? QPen(kMuted, r / 2.5, Qt::DashLine) : QPen(kKey, r / 2.5));
        painter.setBrush(Qt::white);
        painter.drawRect(QRectF(p.x() - r, p.y() - r, 2 * r, 2 * r));
    }
    painter.setPen(Qt::NoPen);
    painter.setBrush(kQuery);
    for (Eigen::Index i = 0; i < m_points.queries.rows(); ++i)
        painter.drawEllipse(f->map(m_points.queries(i, 0), m_points.queries(i, 1)), r, r);
    // The labels above every mark, so that no mark hides a label.
    for (const PlacedLabel& label : placed) {
        painter.setPen(!label.key ? kQuery.darker(140) : isHiddenKey(label.index) ? kMuted : kKey);
        painter.drawText(label.rect, Qt::AlignLeft | Qt::AlignVCenter, labelText(label.index, label.key));
    }
    // Legend under the plot.
    const double y = f->plot.bottom() + line * 1.2;
    double x = f->plot.left();
    painter.setPen(Qt::NoPen);
    painter.setBrush(kQuery);
    painter.drawEllipse(QPointF(x + r, y), r, r);
    painter.setPen(kInk);
    painter.drawText(QPointF(x + 3 * r, y + fm.ascent() / 2.5), QStringLiteral("queries"));
    x += 3 * r + fm.horizontalAdvance(QStringLiteral("queries")) + 2 * line;
    painter.setPen(QPen(kKey, r / 2.5));
    painter.setBrush(Qt::white);
    painter.drawRect(QRectF(x, y - r, 2 * r, 2 * r));
    painter.setPen(kInk);
    const QString keys = QStringLiteral(
        "keys (moved to the queries' centroid, both scaled to one mean norm: the "
        "weights are unchanged)");
    painter.drawText(QPointF(x + 3 * r, y + fm.ascent() / 2.5), keys);
    if (any_hidden) {
        x += 3 * r + fm.horizontalAdvance(keys) + 2 * line;
        painter.setPen(QPen(kMuted, r / 2.5, Qt::DashLine));
        painter.drawRect(QRectF(x, y - r, 2 * r, 2 * r));
        painter.setPen(kInk);
        painter.drawText(QPointF(x + 3 * r, y + fm.ascent() / 2.5), QStringLiteral("hidden in the heatmaps"));
    }
    painter.restore();
}

bool QueryKeyPainter::isHiddenKey(int index) const
{
    const std::vector<bool>& hidden = m_result->hidden_keys;
    return size_t(index) < hidden.size() && hidden[size_t(index)];
}

QString QueryKeyPainter::labelText(int index, bool key) const
{
    return key && isHiddenKey(index) ? HeatmapData::struck(token(index, true)) : token(index, key);
}

std::vector<QueryKeyPainter::PlacedLabel> QueryKeyPainter::placeLabels(const Frame& frame, const QFontMetricsF& metrics,
                                                                       double radius) const
{
    struct Candidate {
        int index;
        bool key;
        QPointF mark;
        double distance;  // from the plot's centre
    };
    std::vector<Candidate> candidates;
    for (bool key : {false, true}) {
        const MatrixD& points = key ? m_points.keys : m_points.queries;
        for (Eigen::Index i = 0; i < points.rows(); ++i) {
            const QPointF mark = frame.map(points(i, 0), points(i, 1));
            const QPointF from_centre = mark - frame.plot.center();
            candidates.push_back({int(i), key, mark, std::hypot(from_centre.x(), from_centre.y())});
        }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.distance > b.distance; });
    LabelPlacer placer(frame.plot);
    for (const Candidate& c : candidates)
        placer.keepClear(c.mark, radius);
    std::vector<PlacedLabel> placed;
    for (const Candidate& c : candidates) {
        const QString text = labelText(c.index, c.key);
        const QSizeF size(metrics.horizontalAdvance(text), metrics.height());
        if (const std::optional<QRectF> rect = placer.place(c.mark, radius, size))
            placed.push_back({c.index, c.key, *rect});
    }
    return placed;
}

namespace {

double lineHeight(const QRectF& target)
{
    return QFontMetricsF(pictureFont(QFont(), target)).height();
}

}  // namespace

QPointF QueryKeyPainter::position(int index, bool key, const QRectF& target) const
{
    const std::optional<Frame> f = frame(target, lineHeight(target));
    const MatrixD& points = key ? m_points.keys : m_points.queries;
    if (!f || index < 0 || index >= points.rows())
        return {};
    return f->map(points(index, 0), points(index, 1));
}

std::vector<QueryKeyPainter::PlacedLabel> QueryKeyPainter::labels(const QRectF& target) const
{
    const QFontMetricsF metrics(pictureFont(QFont(), target));
    const std::optional<Frame> f = frame(target, metrics.height());
    if (!f)
        return {};
    return placeLabels(*f, metrics, markRadius(metrics.height()));
}

QString QueryKeyPainter::describe(const QPointF& position, const QRectF& target) const
{
    const std::optional<Frame> f = frame(target, lineHeight(target));
    if (!f)
        return QString();
    double best = 12.0;  // pixels: nearer than this counts
    QString found;
    const auto consider = [&](const MatrixD& points, bool key) {
        for (Eigen::Index i = 0; i < points.rows(); ++i) {
            const QPointF p = f->map(points(i, 0), points(i, 1));
            const double distance = std::hypot(p.x() - position.x(), p.y() - position.y());
            if (distance < best) {
                best = distance;
                found = (key ? QCoreApplication::translate("QueryKeyPainter", "key of '%1', position %2")
                             : QCoreApplication::translate("QueryKeyPainter", "query of '%1', position %2"))
                            .arg(token(int(i), key))
                            .arg(i);
            }
        }
    };
    consider(m_points.queries, false);
    consider(m_points.keys, true);
    return found;
}

}  // namespace attn
