#include "ui/views/shapes/ShapeDiagramPainter.h"

#include "ui/views/shapes/ShapeDiagramStages.h"
#include "ui/views/shapes/TensorGlyph.h"

#include <QFontDatabase>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

struct Fonts {
    QFont title, subtitle, stage_title, badge, shape, names, caption, item, totals, note;
};

const QColor kInk(0x22, 0x2b, 0x36);
const QColor kMuted(0x5f, 0x6b, 0x78);
const QColor kArrow(0x7a, 0x86, 0x93);

QFont pixelFont(const QFont& base, double pixels, bool bold = false, bool italic = false)
{
    QFont font = base;
    font.setPixelSize(std::max(6, int(std::lround(pixels))));
    font.setBold(bold);
    font.setItalic(italic);
    return font;
}

Fonts makeFonts(double f)
{
    // Named by the families they resolve to, so SVG and PDF name real fonts ("DejaVu Sans"),
    // not aliases such as "Sans Serif" that other machines may not know.
    QFont sans;
    sans.setFamily(QFontInfo(sans).family());
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setFamily(QFontInfo(mono).family());
    return {pixelFont(sans, 21 * f, true),          pixelFont(sans, 12.5 * f),
            pixelFont(sans, 13.5 * f, true),        pixelFont(sans, 10.5 * f, true),
            pixelFont(mono, 13.5 * f, true),        pixelFont(mono, 11 * f),
            pixelFont(sans, 11.5 * f, false, true), pixelFont(sans, 11.5 * f, true),
            pixelFont(sans, 13 * f, true),          pixelFont(sans, 10.5 * f)};
}

// "1,050,624 (1.051 M)"; small counts alone.
QString countWithCompact(std::int64_t value)
{
    const QString exact = ShapeData::formatCount(value);
    return value < 10000 ? exact : QStringLiteral("%1 (%2)").arg(exact, ShapeData::formatCompact(value));
}

void drawArrowHead(QPainter& painter, QPointF tip, QPointF direction, double size)
{
    const double length = std::hypot(direction.x(), direction.y());
    if (length <= 0)
        return;
    const QPointF d = direction / length;
    const QPointF n(-d.y(), d.x());
    painter.drawPolygon(QPolygonF({tip, tip - d * size + n * size * 0.45, tip - d * size - n * size * 0.45}));
}

void drawArrow(QPainter& painter, const QPolygonF& path, double width)
{
    if (path.size() < 2)
        return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    QPen pen(kArrow, width);
    pen.setCapStyle(Qt::FlatCap);
    pen.setJoinStyle(Qt::RoundJoin);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    const double head = 4.5 * width + 3;
    // Stop the line at the base of the head so the tip stays sharp.
    QPolygonF line = path;
    const QPointF dir = path.last() - path[path.size() - 2];
    const double len = std::hypot(dir.x(), dir.y());
    if (len > head)
        line.last() = path.last() - dir / len * head * 0.8;
    painter.drawPolyline(line);
    painter.setPen(Qt::NoPen);
    painter.setBrush(kArrow);
    drawArrowHead(painter, path.last(), dir, head);
    painter.restore();
}

