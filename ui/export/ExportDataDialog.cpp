#include "ui/export/ExportDataDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace attn {

ExportDataDialog::ExportDataDialog(const QString& path, int head, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Export attention weights"));
    auto* form = new QFormLayout(this);
    m_path = new QLineEdit(path, this);
    m_path->setToolTip(tr("The file to write; its extension (.csv, .npy or .json) chooses the format"));
    auto* browse = new QPushButton(tr("&Browse…"), this);
    auto* path_row = new QHBoxLayout;
    path_row->addWidget(m_path, 1);
    path_row->addWidget(browse);
    auto* path_label = new QLabel(tr("&File"), this);
    path_label->setBuddy(m_path);
    form->addRow(path_label, path_row);
    m_trace = new QCheckBox(tr("Also what reproduces head %1: the input X, Q, K, V and the scores").arg(head), this);
    m_trace->setToolTip(
        tr("The scores as they enter the softmax: Q Kᵀ divided by the scale, −∞ where masked "
           "(JSON: null). CSV and NPY: one more file per array beside the weights "
           "(NAME.x, NAME.q, NAME.k, NAME.v, NAME.scores)"));
    form->addRow(m_trace);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getSaveFileName(this, tr("Export attention weights"), m_path->text(),
                                                            tr("CSV (*.csv);;NumPy array (*.npy);;JSON (*.json)"));
        if (!chosen.isEmpty())
            m_path->setText(chosen);
    });
}

QString ExportDataDialog::path() const
{
    return m_path->text();
}

bool ExportDataDialog::withTrace() const
{
    return m_trace->isChecked();
}

}  // namespace attn
