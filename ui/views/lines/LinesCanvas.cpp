#include "ui/views/lines/LinesCanvas.h"

#include "ui/heatmap/HeatmapData.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/pipeline/AttentionResult.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QStyle>

#include <algorithm>
#include <array>
#include <cmath>

namespace attn {
namespace {

QString elided(const QString& text, const QFontMetricsF& metrics, double width)
{
    return metrics.elidedText(text, Qt::ElideRight, width);
}

}  // namespace

struct LinesCanvas::Layout {
    QRectF title;
    QRectF legend;       // all-heads mode only
    double query_x = 0;  // right edge of the query labels
    double key_x = 0;    // left edge of the key labels
    double line_left = 0;
    double line_right = 0;
    double top = 0;  // centre of row 0 is top + row_height / 2
    double row_height = 0;
    double label_width = 0;
    QFont font;
    int label_step = 1;  // every label_step-th token is labelled when rows are too thin
    double rowCentre(int i) const { return top + (i + 0.5) * row_height; }
};

LinesCanvas::LinesCanvas(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    // A white figure on purpose, as every view's picture is (and every export): the style's own
    // light palette whatever the desktop's, which still colours the controls around it.
    const QPalette light = style()->standardPalette();
    QPalette figure = palette();
    for (const auto group : {QPalette::Active, QPalette::Inactive, QPalette::Disabled})
        for (const auto role : {QPalette::Base, QPalette::Window, QPalette::Text, QPalette::WindowText,
                                QPalette::PlaceholderText, QPalette::Highlight})
            figure.setColor(group, role, light.color(group, role));  // set, so a new desktop palette leaves them
    setPalette(figure);
}

LinesCanvas::~LinesCanvas() = default;

void LinesCanvas::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    invalidateLines();
    const int heads = m_result ? m_result->numHeads() : 0;
    m_visible.resize(size_t(heads), true);
    if (m_head >= heads)
        m_head = heads > 0 ? 0 : kAllHeads;
    const int focus_limit = !m_result ? 0 : m_focus_side == Side::Key ? m_result->keyLen() : m_result->seqLen();
    if (m_focus_index >= focus_limit)
        setFocusToken(Side::None, -1);
    update();
}

void LinesCanvas::setHead(int head)
{
    m_head = head < 0 ? kAllHeads : head;
    invalidateLines();
    update();
}

void LinesCanvas::setTopMass(double fraction)
{
    fraction = std::clamp(fraction, 1e-6, 1.0);
    if (fraction == m_top_mass)
        return;
    m_top_mass = fraction;
    invalidateLines();
    update();
}

void LinesCanvas::setHeadVisible(int head, bool visible)
{
    if (head < 0)
        return;
    if (size_t(head) >= m_visible.size())
        m_visible.resize(size_t(head) + 1, true);
    m_visible[size_t(head)] = visible;
    invalidateLines();
    update();
}

bool LinesCanvas::isHeadVisible(int head) const
{
    return head >= 0 && (size_t(head) >= m_visible.size() || m_visible[size_t(head)]);
}

void LinesCanvas::setFocusToken(Side side, int index)
{
    if (side == Side::None)
        index = -1;
    if (side == m_focus_side && index == m_focus_index)
        return;
    m_focus_side = side;
    m_focus_index = index;
    update();
    emit focusTokenChanged(side, index);
}

double LinesCanvas::opacityFor(double relative_weight)
{
    return std::pow(std::clamp(relative_weight, 0.0, 1.0), 1.5);
}

QColor LinesCanvas::headColor(int head)
{
    // Tableau 10, then golden-angle hues for models with more heads.
    static const QColor palette[] = {QColor(0x4e79a7), QColor(0xf28e2b), QColor(0xe15759), QColor(0x76b7b2),
                                     QColor(0x59a14f), QColor(0xedc948), QColor(0xb07aa1), QColor(0xff9da7),
                                     QColor(0x9c755f), QColor(0xbab0ac)};
    if (head >= 0 && head < 10)
        return palette[head];
    return QColor::fromHsvF(float(std::fmod(head * 0.381966, 1.0)), 0.65f, 0.80f);
}

