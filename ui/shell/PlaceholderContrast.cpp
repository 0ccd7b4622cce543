#include "ui/shell/PlaceholderContrast.h"

#include <QColor>
#include <QEvent>
#include <QPalette>
#include <QWidget>

#include <cmath>

namespace attn {

namespace {

// WCAG's relative luminance of an sRGB colour, 0 (black) .. 1 (white).
double luminance(const QColor& colour)
{
    auto linear = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF());
}

// The placeholder as drawn: its alpha blends it into the background.
QColor blended(const QColor& over, const QColor& under)
{
    const double a = over.alphaF();
    return QColor::fromRgbF(float(over.redF() * a + under.redF() * (1 - a)),
                            float(over.greenF() * a + under.greenF() * (1 - a)),
                            float(over.blueF() * a + under.blueF() * (1 - a)));
}

double contrast(const QColor& one, const QColor& other)
{
    const double a = luminance(one) + 0.05;
    const double b = luminance(other) + 0.05;
    return std::max(a, b) / std::min(a, b);
}

// WCAG asks 4.5 of body text; a hint may be fainter than what is typed, not illegible.
constexpr double kLeastContrast = 3.0;

bool readableIn(const QPalette& palette, QPalette::ColorGroup group)
{
    const QColor base = palette.color(group, QPalette::Base);
    return contrast(blended(palette.color(group, QPalette::PlaceholderText), base), base) >= kLeastContrast;
}

}  // namespace

void PlaceholderContrast::keepReadable(QWidget* field)
{
    field->installEventFilter(new PlaceholderContrast(field));
    fix(field);
}

bool PlaceholderContrast::isReadable(const QWidget* field)
{
    return readableIn(field->palette(), field->palette().currentColorGroup());
}

bool PlaceholderContrast::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        fix(static_cast<QWidget*>(watched));
    return QObject::eventFilter(watched, event);
}

void PlaceholderContrast::fix(QWidget* field)
{
    // A disabled field now is an enabled one later: judged by its active colours.
    if (readableIn(field->palette(), QPalette::Active))
        return;  // also ends the palette change that setting it below makes
    QPalette palette = field->palette();
    for (const auto group : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        const QColor text = palette.color(group, QPalette::Text);
        const QColor base = palette.color(group, QPalette::Base);
        palette.setColor(group, QPalette::PlaceholderText,
                         QColor::fromRgbF((text.redF() + base.redF()) / 2, (text.greenF() + base.greenF()) / 2,
                                          (text.blueF() + base.blueF()) / 2));
    }
    field->setPalette(palette);
}

}  // namespace attn
