#include "ui/views/qk/QueryKeyPainter.h"

#include "ui/heatmap/HeatmapData.h"

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
        m_problem = QStringLiteral("head %1 is out of range, the layer has heads 0 to %2")
                        .arg(m_head)
                        .arg(trace.num_heads - 1);
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
    QFont font = painter.font();
    font.setPixelSize(std::max(9, int(std::min(target.width(), target.height()) / 60)));
    painter.setFont(font);
    const QFontMetricsF fm(font, painter.device());
    const double line = fm.height();

    QString title = m_caption.isEmpty() ? QStringLiteral("Query-key space") : m_caption + QStringLiteral(" · query-key space");
    if (m_problem.isEmpty() && m_result) {
        const AttentionTrace& trace = m_result->trace;
        title += QStringLiteral(" · head %1").arg(m_head);
        if (trace.kvHeads() < trace.num_heads)
            title += QStringLiteral(" (keys of kv head %1)").arg(trace.kvHeadOf(m_head));
        title += QStringLiteral(" · PCA of the joint set: %1% + %2% of the variance")
                     .arg(m_points.explained[0] * 100, 0, 'f', 0)
                     .arg(m_points.explained[1] * 100, 0, 'f', 0);
    }
    painter.setPen(kInk);
    painter.drawText(QRectF(target.left() + line, target.top() + line / 2, target.width() - 2 * line, line),
                     Qt::AlignLeft | Qt::AlignVCenter, title);
    const std::optional<Frame> f = frame(target, line);
    if (!f) {
        painter.setPen(kMuted);
        painter.drawText(target, Qt::AlignCenter | Qt::TextWordWrap, m_problem);
        painter.restore();
        return;
    }
    painter.setPen(QPen(QColor(0xdd, 0xdd, 0xdd), 0));
    painter.drawRect(f->plot);
    const double r = kMarkRadius * std::max(1.0, line / 14);
    // Keys hidden in the heatmaps (the attention sink, say) stay in the scatter, where they are:
    // grey and dashed, their labels struck through.
    const std::vector<bool>& hidden = m_result->hidden_keys;
    bool any_hidden = false;
    for (Eigen::Index i = 0; i < m_points.keys.rows(); ++i) {
        const QPointF p = f->map(m_points.keys(i, 0), m_points.keys(i, 1));
        const bool is_hidden = size_t(i) < hidden.size() && hidden[size_t(i)];
        any_hidden = any_hidden || is_hidden;
        painter.setPen(is_hidden ? QPen(kMuted, r / 2.5, Qt::DashLine) : QPen(kKey, r / 2.5));
        painter.setBrush(Qt::white);
        painter.drawRect(QRectF(p.x() - r, p.y() - r, 2 * r, 2 * r));
        painter.drawText(QPointF(p.x() + r * 1.4, p.y() + fm.ascent() / 2.5),
                         is_hidden ? HeatmapData::struck(token(int(i), true)) : token(int(i), true));
    }
    for (Eigen::Index i = 0; i < m_points.queries.rows(); ++i) {
        const QPointF p = f->map(m_points.queries(i, 0), m_points.queries(i, 1));
        painter.setPen(Qt::NoPen);
        painter.setBrush(kQuery);
        painter.drawEllipse(p, r, r);
        painter.setPen(kQuery.darker(140));
        painter.drawText(QPointF(p.x() + r * 1.4, p.y() + fm.ascent() / 2.5), token(int(i), false));
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
    const QString keys = QStringLiteral("keys (moved to the queries' centroid, both scaled to one mean norm: the "
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

namespace {

double lineHeight(const QRectF& target)
{
    QFont font;
    font.setPixelSize(std::max(9, int(std::min(target.width(), target.height()) / 60)));
    return QFontMetricsF(font).height();
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
                found = QStringLiteral("%1 %2 '%3'").arg(key ? QStringLiteral("key") : QStringLiteral("query"))
                            .arg(i)
                            .arg(token(int(i), key));
            }
        }
    };
    consider(m_points.queries, false);
    consider(m_points.keys, true);
    return found;
}

}  // namespace attn