std::vector<int> LinesCanvas::shownHeads() const
{
    std::vector<int> heads;
    if (!m_result)
        return heads;
    if (m_head != kAllHeads) {
        if (m_head < m_result->numHeads())
            heads.push_back(m_head);
        return heads;
    }
    for (int h = 0; h < m_result->numHeads(); ++h)
        if (isHeadVisible(h))
            heads.push_back(h);
    return heads;
}

int LinesCanvas::keysPerQuery() const
{
    if (!m_result)
        return 0;
    const std::int64_t cells =
        std::int64_t(m_result->seqLen()) * m_result->keyLen() * std::int64_t(shownHeads().size());
    return cells <= kAllLinesCells ? 0 : kKeysPerQuery;
}

QString LinesCanvas::thinningNote() const
{
    if (!m_result || keysPerQuery() == 0)
        return {};
    const QLocale locale;
    QString note = tr("strongest %1 keys per query of %2, each shaded against its query's strongest")
                       .arg(keysPerQuery())
                       .arg(locale.toString(m_result->keyLen()));
    const std::int64_t most = std::int64_t(keysPerQuery()) * m_result->seqLen() * std::int64_t(shownHeads().size());
    if (most > kMaxLines) {
        const int per_block = queriesPerBlock(m_result->seqLen(), kMaxLines);
        note += per_block == 1 ? tr("; %1 lines, the strongest of each query").arg(locale.toString(kMaxLines))
                               : tr("; %1 lines, the strongest of each block of %2 queries")
                                     .arg(locale.toString(kMaxLines))
                                     .arg(per_block);
    }
    return note;
}

void LinesCanvas::invalidateLines()
{
    m_lines.reset();
    m_pending_generation = 0;
    m_lines_job.supersede();  // a worker's answer for the old state is dropped
}

bool LinesCanvas::linesReady() const
{
    return m_result && m_lines && m_lines->result == m_result.get() && m_lines->heads == shownHeads() &&
           m_lines->top_mass == m_top_mass;
}

const std::vector<LinesCanvas::Line>* LinesCanvas::currentLines(bool wait_for_worker) const
{
    if (!m_result)
        return nullptr;
    if (linesReady())
        return &m_lines->lines;
    if (m_pending_generation != 0 && !wait_for_worker)
        return nullptr;
    auto set = std::make_shared<LineSet>();
    set->result = m_result.get();
    set->heads = shownHeads();
    set->top_mass = m_top_mass;
    set->lines = chooseLines(*m_result, set->heads, keysPerQuery(), kMaxLines, m_top_mass);
    m_lines = std::move(set);
    return &m_lines->lines;
}

bool LinesCanvas::layerReady() const
{
    return m_layer && m_layer->lines == m_lines && m_layer->size == QSizeF(size());
}

