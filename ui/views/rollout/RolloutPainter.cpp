#include "ui/views/rollout/RolloutPainter.h"

#include "core/analysis/AttentionFlow.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

const QColor kInk(0x22, 0x22, 0x22);
const QColor kMuted(0x66, 0x66, 0x66);
const QColor kBar(0x3b, 0x6e, 0xa8);

// Labels every step-th token so that they never overlap: at least a line's height apart.
int labelStep(double cell, double line_height)
{
    return std::max(1, int(std::ceil(line_height / std::max(cell, 1e-6))));
}

}  // namespace

void RolloutPainter::setRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    m_run = std::move(run);
    m_tokens = tokens;
    recompute();
}

void RolloutPainter::setOptions(const AttentionRollout::Options& options)
{
    m_options = options;
    recompute();
}

void RolloutPainter::setFlow(bool flow)
{
    m_flow = flow;
    recompute();
}

void RolloutPainter::setQuery(int query)
{
    m_query = query;
}

int RolloutPainter::query() const
{
    const int seq_len = m_run ? m_run->seqLen() : 0;
    if (seq_len == 0)
        return 0;
    if (m_query >= 0 && m_query < seq_len)
        return m_query;
    // A decoder's last token has seen the whole input; an encoder's first ([CLS]) is the summary.
    return m_run && m_run->attention.isCausal() ? seq_len - 1 : 0;
}

void RolloutPainter::ensureComputed() const
{
    if (!m_stale)
        return;
    m_stale = false;
    m_rollout.resize(0, 0);
    m_error.clear();
    if (!m_run)
        return;
    AttentionRollout::Options options = m_options;
    if (m_flow)
        options.last_layer = -1;  // the flow is computed through every layer
    auto rollout = m_flow ? AttentionFlow::compute(m_run->attention, options)
                          : AttentionRollout::compute(m_run->attention, options);
    if (!rollout) {
        m_error = rollout.error();
        return;
    }
    m_rollout = std::move(rollout).value();
}

