#include "ui/views/walkthrough/WalkthroughPainter.h"

#include "ui/views/walkthrough/WalkthroughItemModel.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace attn {
namespace {

constexpr double kMargin = 16;       // around the page
constexpr double kColumnGap = 28;    // between columns of steps
constexpr double kBlockGap = 14;     // between steps
constexpr double kTableGap = 8;      // between the tables of a step
constexpr double kCellPadding = 10;  // a cell's text and its neighbours'
constexpr double kGapWidth = 18;     // the column of "…"
constexpr double kMaxLabelWidth = 110;
constexpr double kMaxColumnWidth = 640;  // a step's header wraps beyond

const QColor kInk(0x1f, 0x23, 0x28);
const QColor kMuted(0x5f, 0x66, 0x6d);
const QColor kRule(0xc8, 0xcd, 0xd2);
const QColor kQueryRow(0xfd, 0xe9, 0xc4);     // the query's row, as on screen
const QColor kHeadColumns(0xe3, 0xee, 0xfa);  // the head's part of the concatenation

QFont pixelFont(double pixels, bool bold = false, bool italic = false)
{
    QFont font;
    font.setPixelSize(int(std::lround(pixels)));
    font.setBold(bold);
    font.setItalic(italic);
    return font;
}

// The height of `text` wrapped to `width` in `font`.
double wrappedHeight(const QFont& font, const QString& text, double width)
{
    if (text.isEmpty())
        return 0;
    return QFontMetricsF(font).boundingRect(QRectF(0, 0, width, 1e6), Qt::TextWordWrap, text).height();
}

double rowHeight(const QFont& font)
{
    return std::ceil(QFontMetricsF(font).height() + 4);
}

}  // namespace

std::vector<int> WalkthroughPainter::shownIndices(int count, int limit, int keep)
{
    std::vector<int> shown;
    if (count <= limit) {
        for (int i = 0; i < count; ++i)
            shown.push_back(i);
        return shown;
    }
    // The first few, the kept one and its neighbours, the last two.
    std::set<int> picked;
    const int head = std::max(1, limit - 5);
    for (int i = 0; i < head; ++i)
        picked.insert(i);
    if (keep >= 0 && keep < count)
        for (int i = std::max(0, keep - 1); i <= std::min(count - 1, keep + 1); ++i)
            picked.insert(i);
    picked.insert(count - 2);
    picked.insert(count - 1);
    int previous = -1;
    for (int i : picked) {
        if (i > previous + 1)
            shown.push_back(-1);
        shown.push_back(i);
        previous = i;
    }
    return shown;
}

WalkthroughPainter::WalkthroughPainter(const WalkthroughData& walk, QString summary, int precision)
    : m_walk(walk),
      m_summary(std::move(summary)),
      m_precision(precision),
      m_summary_font(pixelFont(13)),
      m_title_font(pixelFont(15, true)),
      m_formula_font(pixelFont(12.5, false, true)),
      m_caption_font(pixelFont(11.5)),
      m_cell_font(pixelFont(11)),
      m_bold_cell_font(pixelFont(11, true))
{
    if (walk.steps.empty())
        return;
    const auto add_step = [&](const WalkthroughStep& step) {
        Block block;
        block.number = step.label.isEmpty() ? QString::number(step.number) : step.label;
        block.title = step.title;
        block.formula = step.formula;
        block.note = step.unavailable;
        for (const WalkthroughTable& table : step.tables)
            block.tables.push_back(measureTable(table, table.title));
        m_blocks.push_back(std::move(block));
    };
    for (int number = 1; number <= WalkthroughData::kStepCount; ++number) {
        add_step(walk.step(number));
        if (number == 2 && (!walk.rotation.tables.empty() || !walk.rotation.unavailable.isEmpty()))
            add_step(walk.rotation);
        if (number == 3 && walk.products.values.size() > 0) {
            Block block;
            block.number = QStringLiteral("3");
            block.title = QStringLiteral("Which dimensions make each score");
            block.formula = QStringLiteral("q_i · k_j,i for query %1, head %2; each row adds up to s_j")
                                .arg(walk.query)
                                .arg(walk.head);
            block.tables.push_back(measureTable(walk.products, QStringLiteral("q_i k_j,i  (T_kv × d_k)")));
            m_blocks.push_back(std::move(block));
        }
    }
    // Each step as wide as its widest table or header line (wrapped beyond kMaxColumnWidth).
    for (Block& block : m_blocks) {
        const QString header = QStringLiteral("%1. %2").arg(block.number, block.title);
        double width = QFontMetricsF(m_title_font).horizontalAdvance(header) + 2;
        for (const Table& table : block.tables)
            width = std::max(width, table.size.width());
        width =
            std::max(width, std::min(kMaxColumnWidth, QFontMetricsF(m_formula_font).horizontalAdvance(block.formula)));
        double height = rowHeight(m_title_font) + wrappedHeight(m_formula_font, block.formula, width) + 4;
        if (!block.note.isEmpty())
            height += wrappedHeight(m_caption_font, block.note, width) + 4;
        for (const Table& table : block.tables)
            height += kTableGap + table.size.height();
        block.size = QSizeF(width, height);
    }
}