void LinesCanvas::requestLines()
{
    if (!m_result || keysPerQuery() == 0)
        return;  // small: paint() chooses and draws them
    // Only asks whether the lines are there: currentLines() would choose them here, on the GUI thread.
    const bool lines_ready = linesReady();
    const QSizeF size(this->size());
    if ((lines_ready && layerReady()) || (m_pending_generation == m_lines_job.generation() && m_pending_size == size))
        return;  // ready, or on its way
    m_pending_generation = m_lines_job.generation();
    m_pending_size = size;
    std::shared_ptr<const AttentionResult> result = m_result;
    std::shared_ptr<const LineSet> ready = lines_ready ? m_lines : nullptr;  // a new size: drawn again only
    std::vector<int> heads = shownHeads();
    const int keys = keysPerQuery();
    const double top_mass = m_top_mass;
    const Layout layout = layoutFor(QRectF(QPointF(0, 0), size));
    const int head_mode = m_head;
    const qreal ratio = devicePixelRatioF();
    auto draw = [result, ready, heads = std::move(heads), keys, top_mass, layout, head_mode, ratio, size](const auto&) {
        std::shared_ptr<const LineSet> set = ready;
        if (!set) {
            auto chosen = std::make_shared<LineSet>();
            chosen->result = result.get();
            chosen->heads = heads;
            chosen->top_mass = top_mass;
            chosen->lines = chooseLines(*result, heads, keys, kMaxLines, top_mass);
            set = std::move(chosen);
        }
        // The lines alone, on a transparent picture of the canvas's size (labels stay live).
        auto layer = std::make_shared<LinesLayer>();
        layer->lines = set;
        layer->size = size;
        layer->image = QImage((size * ratio).toSize(), QImage::Format_ARGB32_Premultiplied);
        layer->image.setDevicePixelRatio(ratio);
        layer->image.fill(Qt::transparent);
        {
            QPainter painter(&layer->image);
            painter.setRenderHint(QPainter::Antialiasing);
            drawLines(painter, layout, set->lines, heads, head_mode, result->numHeads(),
                      std::max(result->seqLen(), result->keyLen()), Side::None, -1);
        }
        return std::shared_ptr<const LinesLayer>(std::move(layer));
    };
    m_lines_job.startAlongside(std::move(draw), [this](std::shared_ptr<const LinesLayer> layer) {
        m_lines = layer->lines;
        if (m_pending_size == layer->size)
            m_pending_generation = 0;
        m_layer = std::move(layer);
        update();
    });
}

bool LinesCanvas::passesFocus(Side side, int index, int query, int key)
{
    switch (side) {
        case Side::None:
            return true;
        case Side::Query:
            return query == index;
        case Side::Key:
            return key == index;
    }
    return true;
}

LinesCanvas::Layout LinesCanvas::layoutFor(const QRectF& rect) const
{
    Layout layout;
    // Queries on the left, keys on the right: one token list for self-attention, two for cross.
    const int tokens = m_result ? std::max(m_result->seqLen(), m_result->keyLen()) : 0;
    const double margin = 12.0;
    QRectF area = rect.adjusted(margin, margin, -margin, -margin);

    // The title on two lines when it says a long input's thinning and does not fit on one.
    QFont title_font = font();
    title_font.setPixelSize(14);
    title_font.setBold(true);
    const bool two_lines = QFontMetricsF(title_font).horizontalAdvance(title()) > area.width();
    layout.title = QRectF(area.left(), area.top(), area.width(), two_lines ? 40.0 : 22.0);
    area.setTop(layout.title.bottom() + 22.0);  // room for the column headings
    if (m_head == kAllHeads) {
        layout.legend = QRectF(area.left(), area.bottom() - 20.0, area.width(), 20.0);
        area.setBottom(layout.legend.top() - 8.0);
    }
    layout.top = area.top();
    layout.row_height = tokens > 0 ? area.height() / tokens : area.height();

    // Text as large as a row allows (between 7 and 13 px); thin rows label every n-th token.
    layout.font = font();
    const double pixel = std::clamp(layout.row_height * 0.72, 7.0, 13.0);
    layout.font.setPixelSize(int(pixel));
    layout.label_step = std::max(1, int(std::ceil(pixel * 1.15 / std::max(layout.row_height, 0.01))));

    // The widest label, measured once per result and font, not on every paint (thousands of tokens).
    if (m_widest.result.lock() != m_result || m_widest.font != layout.font) {
        const QFontMetricsF metrics(layout.font);
        double widest = 0.0;
        for (int i = 0; i < m_result->seqLen(); ++i)
            widest = std::max(widest, metrics.horizontalAdvance(m_result->input.tokens[i].text));
        for (int i = 0; m_result->isCross() && i < m_result->keyLen(); ++i)
            widest = std::max(widest, metrics.horizontalAdvance(m_result->keyTokens()[i].text));
        m_widest = {m_result, layout.font, widest};
    }
    layout.label_width = std::min(m_widest.width + 4.0, area.width() * 0.22);

    // The lines get what is left, up to a pleasant width, and the whole figure is centred.
    const double gap = 8.0;
    const double span = std::clamp(area.width() - 2 * (layout.label_width + gap), 40.0, 560.0);
    const double total = 2 * (layout.label_width + gap) + span;
    const double left = area.left() + std::max(0.0, (area.width() - total) / 2.0);
    layout.query_x = left + layout.label_width;
    layout.line_left = layout.query_x + gap;
    layout.line_right = layout.line_left + span;
    layout.key_x = layout.line_right + gap;
    return layout;
}