// Title, the dimensions and the legend; returns the rectangle of the dimensions line.
QRectF drawHeader(QPainter& painter, const QRectF& page, const Fonts& fonts, double f, const QString& caption,
                  int selected_head, const ShapeConfig& c)
{
    // Header: title, dimensions, legend.
    painter.setPen(kInk);
    painter.setFont(fonts.title);
    const double title_h = QFontMetricsF(fonts.title, painter.device()).height();
    painter.drawText(QRectF(page.left(), page.top(), page.width(), title_h), Qt::AlignLeft | Qt::AlignVCenter,
                     QStringLiteral("Multi-head attention: where every shape comes from"));
    painter.setFont(fonts.subtitle);
    painter.setPen(kMuted);
    const double sub_h = QFontMetricsF(fonts.subtitle, painter.device()).height();
    const QString lengths = c.isCross() ? QStringLiteral("T_q = %1    T_kv = %2").arg(c.seq_len).arg(c.kv_len)
                                        : QStringLiteral("T = %1").arg(c.seq_len);
    QString dims = QStringLiteral("B = %1    %2    d_in = %3    d_model = %4    h = %5    d_k = %6    d_out = %7")
                       .arg(c.batch)
                       .arg(lengths)
                       .arg(c.input_dim)
                       .arg(c.d_model)
                       .arg(c.num_heads)
                       .arg(c.headDim())
                       .arg(c.output_dim);
    if (c.isGrouped())
        dims += QStringLiteral("    h_kv = %1").arg(c.kvHeads());
    if (c.rotary_dim > 0)
        dims += QStringLiteral("    R = %1").arg(c.rotary_dim);
    if (c.windowed())
        dims += QStringLiteral("    W = %1").arg(c.sliding_window);
    if (c.num_heads > 1)
        dims += QStringLiteral("    ·    head %1 highlighted")
                    .arg(std::clamp<std::int64_t>(selected_head, 0, c.num_heads - 1));
    if (!caption.isEmpty())
        dims += QStringLiteral("    ·    ") + caption;
    const QRectF sub_rect(page.left(), page.top() + title_h + 2 * f, page.width(), sub_h);
    painter.drawText(sub_rect, Qt::AlignLeft | Qt::AlignVCenter, dims);

    // Legend, right-aligned on the title line.
    {
        const struct {
            TensorGlyph::Style style;
            bool highlighted;
            const char* label;
        } entries[] = {{TensorGlyph::Style::Tensor, false, "tensor"},
                       {TensorGlyph::Style::Weight, false, "weights"},
                       {TensorGlyph::Style::Scores, false, "scores"},
                       {TensorGlyph::Style::Weights, false, "softmax"},
                       {TensorGlyph::Style::Tensor, true, "selected head"}};
        painter.setFont(fonts.note);
        const QFontMetricsF fm(fonts.note, painter.device());
        const double swatch = 11 * f;
        double x = page.right();
        const double y = page.top() + title_h / 2;
        for (int i = int(std::size(entries)) - 1; i >= 0; --i) {
            const QString label = QString::fromLatin1(entries[i].label);
            const double w = fm.horizontalAdvance(label);
            x -= w;
            painter.setPen(kMuted);
            painter.drawText(QRectF(x, y - fm.height() / 2, w + 2, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                             label);
            x -= swatch + 5 * f;
            painter.setPen(QPen(TensorGlyph::edgeColor(entries[i].style, entries[i].highlighted), f));
            painter.setBrush(TensorGlyph::faceColor(entries[i].style, entries[i].highlighted));
            painter.drawRect(QRectF(x, y - swatch / 2, swatch, swatch));
            x -= 14 * f;
        }
        painter.setBrush(Qt::NoBrush);
    }

    return sub_rect;
}

// Totals and their convention along the bottom; returns the footer's rectangle.
QRectF drawFooter(QPainter& painter, const QRectF& page, const Fonts& fonts, double f, const ShapeData& model)
{
    // Footer: totals and their convention.
    painter.setFont(fonts.totals);
    const double totals_h = QFontMetricsF(fonts.totals, painter.device()).height();
    const double note_h = QFontMetricsF(fonts.note, painter.device()).height();
    const double footer_h = totals_h + note_h + 6 * f;
    const QRectF footer(page.left(), page.bottom() - footer_h, page.width(), footer_h);
    painter.setPen(QPen(QColor(0xd5, 0xdb, 0xe1), f));
    painter.drawLine(QPointF(footer.left(), footer.top() - 6 * f), QPointF(footer.right(), footer.top() - 6 * f));
    painter.setPen(kInk);
    painter.drawText(
        QRectF(footer.left(), footer.top(), footer.width(), totals_h), Qt::AlignLeft | Qt::AlignVCenter,
        QStringLiteral("Parameters: %1      Multiply-adds: %2      FLOPs per forward pass: %3")
            .arg(countWithCompact(model.totalParameters()), ShapeData::formatCount(model.totalMultiplyAdds()),
                 countWithCompact(model.totalFlops())));
    painter.setFont(fonts.note);
    painter.setPen(kMuted);
    painter.drawText(QRectF(footer.left(), footer.top() + totals_h + 4 * f, footer.width(), note_h),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     ShapeData::flopConvention() + QStringLiteral(".  Box sides are log-scaled: 1 + log₂(n)."));

    return footer;
}

// A cell placed on the page: its rectangle, the band where its boxes go, what it shows.
struct Placed {
    QRectF cell, graphic;
    const DiagramStage* stage = nullptr;
    double unit_w = 0, unit_h = 0;  // the boxes' extent at unit 1 (widths summed)
};

struct StageStyle {
    const Fonts& fonts;
    double f;
    double unit;
    double item_gap;
    double item_label_h;
    double title_band;
    int selected_head;
    int hovered_step;
    const ShapeConfig& config;
    const std::vector<ShapeStep>& steps;
};

// One cell: numbered title, its boxes (named when there are several), shape, axis names and
// formula. Adds the boxes' hit regions; returns the rectangle around the boxes, for the arrows.
QRectF drawStage(QPainter& painter, const Placed& p, int number, const StageStyle& s,
                 std::vector<ShapeDiagramPainter::HitRegion>& hits)
{
    const DiagramStage& stage = *p.stage;
    const Fonts& fonts = s.fonts;
    const double f = s.f;
    const auto& steps = s.steps;

    // Title with its step number.
    const double badge = 18 * f;
    painter.setFont(fonts.badge);
    const double badge_w = std::max(
        badge, QFontMetricsF(fonts.badge, painter.device()).horizontalAdvance(QString::number(number)) + 9 * f);
    const QRectF badge_rect(p.cell.left(), p.cell.top() + (s.title_band - badge) / 2 - 2 * f, badge_w, badge);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0x3d, 0x4e, 0x61));
    painter.drawRoundedRect(badge_rect, badge / 2, badge / 2);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(Qt::white);
    painter.setFont(fonts.badge);
    painter.drawText(badge_rect, Qt::AlignCenter, QString::number(number));
    painter.setPen(kInk);
    painter.setFont(fonts.stage_title);
    painter.drawText(
        QRectF(badge_rect.right() + 6 * f, badge_rect.top() - 4 * f, p.cell.width() - badge_w - 6 * f, badge + 8 * f),
        Qt::AlignLeft | Qt::AlignVCenter, stage.title);

    // The boxes, centred in the graphic area, names above them when there are several.
    std::vector<TensorGlyph> glyphs;
    double total_w = 0, max_h = 0;
    for (int index : stage.steps) {
        glyphs.push_back(glyphForStep(steps[size_t(index)], s.config, s.unit, s.selected_head));
        total_w += glyphs.back().extent().width();
        max_h = std::max(max_h, glyphs.back().extent().height());
    }
    const bool labelled = glyphs.size() > 1;
    total_w += s.item_gap * double(glyphs.size() - 1);
    const double group_h = max_h + (labelled ? s.item_label_h : 0);
    double x = p.graphic.center().x() - total_w / 2;
    const double top = p.graphic.center().y() - group_h / 2 + (labelled ? s.item_label_h : 0);
    QRectF group;
    for (size_t g = 0; g < glyphs.size(); ++g) {
        const TensorGlyph& glyph = glyphs[g];
        const QSizeF e = glyph.extent();
        const QPointF top_left(x, top + (max_h - e.height()) / 2);
        const QRectF bounds(top_left, e);
        const int step_index = stage.steps[g];
        glyph.paint(painter, top_left, 1.1 * f);
        if (labelled) {
            painter.setFont(fonts.item);
            painter.setPen(kInk);
            const QRectF face = glyph.frontFace(top_left);
            painter.drawText(QRectF(face.left() - 20 * f, bounds.top() - s.item_label_h - 4 * f, face.width() + 40 * f,
                                    s.item_label_h),
                             Qt::AlignHCenter | Qt::AlignBottom, boxLabel(steps[size_t(step_index)]));
        }
        if (glyph.mask == TensorGlyph::Mask::Causal) {
            // Label the hidden triangle when it has room for it.
            const QRectF face = glyph.frontFace(top_left);
            painter.setFont(fonts.names);
            const QString minus_inf = QStringLiteral("−∞");
            if (face.width() > 3.2 * QFontMetricsF(fonts.names, painter.device()).horizontalAdvance(minus_inf)) {
                painter.setPen(kInk);
                painter.drawText(QRectF(face.center().x(), face.top(), face.width() / 2, face.height() / 2),
                                 Qt::AlignCenter, minus_inf);
            }
        }
        if (step_index == s.hovered_step) {
            painter.setPen(QPen(QColor(0x1f, 0x77, 0xd0), 1.4 * f, Qt::DashLine));
            painter.setBrush(Qt::NoBrush);
            painter.drawRoundedRect(bounds.adjusted(-4 * f, -4 * f, 4 * f, 4 * f), 3 * f, 3 * f);
        }
        hits.push_back({bounds.adjusted(-3 * f, -3 * f, 3 * f, 3 * f), step_index});
        group = group.isNull() ? bounds : group.united(bounds);
        x += e.width() + s.item_gap;
    }

    // Shape, axis names and formula under the boxes.
    const QFontMetricsF shape_fm(fonts.shape, painter.device());
    const QFontMetricsF names_fm(fonts.names, painter.device());
    const QFontMetricsF caption_fm(fonts.caption, painter.device());
    double y = p.graphic.bottom() + 4 * f;
    painter.setPen(kInk);
    // A long shape line (rotary with h_kv < h names two tensors) is set smaller rather than clipped.
    QFont shape_font = fonts.shape;
    const double shape_width = shape_fm.horizontalAdvance(stage.shape_line);
    if (shape_width > p.cell.width())
        shape_font.setPixelSize(std::max(6, int(shape_font.pixelSize() * p.cell.width() / shape_width)));
    painter.setFont(shape_font);
    painter.drawText(QRectF(p.cell.left(), y, p.cell.width(), shape_fm.height()), Qt::AlignHCenter | Qt::AlignVCenter,
                     stage.shape_line);
    y += shape_fm.height();
    painter.setPen(kMuted);
    painter.setFont(fonts.names);
    painter.drawText(QRectF(p.cell.left(), y, p.cell.width(), names_fm.height()), Qt::AlignHCenter | Qt::AlignVCenter,
                     stage.names_line);
    y += names_fm.height() + 2 * f;
    painter.setPen(kInk);
    painter.setFont(fonts.caption);
    painter.drawText(QRectF(p.cell.left(), y, p.cell.width(), 2 * caption_fm.lineSpacing() + 2 * f),
                     Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, stage.caption);
    return group;
}

}  // namespace

