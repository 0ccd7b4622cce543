#include "ui/shell/TokenStrip.h"

#include "core/text/TokenPiece.h"
#include "ui/heatmap/Hatch.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace attn {

namespace {
constexpr int kHeight = 34;
constexpr int kMaxChipText = 120;
const QString kSpaceMark = QString(QChar(TokenPiece::kSpaceMark));

}  // namespace

TokenStrip::TokenStrip(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("The tokens of the sentence, as the model sees them"));
}

TokenStrip::Piece TokenStrip::modelPiece(const QString& spelled, int id, bool byte_level, const Piece* previous)
{
    TokenPiece before;
    if (previous) {
        before.special = previous->special;
        before.text = previous->text;
    }
    const TokenPiece read = TokenPiece::of(spelled, byte_level, previous ? &before : nullptr);
    Piece piece;
    piece.spelled = spelled;
    piece.text = read.text;
    piece.id = id;
    piece.leading_space = read.leading_space;
    piece.continuation = read.continuation;
    piece.special = read.special;
    return piece;
}

void TokenStrip::setTokens(const QStringList& tokens)
{
    m_pieces.clear();
    m_tokens = tokens;
    m_query = m_key = -1;
    update();
}

void TokenStrip::setPieces(const std::vector<Piece>& pieces)
{
    m_pieces = pieces;
    m_tokens.clear();
    for (const Piece& piece : pieces)
        m_tokens << piece.text;
    m_query = m_key = -1;
    update();
}

QString TokenStrip::toolTipFor(int index) const
{
    if (index < 0 || index >= m_tokens.size())
        return toolTip();
    if (size_t(index) >= m_pieces.size())
        return tr("Token %1: %2").arg(index).arg(m_tokens[index]);
    const Piece& piece = m_pieces[size_t(index)];
    QString text = tr("Token %1: “%2”, id %3").arg(index).arg(piece.spelled).arg(piece.id);
    if (piece.special)
        text += QLatin1Char('\n') + tr("a special token");
    else if (piece.leading_space)
        text += QLatin1Char('\n') + tr("starts a word: a space before it (%1)").arg(kSpaceMark);
    else if (piece.continuation)
        text += QLatin1Char('\n') + tr("continues the word before it");
    if (!piece.predictions.isEmpty())
        text += QStringLiteral("\n\n") + piece.predictions;
    return text;
}

bool TokenStrip::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int index = tokenAt(help->pos());
        if (index >= 0)
            QToolTip::showText(help->globalPos(), toolTipFor(index), this, m_chips[size_t(index)]);
        else
            QToolTip::showText(help->globalPos(), toolTip(), this);
        return true;
    }
    return QWidget::event(event);
}

void TokenStrip::setPadding(const std::vector<bool>& padded)
{
    if (padded == m_padded)
        return;
    m_padded = padded;
    update();
}

void TokenStrip::setHidden(const std::vector<bool>& hidden)
{
    if (hidden == m_hidden)
        return;
    m_hidden = hidden;
    update();
}

void TokenStrip::contextMenuEvent(QContextMenuEvent* event)
{
    const int index = tokenAt(event->pos());
    if (index < 0) {
        QWidget::contextMenuEvent(event);
        return;
    }
    emit tokenContextMenu(index, event->globalPos());
}

void TokenStrip::setClickable(bool clickable)
{
    m_clickable = clickable;
    setCursor(clickable ? Qt::PointingHandCursor : Qt::ArrowCursor);
    setToolTip(clickable ? tr("The keys, as the model sees them: click a token to mask it as padding (its weight "
                              "becomes 0 for every query), click again to unmask it")
                         : tr("The tokens of the sentence, as the model sees them"));
}

int TokenStrip::tokenAt(const QPoint& position) const
{
    for (size_t i = 0; i < m_chips.size(); ++i)
        if (m_chips[i].contains(position))
            return int(i);
    return -1;
}