WalkthroughPainter::Table WalkthroughPainter::measureTable(const WalkthroughTable& source, const QString& caption) const
{
    Table table;
    table.table = &source;
    const int rows = int(source.values.rows());
    const int columns = int(source.values.cols());
    table.caption = QStringLiteral("%1 = (%2 × %3)").arg(caption).arg(rows).arg(columns);
    const int keep_row = source.highlighted_row >= 0 ? source.highlighted_row - source.first_row : -1;
    table.rows = shownIndices(rows, kMaxRows, keep_row);
    table.columns = shownIndices(columns, kMaxColumns, source.highlighted_first_column);
    const QFontMetricsF cell(m_bold_cell_font);  // bold: the widest either way
    for (int r : table.rows)
        if (r >= 0 && r < source.row_labels.size())
            table.label_width = std::max(table.label_width, cell.horizontalAdvance(source.row_labels[r]));
    table.label_width = std::min(table.label_width, kMaxLabelWidth) + kCellPadding;
    double width = table.label_width;
    for (int c : table.columns) {
        double widest = 0;
        if (c < 0) {
            table.column_widths.push_back(kGapWidth);
            width += kGapWidth;
            continue;
        }
        if (c < source.column_labels.size())
            widest = cell.horizontalAdvance(source.column_labels[c]);
        for (int r : table.rows)
            if (r >= 0)
                widest = std::max(widest, cell.horizontalAdvance(cellText(source.values(r, c))));
        table.column_widths.push_back(widest + kCellPadding);
        width += widest + kCellPadding;
    }
    const double caption_width = QFontMetricsF(m_caption_font).horizontalAdvance(table.caption) + 2;
    const double height = rowHeight(m_caption_font) + rowHeight(m_cell_font) * double(table.rows.size() + 1);
    table.size = QSizeF(std::max(width, caption_width), height);
    return table;
}

QString WalkthroughPainter::cellText(float value) const
{
    return WalkthroughItemModel::formatValue(value, m_precision);
}

WalkthroughPainter::Layout WalkthroughPainter::layoutIn(int columns) const
{
    Layout layout;
    layout.columns = columns;
    double total = 0;
    for (const Block& block : m_blocks) {
        layout.column_width = std::max(layout.column_width, block.size.width());
        total += block.size.height() + kBlockGap;
    }
    // The steps in order, a new column once this one holds its share.
    const double share = total / columns;
    double height = 0;
    double tallest = 0;
    layout.first_block.push_back(0);
    for (size_t b = 0; b < m_blocks.size(); ++b) {
        const double block = m_blocks[b].size.height() + kBlockGap;
        if (height > 0 && height + block / 2 > share && int(layout.first_block.size()) < columns) {
            layout.first_block.push_back(int(b));
            height = 0;
        }
        height += block;
        tallest = std::max(tallest, height);
    }
    layout.columns = int(layout.first_block.size());
    const double width = layout.columns * layout.column_width + (layout.columns - 1) * kColumnGap;
    const double summary = wrappedHeight(m_summary_font, m_summary, width) + 10;
    layout.size = QSizeF(width + 2 * kMargin, summary + tallest + 2 * kMargin);
    return layout;
}

