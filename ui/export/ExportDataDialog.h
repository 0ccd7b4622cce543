#pragma once

#include <QDialog>

class QCheckBox;
class QLineEdit;

namespace attn {

// Where to export the attention weights (CSV, NPY or JSON), and whether to add what reproduces
// the result: the input X, Q, K, V and the scaled, masked scores of the selected head.
class ExportDataDialog : public QDialog {
    Q_OBJECT
public:
    ExportDataDialog(const QString& path, int head, QWidget* parent = nullptr);

    QString path() const;
    bool withTrace() const;
    QCheckBox* traceBox() const { return m_trace; }

private:
    QLineEdit* m_path = nullptr;
    QCheckBox* m_trace = nullptr;
};

}  // namespace attn
