#include "ui/shell/TokenStrip.h"

#include <QPainter>

namespace attn {

namespace {
constexpr int kHeight = 34;
constexpr int kMaxChipText = 120;
}  // namespace

TokenStrip::TokenStrip(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("The tokens of the sentence, as the model sees them"));
}

void TokenStrip::setTokens(const QStringList& tokens)
{
    m_tokens = tokens;
    m_query = m_key = -1;
    update();
}

void TokenStrip::setHighlight(int query, int key)
{
    m_query = query;
    m_key = key;
    update();
}

QSize TokenStrip::sizeHint() const
{
    return {600, kHeight};
}
QSize TokenStrip::minimumSizeHint() const
{
    return {100, kHeight};
}

void TokenStrip::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    QFont index_font = font;
    index_font.setPointSizeF(font.pointSizeF() * 0.75);
    const QFontMetrics metrics(font);
    const QFontMetrics index_metrics(index_font);
    const QString more_template = tr("+%1 more");
    const int more_width = metrics.horizontalAdvance(more_template.arg(m_tokens.size())) + 12;
    int x = 2;
    m_visible = 0;
    for (int i = 0; i < m_tokens.size(); ++i) {
        const QString text = metrics.elidedText(m_tokens[i], Qt::ElideRight, kMaxChipText);
        const QString index = QString::number(i);
        const int width = metrics.horizontalAdvance(text) + index_metrics.horizontalAdvance(index) + 18;
        const bool last = i == m_tokens.size() - 1;
        if (x + width > this->width() - (last ? 0 : more_width))
            break;
        const QRectF chip(x, 5, width, kHeight - 10);
        QColor fill(0xee, 0xf1, 0xf6), border(0xc5, 0xcb, 0xd6);
        if (i == m_query) {
            fill = QColor(0xd6, 0xe8, 0xfb);
            border = QColor(0x1e, 0x88, 0xe5);
        } else if (i == m_key) {
            fill = QColor(0xfd, 0xf0, 0xc8);
            border = QColor(0xe0, 0xa1, 0x00);
        }
        painter.setPen(QPen(border, 1));
        painter.setBrush(fill);
        painter.drawRoundedRect(chip, 6, 6);
        painter.setPen(QColor(0x20, 0x20, 0x20));
        painter.setFont(font);
        painter.drawText(chip.adjusted(6, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
        painter.setFont(index_font);
        painter.setPen(QColor(0x80, 0x80, 0x80));
        painter.drawText(chip.adjusted(0, 0, -5, -2), Qt::AlignRight | Qt::AlignBottom, index);
        x += width + 4;
        ++m_visible;
    }
    if (m_visible < m_tokens.size()) {
        painter.setFont(font);
        painter.setPen(QColor(0x60, 0x60, 0x60));
        painter.drawText(QRectF(x + 4, 0, width() - x - 4, kHeight), Qt::AlignLeft | Qt::AlignVCenter,
                         more_template.arg(m_tokens.size() - m_visible));
    }
}

}  // namespace attn