ShapeDiagramPainter::ShapeDiagramPainter(ShapeData model, int selected_head)
    : m_model(std::move(model)), m_selected_head(selected_head)
{
}

std::vector<ShapeDiagramPainter::HitRegion> ShapeDiagramPainter::paint(QPainter& painter, const QRectF& rect,
                                                                       PaintTarget target) const
{
    std::vector<HitRegion> hits;
    const ShapeConfig& c = m_model.config();
    const auto& steps = m_model.steps();
    const double f = std::clamp(std::min(rect.width() / 1200.0, rect.height() / 900.0), 0.5, 3.0);
    const Fonts fonts = makeFonts(f);
    const double margin = 22 * f;

    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    painter.fillRect(rect, Qt::white);
    const QRectF page = rect.adjusted(margin, margin, -margin, -margin);

    const QRectF sub_rect = drawHeader(painter, page, fonts, f, m_caption, m_selected_head, c);
    const QRectF footer = drawFooter(painter, page, fonts, f, m_model);

    // The grid of stages, three rows read left to right; connectors turn at the margins.
    const auto rows = diagramStages(m_model);
    const double gutter = 18 * f;  // room for the connectors at both sides
    const QRectF grid(page.left() + gutter, sub_rect.bottom() + 14 * f, page.width() - 2 * gutter,
                      footer.top() - 12 * f - (sub_rect.bottom() + 14 * f));
    const double row_gap = 16 * f;
    const double row_h = (grid.height() - row_gap * (rows.size() - 1)) / rows.size();
    const double col_gap = 30 * f;
    const double title_band = 24 * f;
    const QFontMetricsF shape_fm(fonts.shape, painter.device());
    const QFontMetricsF names_fm(fonts.names, painter.device());
    const QFontMetricsF caption_fm(fonts.caption, painter.device());
    const QFontMetricsF item_fm(fonts.item, painter.device());
    const double text_band = shape_fm.height() + names_fm.height() + 2 * caption_fm.lineSpacing() + 8 * f;
    const double item_label_h = item_fm.height() + 3 * f;

    // Each stage's boxes at unit 1, to share the width out and find the unit.
    const double item_gap = 12 * f;
    std::vector<std::vector<Placed>> placed(rows.size());
    for (size_t r = 0; r < rows.size(); ++r)
        for (const DiagramStage& stage : rows[r]) {
            Placed p{{}, {}, &stage};
            for (int s : stage.steps) {
                const QSizeF e = glyphForStep(steps[size_t(s)], c, 1.0, m_selected_head).extent();
                p.unit_w += e.width();
                p.unit_h = std::max(p.unit_h, e.height());
            }
            placed[r].push_back(p);
        }

    // Cells as wide as their boxes need plus a share for the text; the unit is the largest that
    // lets every stage fit its cell (and keeps a box of a few elements from filling the page).
    constexpr double kTextShare = 14;  // width given to a cell's text, in units of its boxes
    const double max_graphic_h = row_h - title_band - text_band - 10 * f;
    double unit = 22 * f;
    for (auto& row : placed) {
        double total = 0;
        for (const Placed& p : row)
            total += p.unit_w + kTextShare;
        const double room = grid.width() - col_gap * double(row.size() - 1);
        for (Placed& p : row) {
            p.cell.setWidth(room * (p.unit_w + kTextShare) / total);
            const double n = double(p.stage->steps.size());
            const double label = n > 1 ? item_label_h : 0;
            unit = std::min(unit, (p.cell.width() - 28 * f - (n - 1) * item_gap) / p.unit_w);  // room for arrows
            unit = std::min(unit, (max_graphic_h - label) / p.unit_h);
        }
    }
    unit = std::max(unit, 0.5);

    // Rows: titles on top, then the boxes and their text as one block centred in the rest.
    for (size_t r = 0; r < placed.size(); ++r) {
        double group_h = 0;
        for (const Placed& p : placed[r])
            group_h = std::max(group_h, p.unit_h * unit + (p.stage->steps.size() > 1 ? item_label_h : 0));
        const double top = grid.top() + double(r) * (row_h + row_gap);
        const double graphic_h = group_h + 12 * f;
        const double slack = std::max(0.0, row_h - title_band - graphic_h - text_band);
        double x = grid.left();
        for (Placed& p : placed[r]) {
            p.cell = QRectF(x, top, p.cell.width(), row_h);
            p.graphic = QRectF(x + 4 * f, top + title_band + slack * 0.4, p.cell.width() - 8 * f, graphic_h);
            x += p.cell.width() + col_gap;
        }
    }

    const int hovered = target == PaintTarget::Screen ? m_hovered_step : -1;
    const StageStyle style{fonts, f, unit, item_gap, item_label_h, title_band, m_selected_head, hovered, c, steps};
    std::vector<std::vector<QRectF>> groups(rows.size());
    int number = 0;
    for (size_t r = 0; r < placed.size(); ++r) {
        for (const Placed& p : placed[r]) {
            groups[r].push_back(drawStage(painter, p, ++number, style, hits));
        }
    }

    // Arrows between the stages of a row, and from the end of a row to the start of the next.
    const double arrow_w = 1.5 * f;
    for (size_t r = 0; r < groups.size(); ++r) {
        const double y = placed[r].front().graphic.center().y();
        for (size_t i = 0; i + 1 < groups[r].size(); ++i)
            drawArrow(
                painter,
                QPolygonF({QPointF(groups[r][i].right() + 6 * f, y), QPointF(groups[r][i + 1].left() - 6 * f, y)}),
                arrow_w);
        if (r + 1 < groups.size()) {
            const double y_next = placed[r + 1].front().graphic.center().y();
            const double turn_y = placed[r].front().cell.bottom() + row_gap / 2;
            const double right = page.right() - gutter / 3;
            const double left = page.left() + gutter / 3;
            drawArrow(painter,
                      QPolygonF({QPointF(groups[r].back().right() + 6 * f, y), QPointF(right, y),
                                 QPointF(right, turn_y), QPointF(left, turn_y), QPointF(left, y_next),
                                 QPointF(groups[r + 1].front().left() - 6 * f, y_next)}),
                      arrow_w);
        }
    }
    painter.restore();
    return hits;
}

