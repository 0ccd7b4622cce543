#pragma once

#include <QDialog>
#include <QSize>

class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace attn {

// Where and how large to export the current view: file (PNG, SVG or PDF), size and scale.
class ExportImageDialog : public QDialog {
    Q_OBJECT
public:
    ExportImageDialog(const QString& path, const QSize& size, QWidget* parent = nullptr);

    QString path() const;
    QSize imageSize() const;
    double scale() const;

private:
    QLineEdit* m_path = nullptr;
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QDoubleSpinBox* m_scale = nullptr;
};

}  // namespace attn
