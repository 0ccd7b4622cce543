#pragma once

#include <QObject>

class QWidget;

namespace attn {

// Keeps the placeholder text of a field readable on its own background whatever palette the
// desktop sets: a dark palette (Breeze Dark) may leave the placeholder at a light theme's grey,
// nearly invisible on a dark field. The placeholder is then drawn halfway between the field's
// text and its background, and again at every palette change.
class PlaceholderContrast : public QObject {
    Q_OBJECT
public:
    // Watches `field` (a QLineEdit, or any widget with a placeholder), owned by it.
    static void keepReadable(QWidget* field);
    // Whether the placeholder of `field` differs enough from its background to be read (in the
    // field's current state: a disabled field's is as faint as its text).
    static bool isReadable(const QWidget* field);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    using QObject::QObject;
    static void fix(QWidget* field);
};

}  // namespace attn