void TokenStrip::mousePressEvent(QMouseEvent* event)
{
    const int index = m_clickable && event->button() == Qt::LeftButton ? tokenAt(event->position().toPoint()) : -1;
    if (index < 0) {
        QWidget::mousePressEvent(event);
        return;
    }
    emit tokenClicked(index);
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
    m_chips.clear();
    for (int i = 0; i < m_tokens.size(); ++i) {
        const Piece* piece = size_t(i) < m_pieces.size() ? &m_pieces[size_t(i)] : nullptr;
        const QString text = metrics.elidedText(m_tokens[i], Qt::ElideRight, kMaxChipText);
        const QString index = QString::number(i);
        const int mark_width = piece && piece->leading_space ? index_metrics.horizontalAdvance(kSpaceMark) + 2 : 0;
        const int width = metrics.horizontalAdvance(text) + index_metrics.horizontalAdvance(index) + 18 + mark_width;
        const bool last = i == m_tokens.size() - 1;
        if (piece && piece->continuation && i > 0)
            x -= 3;  // joined to the piece before: the gap between words only
        if (x + width > this->width() - (last ? 0 : more_width))
            break;
        const QRectF chip(x, 5, width, kHeight - 10);
        QColor fill(0xee, 0xf1, 0xf6), border(0xc5, 0xcb, 0xd6);
        if (piece && piece->special) {
            fill = QColor(0xec, 0xe6, 0xf5);
            border = QColor(0x8e, 0x7c, 0xc3);
        }
        if (i == m_query) {
            fill = QColor(0xd6, 0xe8, 0xfb);
            border = QColor(0x1e, 0x88, 0xe5);
        } else if (i == m_key) {
            fill = QColor(0xfd, 0xf0, 0xc8);
            border = QColor(0xe0, 0xa1, 0x00);
        }
        const bool padded = isPadded(i);
        const bool hidden = isHidden(i);  // hidden in the heatmaps: a dashed border, struck through
        const bool special = piece && piece->special;  // [CLS], <|endoftext|>: dashed, bold, purple
        painter.setPen(QPen(border, 1, hidden || special ? Qt::DashLine : Qt::SolidLine));
        painter.setBrush(padded ? Hatch::fill() : fill);
        painter.drawRoundedRect(chip, 6, 6);
        if (mark_width > 0) {
            painter.setFont(index_font);
            painter.setPen(QColor(0x90, 0x90, 0x90));
            painter.drawText(chip.adjusted(4, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, kSpaceMark);
        }
        if (padded) {  // padding looks like a masked cell of the heatmaps
            painter.save();
            Hatch::draw(&painter, {chip.adjusted(3, 3, -3, -3)}, 6.0);
            painter.restore();
        }
        painter.setPen(padded || hidden ? QColor(0x70, 0x70, 0x70) : QColor(0x20, 0x20, 0x20));
        QFont text_font = font;
        text_font.setStrikeOut(padded || hidden);
        if (special) {
            text_font.setPointSizeF(font.pointSizeF() * 0.85);
            text_font.setBold(true);
            painter.setPen(QColor(0x5e, 0x4b, 0x9a));
        }
        painter.setFont(text_font);
        painter.drawText(chip.adjusted(6 + mark_width, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
        painter.setFont(index_font);
        painter.setPen(QColor(0x80, 0x80, 0x80));
        painter.drawText(chip.adjusted(0, 0, -5, -2), Qt::AlignRight | Qt::AlignBottom, index);
        m_chips.push_back(chip.toRect());
        x += width + 4;
        ++m_visible;
    }
    if (m_visible < m_tokens.size()) {
        painter.setFont(font);
        painter.setPen(QColor(0x60, 0x60, 0x60));
        painter.drawText(QRectF(x + 4, 0, width() - x - 4, kHeight), Qt::AlignLeft | Qt::AlignVCenter,
                         more_template.arg(m_tokens.size() - m_visible));
    }
    if (m_stale) {  // faded chips under a label, so no one reads them as the sentence's
        painter.fillRect(rect(), QColor(255, 255, 255, 170));
        const QString note = tr("previous input");
        QFont note_font = font;
        note_font.setItalic(true);
        const QFontMetrics note_metrics(note_font);
        const QRectF label(width() - note_metrics.horizontalAdvance(note) - 14, 4,
                           note_metrics.horizontalAdvance(note) + 10, kHeight - 8);
        painter.setPen(QColor(0xc6, 0x28, 0x28));
        painter.setBrush(QColor(0xff, 0xeb, 0xee));
        painter.drawRoundedRect(label, 4, 4);
        painter.setFont(note_font);
        painter.drawText(label, Qt::AlignCenter, note);
    }
}

void TokenStrip::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    update();
}

}  // namespace attn