std::pair<LinesCanvas::Side, int> LinesCanvas::tokenAt(const QPointF& position, const QRectF& rect) const
{
    if (!m_result || m_result->seqLen() == 0)
        return {Side::None, -1};
    const Layout layout = layoutFor(rect);
    const int row = int(std::floor((position.y() - layout.top) / layout.row_height));
    if (row < 0)
        return {Side::None, -1};
    if (row < m_result->seqLen() && position.x() >= layout.query_x - layout.label_width - 4 &&
        position.x() <= layout.line_left)
        return {Side::Query, row};
    if (row < m_result->keyLen() && position.x() >= layout.line_right &&
        position.x() <= layout.key_x + layout.label_width + 4)
        return {Side::Key, row};
    return {Side::None, -1};
}

bool LinesCanvas::isKeyStruck(int key) const
{
    if (!m_result || key < 0)
        return false;
    const std::vector<bool>& padding = m_result->trace.key_padding;
    const std::vector<bool>& hidden = m_result->hidden_keys;
    return (size_t(key) < padding.size() && padding[size_t(key)]) ||
           (size_t(key) < hidden.size() && hidden[size_t(key)]);
}

QString LinesCanvas::title() const
{
    if (!m_result)
        return {};
    QString title = m_head == kAllHeads
                        ? tr("All heads overlaid (%1 of %2 shown)").arg(shownHeads().size()).arg(m_result->numHeads())
                        : tr("Head %1").arg(m_head);
    title += QStringLiteral(" — ") + HeatmapData::kindLabel(m_result->value_norms);
    if (const QString note = thinningNote(); !note.isEmpty())
        title += QStringLiteral(" — ") + note;
    if (m_top_mass < 1.0)
        title += QStringLiteral(" — ") + tr("top %1% of each row").arg(QLocale().toString(m_top_mass * 100.0, 'g', 3));
    const std::vector<bool>& hidden = m_result->hidden_keys;
    const int hidden_count = int(std::count(hidden.begin(), hidden.end(), true));
    if (hidden_count == 1)
        title += QStringLiteral(" — ") +
                 tr("key %1 hidden").arg(int(std::find(hidden.begin(), hidden.end(), true) - hidden.begin()));
    else if (hidden_count > 1)
        title += QStringLiteral(" — ") + tr("%1 keys hidden").arg(hidden_count);
    return title;
}

int LinesCanvas::visibleLineCount() const
{
    const std::vector<Line>* lines = currentLines(true);
    if (!lines)
        return 0;
    return int(std::count_if(lines->begin(), lines->end(), [this](const Line& line) {
        return passesFocus(m_focus_side, m_focus_index, line.query, line.key);
    }));
}

