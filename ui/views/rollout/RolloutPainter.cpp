#include "ui/views/rollout/RolloutPainter.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/AttentionFlow.h"
#include "ui/heatmap/HeatmapData.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPaintDevice>

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

Result<MatrixD> RolloutPainter::compute(const Job& job)
{
    if (!job.run)
        return MatrixD();
    AttentionRollout::Options options = job.options;
    if (job.flow)
        options.last_layer = -1;  // the flow is computed through every layer
    return job.flow ? AttentionFlow::compute(job.run->attention, options)
                    : AttentionRollout::compute(job.run->attention, options);
}

void RolloutPainter::setComputed(Result<MatrixD> outcome)
{
    m_stale = false;
    m_error = outcome ? QString() : outcome.error();
    m_rollout = outcome ? std::move(outcome).value() : MatrixD();
}

void RolloutPainter::ensureComputed() const
{
    if (!m_stale || !m_compute_on_paint)
        return;
    const_cast<RolloutPainter*>(this)->setComputed(compute(job()));  // a cache of the options
}

QString RolloutPainter::scaleNote() const
{
    switch (m_scale) {
        case ColorScale::PerRow:
            return QStringLiteral("colours: each row / its max");
        case ColorScale::Log:
            return QStringLiteral("colours: log scale, 4 decades");
        case ColorScale::Percentile:
            return QStringLiteral("colours: clipped at the 99th percentile");
        default:
            return {};
    }
}

double RolloutPainter::paintMatrix(QPainter& painter, const QRectF& rect, const MatrixD& shown,
                                   const std::vector<bool>& hidden) const
{
    const int seq_len = int(shown.rows());
    const bool causal = m_run && m_run->attention.isCausal();
    // The top of the scale: causal row 0 holds 1 by construction (it sees only itself), so the
    // linear scale leaves it out, as every heatmap does.
    double top = 0.0;
    const int first_row = causal && seq_len > 1 && m_scale == ColorScale::WithoutOneKeyRows ? 1 : 0;
    top = shown.bottomRows(seq_len - first_row).maxCoeff();
    if (m_scale == ColorScale::Percentile) {
        std::vector<double> cells;  // the cells a query can draw from: causal, the lower triangle
        for (int i = 0; i < seq_len; ++i)
            for (int j = 0; j < (causal ? i + 1 : seq_len); ++j)
                cells.push_back(shown(i, j));
        const auto rank = size_t(std::ceil(ColorScales::kPercentile / 100.0 * double(cells.size()))) - 1;
        std::nth_element(cells.begin(), cells.begin() + std::ptrdiff_t(rank), cells.end());
        if (cells[rank] > 0.0)
            top = cells[rank];
    }
    const auto colour = [&](double value, double row_top) {
        double level = 0.0;
        switch (m_scale) {
            case ColorScale::PerRow:
                level = row_top > 0.0 ? value / row_top : 0.0;
                break;
            case ColorScale::Log:
                level = value > 0.0 && top > 0.0 ? 1.0 + std::log10(value / top) / ColorScales::kLogDecades : 0.0;
                break;
            default:
                level = top > 0.0 ? value / top : 0.0;
                break;
        }
        return ColorMaps::colorAt(m_color_map, std::clamp(level, 0.0, 1.0));
    };

    const double cell = rect.width() / seq_len;
    if (seq_len <= 64) {  // few cells: rectangles, sharp in every format
        // The values in cells large enough to hold "0.00", dark or light by the cell's colour.
        const QFontMetricsF metrics(painter.font(), painter.device());
        const bool numbers =
            cell >= std::max(metrics.horizontalAdvance(QStringLiteral("0.00")) + 6, metrics.height() * 1.2);
        for (int i = 0; i < seq_len; ++i) {
            const double row_top = shown.row(i).maxCoeff();
            for (int j = 0; j < seq_len; ++j) {
                const QRectF box(rect.left() + j * cell, rect.top() + i * cell, cell + 0.5, cell + 0.5);
                const QColor fill = colour(shown(i, j), row_top);
                painter.fillRect(box, fill);
                if (!numbers || (causal && j > i))  // a decoder's future: 0 by construction
                    continue;
                painter.setPen(fill.lightnessF() > 0.55 ? kInk : Qt::white);
                painter.drawText(box.adjusted(0, 0, -0.5, -0.5), Qt::AlignCenter, QString::number(shown(i, j), 'f', 2));
            }
        }
    } else {
        const double ratio = painter.device() ? painter.device()->devicePixelRatioF() : 1.0;
        const int bins = std::clamp(int(std::ceil(rect.width() * ratio)), 1, seq_len);
        QImage image(bins, bins, QImage::Format_RGB32);
        for (int r = 0; r < bins; ++r) {
            const int first = int(qint64(r) * seq_len / bins);
            const int last = std::max(first + 1, int(qint64(r + 1) * seq_len / bins));
            // (bins) the largest value under each pixel of this row of pixels
            Eigen::VectorXd pixels = Eigen::VectorXd::Zero(bins);
            double row_top = 0.0;
            for (int i = first; i < last; ++i) {
                row_top = std::max(row_top, shown.row(i).maxCoeff());
                for (int c = 0; c < bins; ++c) {
                    const int begin = int(qint64(c) * seq_len / bins);
                    const int end = std::max(begin + 1, int(qint64(c + 1) * seq_len / bins));
                    pixels[c] = std::max(pixels[c], shown.row(i).segment(begin, end - begin).maxCoeff());
                }
            }
            QRgb* line = reinterpret_cast<QRgb*>(image.scanLine(r));
            for (int c = 0; c < bins; ++c)
                line[c] = colour(pixels[c], row_top).rgb();
        }
        painter.save();
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter.drawImage(rect, image);
        painter.restore();
    }
    // Hidden tokens: a pale band over their columns, marked rather than dropped.
    for (int key = 0; key < seq_len; ++key)
        if (hidden[size_t(key)])
            painter.fillRect(QRectF(rect.left() + key * cell, rect.top(), std::max(cell, 1.0), rect.height()),
                             QColor(255, 255, 255, 170));
    return top;
}