QString ShapeDiagramPainter::toolTip(int index) const
{
    const auto& steps = m_model.steps();
    if (index < 0 || index >= int(steps.size()))
        return {};
    const ShapeStep& step = steps[size_t(index)];
    QString html = QStringLiteral("<b>%1</b><br/>%2<br/>shape %3 = <b>%4</b>")
                       .arg(step.name.toHtmlEscaped(), step.formula.toHtmlEscaped(), step.shapeNames().toHtmlEscaped(),
                            step.shapeText().toHtmlEscaped());
    if (step.kind == ShapeStep::Kind::Weight) {
        html += QStringLiteral("<br/>parameters: <b>%1</b> = %2")
                    .arg(ShapeData::formatCount(step.parameters), step.cost_formula);
    } else {
        html += QStringLiteral("<br/>elements: %1").arg(ShapeData::formatCount(step.elementCount()));
        if (step.multiply_adds > 0)
            html += QStringLiteral("<br/>multiply-adds of this step: <b>%1</b> = %2")
                        .arg(ShapeData::formatCount(step.multiply_adds), step.cost_formula);
        else
            html += QStringLiteral("<br/>multiply-adds of this step: 0");
        if (step.elementwise > 0)
            html += QStringLiteral("<br/>element-wise operations: %1 (not in the FLOP total)")
                        .arg(ShapeData::formatCount(step.elementwise));
        if (step.head_axis >= 0)
            html += QStringLiteral("<br/>head %1 of %2 highlighted")
                        .arg(m_selected_head)
                        .arg(step.shape[step.head_axis].value);
    }
    return html;
}

}  // namespace attn