void LinesCanvas::drawLines(QPainter& painter, const Layout& layout, const std::vector<Line>& lines,
                            const std::vector<int>& heads, int head_mode, int num_heads, int num_rows, Side focus_side,
                            int focus_index)
{
    // Weakest first so the strong ones are drawn on top.
    const double max_width = std::clamp(layout.row_height * 0.35, 1.5, 5.0);
    // One head keeps its overlay colour (the chooser shows it as a swatch), darker so that thin
    // faint lines still read on white.
    const QColor single_color = head_mode == kAllHeads ? QColor() : headColor(head_mode).darker(130);
    // Overlaid heads fan out a little within each row, so lines of different heads between the
    // same two tokens stay apart instead of hiding each other.
    const int overlaid = head_mode == kAllHeads ? int(heads.size()) : 1;
    // Thousands of lines over a few hundred pixel rows (a long input's) would cover each other
    // into one block: each is fainter the more lines share a pixel row, so that where they
    // gather reads darker.
    const double height = std::max(1.0, layout.row_height * std::max(1, num_rows));
    const auto drawn = std::count_if(lines.begin(), lines.end(), [&](const Line& line) {
        return passesFocus(focus_side, focus_index, line.query, line.key);
    });
    const double lines_per_pixel = double(drawn) / height;
    const double crowding = std::clamp(1.5 / std::max(lines_per_pixel, 1e-9), 0.06, 1.0);
    const double fan = overlaid > 1 ? std::min(3.0, layout.row_height * 0.5 / (overlaid - 1)) : 0.0;
    std::vector<double> offset(size_t(num_heads), 0.0);
    for (int rank = 0; rank < overlaid && head_mode == kAllHeads; ++rank)
        offset[size_t(heads[size_t(rank)])] = (rank - (overlaid - 1) / 2.0) * fan;
    for (const Line& line : lines) {
        if (!passesFocus(focus_side, focus_index, line.query, line.key))
            continue;
        const double relative = line.shade;
        QColor color = head_mode == kAllHeads ? headColor(line.head) : single_color;
        color.setAlphaF(
            float(std::clamp(opacityFor(relative) * crowding * (head_mode == kAllHeads ? 0.85 : 1.0), 0.0, 1.0)));
        painter.setPen(QPen(color, 0.4 + (max_width - 0.4) * relative, Qt::SolidLine, Qt::RoundCap));
        const double dy = offset[size_t(line.head)];
        painter.drawLine(QPointF(layout.line_left, layout.rowCentre(line.query) + dy),
                         QPointF(layout.line_right, layout.rowCentre(line.key) + dy));
    }
}

void LinesCanvas::paint(QPainter& painter, const QRectF& rect) const
{
    paintPicture(painter, rect, false);
}