// The colour scale under the matrix: the gradient from 0 to `top` (each row's own largest value
// with PerRow; four decades below `top` on the log scale), its ends and middle written under it.
void RolloutPainter::paintColourBar(QPainter& painter, const QRectF& bar, double top) const
{
    constexpr int kSteps = 64;
    for (int step = 0; step < kSteps; ++step)
        painter.fillRect(
            QRectF(bar.left() + bar.width() * step / kSteps, bar.top(), bar.width() / kSteps + 0.5, bar.height()),
            ColorMaps::colorAt(m_color_map, (step + 0.5) / kSteps));
    painter.setPen(QPen(kMuted, 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);
    const QRectF below(bar.left(), bar.bottom() + 2, bar.width(), bar.height() * 1.4);
    QString low = QStringLiteral("0");
    QString middle = QString::number(top / 2, 'g', 2);
    QString high = QString::number(top, 'g', 3);
    if (m_scale == ColorScale::PerRow) {
        middle = QStringLiteral("each row to its largest value");
        high = QStringLiteral("1");
    } else if (m_scale == ColorScale::Log) {
        low = QString::number(top * std::pow(10.0, -ColorScales::kLogDecades), 'g', 2);
        middle = QStringLiteral("log scale");
    }
    painter.drawText(below, Qt::AlignLeft | Qt::AlignTop, low);
    painter.drawText(below, Qt::AlignHCenter | Qt::AlignTop, middle);
    painter.drawText(below, Qt::AlignRight | Qt::AlignTop, high);
}

void RolloutPainter::paint(QPainter& painter, const QRectF& target) const
{
    painter.save();
    painter.fillRect(target, Qt::white);
    painter.setRenderHint(QPainter::Antialiasing, false);
    QFont font = painter.font();
    font.setPixelSize(std::max(12, int(std::min(target.width(), target.height()) / 60)));
    painter.setFont(font);
    const QFontMetricsF fm(font, painter.device());
    const double line = fm.height();
    const double margin = line;

    const int layers = m_run ? m_run->attention.numLayers() : 0;
    const int last = m_options.last_layer < 0 || m_flow ? layers - 1 : m_options.last_layer;
    const QString method = m_flow ? QStringLiteral("flow") : QStringLiteral("rollout");
    QString title =
        m_caption.isEmpty() ? QStringLiteral("Attention ") + method : m_caption + QStringLiteral(" · ") + method;
    title += m_run && m_run->value_norms ? QStringLiteral(" of row-normalised norms ||A f(x)||")
                                         : QStringLiteral(" of weights");
    if (m_run)
        title += QStringLiteral(" after layer %1 of %2 · heads fused by %3 · residual weight %4")
                     .arg(last)
                     .arg(layers)
                     .arg(headFusionKey(m_options.fusion))
                     .arg(m_options.residual_weight, 0, 'g', 3);
    if (!scaleNote().isEmpty())
        title += QStringLiteral(" · ") + scaleNote();
    QStringList hidden_names;
    const std::vector<bool> hidden_of_run =
        AttentionDisplay::shownHiddenKeys(m_hidden_positions, m_run ? m_run->seqLen() : 0);
    for (size_t key = 0; key < hidden_of_run.size(); ++key)
        if (hidden_of_run[key])
            hidden_names << QString::number(key);
    if (!hidden_names.isEmpty())
        title += QStringLiteral(" · token %1 hidden, rows renormalised").arg(hidden_names.join(u','));
    painter.setPen(kInk);
    painter.drawText(QRectF(target.left() + margin, target.top() + margin / 2, target.width() - 2 * margin, line),
                     Qt::AlignLeft | Qt::AlignVCenter, title);
    const QRectF body(target.left() + margin, target.top() + margin / 2 + 1.5 * line, target.width() - 2 * margin,
                      target.height() - margin - 1.5 * line - margin / 2);
    ensureComputed();
    const bool current = !m_stale && m_run && m_rollout.rows() == m_run->seqLen();
    if (!m_error.isEmpty() || m_rollout.size() == 0 ||
        (!current && m_rollout.rows() != (m_run ? m_run->seqLen() : 0))) {
        painter.setPen(kMuted);
        painter.drawText(body, Qt::AlignCenter | Qt::TextWordWrap,
                         !m_error.isEmpty() ? m_error
                         : m_run            ? QStringLiteral("Computing the %1…").arg(method)
                                            : QStringLiteral("Open a whole model to see its rollout."));
        painter.restore();
        return;
    }
    if (!current) {  // the last result stays on screen while the new one is computed
        painter.setPen(kMuted);
        painter.drawText(
            QRectF(target.left() + margin, target.top() + margin / 2 + line, target.width() - 2 * margin, line),
            Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("updating…"));
    }

    const int seq_len = int(m_rollout.rows());
    // Hidden input tokens: their columns 0, each row renormalised over the others.
    const std::vector<bool> hidden = AttentionDisplay::shownHiddenKeys(m_hidden_positions, seq_len);
    const bool any_hidden = std::find(hidden.begin(), hidden.end(), true) != hidden.end();
    MatrixD shown_matrix;  // (T, T), only with hidden tokens
    if (any_hidden) {
        shown_matrix = m_rollout;
        for (int row = 0; row < seq_len; ++row)
            AttentionDisplay::hideKeysInRow(shown_matrix.row(row), hidden);
    }
    const MatrixD& shown = any_hidden ? shown_matrix : m_rollout;
    const auto token = [this, &hidden](int i) {
        const QString text = i < m_tokens.size() ? m_tokens[i] : QString::number(i);
        return hidden[size_t(i)] ? HeatmapData::struck(text) : text;
    };
    double label_width = 0;
    for (int i = 0; i < seq_len; ++i)
        label_width = std::max(label_width, fm.horizontalAdvance(token(i)));
    label_width = std::min(label_width + line / 2, body.width() / 6);

    // Left: the matrix, square; right: the chosen query's row as horizontal bars, one per key.
    // Under the matrix: its turned labels, then the colour bar and its numbers (three lines).
    const double matrix_side = std::min(body.height() - label_width - 5 * line, body.width() * 0.55 - label_width);
    const double cell = matrix_side / seq_len;
    const QRectF matrix(body.left() + label_width, body.top() + line, cell * seq_len, cell * seq_len);
    const double colour_top = paintMatrix(painter, matrix, shown, hidden);
    paintColourBar(painter, QRectF(matrix.left(), matrix.bottom() + label_width + line / 2, matrix.width(), line * 0.9),
                   colour_top);
    painter.setPen(QPen(kInk, 0));
    painter.setBrush(Qt::NoBrush);
    const int chosen = query();
    painter.drawRect(QRectF(matrix.left(), matrix.top() + chosen * cell, matrix.width(), cell));
    painter.setPen(kMuted);
    painter.drawText(QRectF(matrix.left(), body.top(), matrix.width(), line), Qt::AlignCenter,
                     QStringLiteral("input token (where it came from) →"));
    // Each label a line high, centred on its cell (a cell may be far thinner than a line).
    const int step = labelStep(cell, line);
    for (int i = 0; i < seq_len; i += step) {
        painter.setPen(i == chosen ? kInk : kMuted);
        painter.drawText(QRectF(body.left(), matrix.top() + (i + 0.5) * cell - line / 2, label_width - line / 4, line),
                         Qt::AlignRight | Qt::AlignVCenter, token(i));
    }
    for (int j = 0; j < seq_len; j += step) {
        painter.save();
        painter.translate(matrix.left() + (j + 0.5) * cell, matrix.bottom() + line / 4);
        painter.rotate(90);
        painter.setPen(kMuted);
        painter.drawText(QRectF(0, -line / 2, label_width, line), Qt::AlignLeft | Qt::AlignVCenter, token(j));
        painter.restore();
    }

    // The chosen row as bars: the share of what token `chosen` holds that came from each input.
    const double bars_left = matrix.right() + 2 * line + label_width;
    const QRectF bars(bars_left, matrix.top(), body.right() - bars_left - 4 * line, matrix.height());
    // Bars thinner than two pixels are drawn a group of neighbours at a time, each group as long as
    // its largest share, so that no share is lost between pixels; the title says so.
    const double bar_height = bars.height() / seq_len;
    const int group = bar_height >= 2.0 ? 1 : int(std::ceil(2.0 / bar_height));
    painter.setPen(kInk);
    const QString bars_title = QStringLiteral("Token %1 \u201c%2\u201d after layer %3: where it came from")
                                   .arg(chosen)
                                   .arg(token(chosen))
                                   .arg(last);
    const QRectF title_rect(matrix.right() + 2 * line, body.top(), body.right() - matrix.right() - 2 * line, line);
    painter.drawText(
        title_rect, Qt::AlignLeft | Qt::AlignVCenter,
        fm.elidedText(
            group == 1 ? bars_title : QStringLiteral("%1 (a bar: the largest of %2)").arg(bars_title).arg(group),
            Qt::ElideMiddle, title_rect.width()));
    const double row_top = shown.row(chosen).maxCoeff();
    for (int first = 0; first < seq_len; first += group) {
        const int count = std::min(group, seq_len - first);
        const double share = shown.row(chosen).segment(first, count).maxCoeff();
        const double width = row_top > 0 ? bars.width() * share / row_top : 0.0;
        const double top = bars.top() + first * bar_height;
        painter.fillRect(QRectF(bars.left(), top + count * bar_height * 0.1, width, count * bar_height * 0.8), kBar);
        if (group == 1 && bar_height >= line * 0.8 && first % step == 0) {
            painter.setPen(kMuted);
            painter.drawText(QRectF(bars.left() + width + line / 4, top, 4 * line, bar_height),
                             Qt::AlignLeft | Qt::AlignVCenter, QString::number(share, 'f', 3));
        }
    }
    painter.setPen(kMuted);
    for (int j = 0; j < seq_len; j += step)
        painter.drawText(
            QRectF(matrix.right() + 2 * line, std::max(bars.top(), bars.top() + (j + 0.5) * bar_height - line / 2),
                   label_width, line),
            Qt::AlignRight | Qt::AlignVCenter, token(j));
    painter.restore();
}

}  // namespace attn