void RolloutPainter::paint(QPainter& painter, const QRectF& target) const
{
    painter.save();
    painter.fillRect(target, Qt::white);
    painter.setRenderHint(QPainter::Antialiasing, false);
    QFont font = painter.font();
    font.setPixelSize(std::max(9, int(std::min(target.width(), target.height()) / 60)));
    painter.setFont(font);
    const QFontMetricsF fm(font, painter.device());
    const double line = fm.height();
    const double margin = line;

    const int layers = m_run ? m_run->attention.numLayers() : 0;
    const int last = m_options.last_layer < 0 || m_flow ? layers - 1 : m_options.last_layer;
    const QString method = m_flow ? QStringLiteral("flow") : QStringLiteral("rollout");
    QString title = m_caption.isEmpty() ? QStringLiteral("Attention ") + method : m_caption + QStringLiteral(" · ") + method;
    if (m_run)
        title += QStringLiteral(" after layer %1 of %2 · heads fused by %3 · residual weight %4")
                     .arg(last)
                     .arg(layers)
                     .arg(headFusionKey(m_options.fusion))
                     .arg(m_options.residual_weight, 0, 'g', 3);
    painter.setPen(kInk);
    painter.drawText(QRectF(target.left() + margin, target.top() + margin / 2, target.width() - 2 * margin, line),
                     Qt::AlignLeft | Qt::AlignVCenter, title);
    const QRectF body(target.left() + margin, target.top() + margin / 2 + 1.5 * line, target.width() - 2 * margin,
                      target.height() - margin - 1.5 * line - margin / 2);
    ensureComputed();
    if (!m_error.isEmpty() || m_rollout.size() == 0) {
        painter.setPen(kMuted);
        painter.drawText(body, Qt::AlignCenter | Qt::TextWordWrap,
                         m_error.isEmpty() ? QStringLiteral("Open a whole model to see its rollout.") : m_error);
        painter.restore();
        return;
    }

    const int seq_len = int(m_rollout.rows());
    const auto token = [this](int i) { return i < m_tokens.size() ? m_tokens[i] : QString::number(i); };
    double label_width = 0;
    for (int i = 0; i < seq_len; ++i)
        label_width = std::max(label_width, fm.horizontalAdvance(token(i)));
    label_width = std::min(label_width + line / 2, body.width() / 6);

    // Left: the matrix, square; right: the chosen query's row as horizontal bars, one per key.
    const double matrix_side = std::min(body.height() - label_width - 2 * line, body.width() * 0.55 - label_width);
    const double cell = matrix_side / seq_len;
    const QRectF matrix(body.left() + label_width, body.top() + line, cell * seq_len, cell * seq_len);
    const double top = m_rollout.maxCoeff();
    for (int i = 0; i < seq_len; ++i)
        for (int j = 0; j < seq_len; ++j) {
            const QRectF rect(matrix.left() + j * cell, matrix.top() + i * cell, cell + 0.5, cell + 0.5);
            painter.fillRect(rect, ColorMaps::colorAt(m_color_map, top > 0 ? m_rollout(i, j) / top : 0.0));
        }
    painter.setPen(QPen(kInk, 0));
    painter.setBrush(Qt::NoBrush);
    const int chosen = query();
    painter.drawRect(QRectF(matrix.left(), matrix.top() + chosen * cell, matrix.width(), cell));
    painter.setPen(kMuted);
    painter.drawText(QRectF(matrix.left(), body.top(), matrix.width(), line), Qt::AlignCenter,
                     QStringLiteral("input token (where it came from) →"));
    const int step = labelStep(cell, line);
    for (int i = 0; i < seq_len; i += step) {
        painter.setPen(i == chosen ? kInk : kMuted);
        painter.drawText(QRectF(body.left(), matrix.top() + i * cell, label_width - line / 4, cell),
                         Qt::AlignRight | Qt::AlignVCenter, token(i));
    }
    for (int j = 0; j < seq_len; j += step) {
        painter.save();
        painter.translate(matrix.left() + (j + 0.5) * cell, matrix.bottom() + line / 4);
        painter.rotate(90);
        painter.setPen(kMuted);
        painter.drawText(QRectF(0, -cell / 2, label_width, cell), Qt::AlignLeft | Qt::AlignVCenter, token(j));
        painter.restore();
    }

    // The chosen row as bars: the share of what token `chosen` holds that came from each input.
    const double bars_left = matrix.right() + 2 * line + label_width;
    const QRectF bars(bars_left, matrix.top(), body.right() - bars_left - 4 * line, matrix.height());
    painter.setPen(kInk);
    painter.drawText(QRectF(matrix.right() + 2 * line, body.top(), body.right() - matrix.right() - 2 * line, line),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     QStringLiteral("Token %1 \u201c%2\u201d after layer %3: where it came from").arg(chosen).arg(token(chosen)).arg(last));
    const double row_top = m_rollout.row(chosen).maxCoeff();
    const double bar_height = bars.height() / seq_len;
    for (int j = 0; j < seq_len; ++j) {
        const double share = m_rollout(chosen, j);
        const double width = row_top > 0 ? bars.width() * share / row_top : 0.0;
        painter.fillRect(QRectF(bars.left(), bars.top() + j * bar_height + bar_height * 0.1, width, bar_height * 0.8),
                         kBar);
        if (j % step == 0) {
            painter.setPen(kMuted);
            painter.drawText(QRectF(matrix.right() + 2 * line, bars.top() + j * bar_height, label_width, bar_height),
                             Qt::AlignRight | Qt::AlignVCenter, token(j));
            if (bar_height >= line * 0.8)
                painter.drawText(QRectF(bars.left() + width + line / 4, bars.top() + j * bar_height, 4 * line, bar_height),
                                 Qt::AlignLeft | Qt::AlignVCenter, QString::number(share, 'f', 3));
        }
    }
    painter.restore();
}

}  // namespace attn