void LinesCanvas::paintPicture(QPainter& painter, const QRectF& rect, bool on_screen) const
{
    painter.save();
    painter.fillRect(rect, palette().color(QPalette::Base));
    const QColor text_color = palette().color(QPalette::Text);
    painter.setPen(text_color);
    if (!m_result || m_result->seqLen() == 0) {
        painter.drawText(rect, Qt::AlignCenter, tr("No attention to show"));
        painter.restore();
        return;
    }
    const Layout layout = layoutFor(rect);
    const std::vector<int> heads = shownHeads();
    const int tokens = std::max(m_result->seqLen(), m_result->keyLen());  // rows of the figure
    const int num_heads = m_result->numHeads();

    // Title and column headings.
    QFont title_font = font();
    title_font.setPixelSize(14);
    title_font.setBold(true);
    painter.setFont(title_font);
    QString title = this->title();
    const std::vector<Line>* chosen = currentLines(false);
    // On screen a long input's lines are drawn by the worker that chose them (8,000 antialiased
    // lines took 0.4 s of the GUI thread), and shown here as that picture.
    const bool from_layer = on_screen && m_focus_side == Side::None && keysPerQuery() > 0;
    if (!chosen)
        title += QStringLiteral(" — ") + tr("finding the strongest keys…");
    else if (from_layer && !layerReady())
        title += QStringLiteral(" — ") + tr("drawing the lines…");
    painter.drawText(layout.title, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, title);
    QFont heading_font = font();
    heading_font.setPixelSize(11);
    heading_font.setItalic(true);
    painter.setFont(heading_font);
    painter.setPen(palette().color(QPalette::PlaceholderText));
    const double heading_y = layout.title.bottom() + 2.0;
    painter.drawText(QRectF(layout.query_x - 200, heading_y, 200, 18), Qt::AlignRight | Qt::AlignVCenter,
                     tr("queries"));
    painter.drawText(QRectF(layout.key_x, heading_y, 200, 18), Qt::AlignLeft | Qt::AlignVCenter, tr("keys"));

    static const std::vector<Line> kNone;
    if (!from_layer)
        drawLines(painter, layout, chosen ? *chosen : kNone, heads, m_head, num_heads, tokens, m_focus_side,
                  m_focus_index);
    else if (layerReady())
        painter.drawImage(rect.topLeft(), m_layer->image);

    // Token labels; the focused token is bold on a highlight, its partners stay plain.
    const QFontMetricsF metrics(layout.font);
    for (int i = 0; i < tokens; ++i) {
        const bool query_focus = m_focus_side == Side::Query && m_focus_index == i;
        const bool key_focus = m_focus_side == Side::Key && m_focus_index == i;
        if (i % layout.label_step != 0 && !query_focus && !key_focus)
            continue;
        const double y = layout.rowCentre(i) - layout.row_height / 2;
        const double h = metrics.height() + 2.0;
        const QRectF query_box(layout.query_x - layout.label_width, y + (layout.row_height - h) / 2, layout.label_width,
                               h);
        const QRectF key_box(layout.key_x, y + (layout.row_height - h) / 2, layout.label_width, h);
        for (auto [box, focused, align] :
             {std::tuple{query_box, query_focus, Qt::AlignRight}, std::tuple{key_box, key_focus, Qt::AlignLeft}}) {
            const bool key_side = align == Qt::AlignLeft;
            const TokenList& side_tokens = key_side ? m_result->keyTokens() : m_result->input.tokens;
            if (i >= side_tokens.size())
                continue;
            const QString label = elided(side_tokens[i].text, metrics, layout.label_width);
            // A padded or hidden key is greyed and struck through: no line goes to it.
            const bool padded = key_side && isKeyStruck(i);
            QFont f = layout.font;
            f.setBold(focused);
            painter.setFont(f);
            if (focused) {
                const double w = QFontMetricsF(f).horizontalAdvance(label) + 6;
                const QRectF mark = align == Qt::AlignRight ? QRectF(box.right() - w + 3, box.top(), w, box.height())
                                                            : QRectF(box.left() - 3, box.top(), w, box.height());
                painter.fillRect(mark, palette().color(QPalette::Highlight).lighter(170));
            }
            painter.setPen(padded ? palette().color(QPalette::PlaceholderText) : text_color);
            f.setStrikeOut(padded);
            painter.setFont(f);
            painter.drawText(box, align | Qt::AlignVCenter, label);
        }
    }

    // Legend of the overlaid heads: a swatch per head, faded when switched off.
    if (m_head == kAllHeads) {
        QFont legend_font = font();
        legend_font.setPixelSize(11);
        painter.setFont(legend_font);
        const QFontMetricsF legend_metrics(legend_font);
        double x = layout.legend.left();
        for (int h = 0; h < num_heads; ++h) {
            const QString name = tr("head %1").arg(h);
            const double w = 18 + legend_metrics.horizontalAdvance(name) + 12;
            if (x + w > layout.legend.right())
                break;
            QColor color = headColor(h);
            if (!isHeadVisible(h))
                color.setAlphaF(0.2f);
            const double cy = layout.legend.center().y();
            painter.setPen(QPen(color, 3.0, Qt::SolidLine, Qt::RoundCap));
            painter.drawLine(QPointF(x, cy), QPointF(x + 14, cy));
            QColor label_color = text_color;
            if (!isHeadVisible(h))
                label_color.setAlphaF(0.35f);
            painter.setPen(label_color);
            painter.drawText(QRectF(x + 18, layout.legend.top(), w - 18, layout.legend.height()),
                             Qt::AlignLeft | Qt::AlignVCenter, name);
            x += w;
        }
    }
    painter.restore();
}

void LinesCanvas::paintEvent(QPaintEvent*)
{
    requestLines();
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    paintPicture(painter, QRectF(rect()), true);
}

void LinesCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const auto [side, index] = tokenAt(event->position(), QRectF(rect()));
    setFocusToken(side, index);
}

void LinesCanvas::leaveEvent(QEvent*)
{
    setFocusToken(Side::None, -1);
}

}  // namespace attn
