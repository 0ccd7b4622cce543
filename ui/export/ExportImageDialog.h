#pragma once

#include <QDialog>
#include <QSize>

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace attn {

// Where and how large to export the current view: file (PNG, SVG or PDF), size and scale. A path
// the export would refuse (a folder that does not exist, an unknown extension) is said under the
// field and the dialog stays open, the path there to be corrected.
class ExportImageDialog : public QDialog {
    Q_OBJECT
public:
    ExportImageDialog(const QString& path, const QSize& size, QWidget* parent = nullptr);

    QString path() const;
    QSize imageSize() const;
    double scale() const;
    QString pathError() const;  // why Save did not close the dialog; empty when it did not say

    void accept() override;

private:
    QLineEdit* m_path = nullptr;
    QLabel* m_path_error = nullptr;
    QSpinBox* m_width = nullptr;
    QSpinBox* m_height = nullptr;
    QDoubleSpinBox* m_scale = nullptr;
};

}  // namespace attn