WalkthroughPainter::Layout WalkthroughPainter::layoutFor(const QSizeF& size) const
{
    Layout best = layoutIn(1);
    double best_scale = 0;
    for (int columns = 1; columns <= 6 && !m_blocks.empty(); ++columns) {
        const Layout layout = layoutIn(columns);
        const double scale = std::min(size.width() / layout.size.width(), size.height() / layout.size.height());
        if (scale > best_scale * 1.001) {
            best = layout;
            best_scale = scale;
        }
    }
    return best;
}

QSizeF WalkthroughPainter::naturalSize(const QSizeF& size) const
{
    return layoutFor(size).size;
}

void WalkthroughPainter::paint(QPainter& painter, const QRectF& target) const
{
    painter.save();
    painter.fillRect(target, Qt::white);
    if (m_blocks.empty()) {
        painter.setPen(kMuted);
        painter.setFont(m_summary_font);
        painter.drawText(target, Qt::AlignCenter, QStringLiteral("No computation yet"));
        painter.restore();
        return;
    }
    const Layout layout = layoutFor(target.size());
    const double scale = std::min(target.width() / layout.size.width(), target.height() / layout.size.height());
    // Centred across, from the top.
    painter.translate(target.left() + (target.width() - layout.size.width() * scale) / 2, target.top());
    painter.scale(scale, scale);
    painter.setRenderHint(QPainter::Antialiasing, true);

    const double width = layout.size.width() - 2 * kMargin;
    painter.setPen(kInk);
    painter.setFont(m_summary_font);
    const double summary = wrappedHeight(m_summary_font, m_summary, width);
    painter.drawText(QRectF(kMargin, kMargin, width, summary), Qt::TextWordWrap, m_summary);
    const double top = kMargin + summary + 10;

    for (int column = 0; column < layout.columns; ++column) {
        const int first = layout.first_block[size_t(column)];
        const int end = column + 1 < layout.columns ? layout.first_block[size_t(column + 1)] : int(m_blocks.size());
        const double left = kMargin + column * (layout.column_width + kColumnGap);
        double y = top;
        for (int b = first; b < end; ++b) {
            const Block& block = m_blocks[size_t(b)];
            painter.setPen(kInk);
            painter.setFont(m_title_font);
            const double title_h = rowHeight(m_title_font);
            painter.drawText(QRectF(left, y, layout.column_width, title_h), Qt::AlignLeft | Qt::AlignVCenter,
                             QStringLiteral("%1. %2").arg(block.number, block.title));
            y += title_h;
            painter.setPen(kMuted);
            painter.setFont(m_formula_font);
            const double formula_h = wrappedHeight(m_formula_font, block.formula, block.size.width());
            painter.drawText(QRectF(left, y, block.size.width(), formula_h), Qt::TextWordWrap, block.formula);
            y += formula_h + 4;
            if (!block.note.isEmpty()) {
                painter.setFont(m_caption_font);
                const double note_h = wrappedHeight(m_caption_font, block.note, block.size.width());
                painter.drawText(QRectF(left, y, block.size.width(), note_h), Qt::TextWordWrap, block.note);
                y += note_h + 4;
            }
            for (const Table& table : block.tables) {
                y += kTableGap;
                paintTable(painter, table, QPointF(left, y));
                y += table.size.height();
            }
            y += kBlockGap;
        }
    }
    painter.restore();
}

void WalkthroughPainter::paintTable(QPainter& painter, const Table& table, QPointF at) const
{
    const WalkthroughTable& source = *table.table;
    const double caption_h = rowHeight(m_caption_font);
    const double row_h = rowHeight(m_cell_font);
    painter.setPen(kInk);
    painter.setFont(m_caption_font);
    painter.drawText(QRectF(at.x(), at.y(), table.size.width(), caption_h), Qt::AlignLeft | Qt::AlignVCenter,
                     table.caption);
    const double grid_top = at.y() + caption_h;
    const double grid_width = table.label_width + [&] {
        double sum = 0;
        for (double w : table.column_widths)
            sum += w;
        return sum;
    }();
    const int query_row = source.highlighted_row >= 0 ? source.highlighted_row - source.first_row : -1;
    const auto in_head = [&](int column) {
        return source.highlighted_first_column >= 0 && column >= source.highlighted_first_column &&
               column < source.highlighted_first_column + source.highlighted_column_count;
    };
    // Shading first: the head's columns, then the query's row over them.
    double x = at.x() + table.label_width;
    for (size_t i = 0; i < table.columns.size(); ++i) {
        if (table.columns[i] >= 0 && in_head(table.columns[i]))
            painter.fillRect(QRectF(x, grid_top, table.column_widths[i], row_h * double(table.rows.size() + 1)),
                             kHeadColumns);
        x += table.column_widths[i];
    }
    for (size_t r = 0; r < table.rows.size(); ++r)
        if (table.rows[r] >= 0 && table.rows[r] == query_row)
            painter.fillRect(QRectF(at.x(), grid_top + row_h * double(r + 1), grid_width, row_h), kQueryRow);
    painter.setPen(QPen(kRule, 1));
    painter.drawLine(QPointF(at.x(), grid_top + row_h), QPointF(at.x() + grid_width, grid_top + row_h));
    painter.drawLine(QPointF(at.x() + table.label_width - 3, grid_top),
                     QPointF(at.x() + table.label_width - 3, grid_top + row_h * double(table.rows.size() + 1)));

    const QFontMetricsF label_metrics(m_bold_cell_font);
    // Column labels.
    painter.setPen(kMuted);
    painter.setFont(m_cell_font);
    x = at.x() + table.label_width;
    for (size_t i = 0; i < table.columns.size(); ++i) {
        const int c = table.columns[i];
        const QString text = c < 0                             ? QStringLiteral("…")
                             : c < source.column_labels.size() ? source.column_labels[c]
                                                               : QString::number(c);
        painter.drawText(QRectF(x, grid_top, table.column_widths[i] - kCellPadding / 2, row_h),
                         (c < 0 ? Qt::AlignHCenter : Qt::AlignRight) | Qt::AlignVCenter, text);
        x += table.column_widths[i];
    }
    // Rows: the label, then the numbers.
    for (size_t r = 0; r < table.rows.size(); ++r) {
        const int row = table.rows[r];
        const double y = grid_top + row_h * double(r + 1);
        const bool query = row >= 0 && row == query_row;
        painter.setFont(query ? m_bold_cell_font : m_cell_font);
        painter.setPen(kMuted);
        const QString label = row < 0                          ? QStringLiteral("⋮")
                              : row < source.row_labels.size() ? source.row_labels[row]
                                                               : QString::number(source.first_row + row);
        painter.drawText(QRectF(at.x(), y, table.label_width - kCellPadding / 2, row_h),
                         (row < 0 ? Qt::AlignHCenter : Qt::AlignLeft) | Qt::AlignVCenter,
                         label_metrics.elidedText(label, Qt::ElideRight, kMaxLabelWidth));
        painter.setPen(kInk);
        x = at.x() + table.label_width;
        for (size_t i = 0; i < table.columns.size(); ++i) {
            const int c = table.columns[i];
            const QString text = row < 0 && c < 0 ? QStringLiteral("⋱")
                                 : row < 0        ? QStringLiteral("⋮")
                                 : c < 0          ? QStringLiteral("…")
                                                  : cellText(source.values(row, c));
            painter.drawText(QRectF(x, y, table.column_widths[i] - kCellPadding / 2, row_h),
                             (row < 0 || c < 0 ? Qt::AlignHCenter : Qt::AlignRight) | Qt::AlignVCenter, text);
            x += table.column_widths[i];
        }
    }
}

}  // namespace attn
