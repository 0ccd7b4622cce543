#include "ui/export/ExportImageDialog.h"

#include "ui/export/ViewExporter.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace attn {

ExportImageDialog::ExportImageDialog(const QString& path, const QSize& size, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Export image"));
    auto* form = new QFormLayout(this);
    m_path = new QLineEdit(path, this);
    m_path->setToolTip(tr("The file to write; its extension (.png, .svg or .pdf) chooses the format"));
    m_path->setMinimumWidth(m_path->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 48);  // a whole path
    auto* browse = new QPushButton(tr("&Browse…"), this);
    browse->setToolTip(tr("Choose the file"));
    auto* path_row = new QHBoxLayout;
    path_row->addWidget(m_path, 1);
    path_row->addWidget(browse);
    // A row of a layout gets no buddy from addRow: the label is made here, so "&File" is Alt+F.
    auto* path_label = new QLabel(tr("&File"), this);
    path_label->setBuddy(m_path);
    form->addRow(path_label, path_row);
    m_path_error = new QLabel(this);
    m_path_error->setObjectName(QStringLiteral("PathError"));
    m_path_error->setWordWrap(true);
    m_path_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_path_error->setVisible(false);
    form->addRow(QString(), m_path_error);
    connect(m_path, &QLineEdit::textEdited, m_path_error, &QLabel::hide);
    m_width = new QSpinBox(this);
    m_height = new QSpinBox(this);
    for (QSpinBox* box : {m_width, m_height}) {
        box->setRange(1, ViewExporter::kMaxSide);  // the writer's one limit
        box->setSuffix(tr(" px"));
    }
    m_width->setValue(size.width());
    m_height->setValue(size.height());
    m_width->setToolTip(tr("Width of the picture in pixels of 1/96 inch (SVG: px; PDF: 0.75 pt each)"));
    m_height->setToolTip(tr("Height of the picture"));
    form->addRow(tr("&Width"), m_width);
    form->addRow(tr("&Height"), m_height);
    m_scale = new QDoubleSpinBox(this);
    m_scale->setRange(0.5, 4.0);
    m_scale->setSingleStep(0.5);
    m_scale->setValue(2.0);
    m_scale->setSuffix(QStringLiteral("×"));
    m_scale->setToolTip(tr("PNG only: image pixels per picture pixel, 2× for sharp slides"));
    form->addRow(tr("&Scale"), m_scale);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen =
            QFileDialog::getSaveFileName(this, tr("Export image"), m_path->text(),
                                         tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        if (!chosen.isEmpty())
            m_path->setText(chosen);
    });
}

void ExportImageDialog::accept()
{
    if (Status where = ViewExporter::checkPath(path()); !where) {
        m_path_error->setText(where.error());
        m_path_error->setVisible(true);
        m_path->setFocus();
        return;
    }
    m_path_error->clear();
    m_path_error->setVisible(false);
    QDialog::accept();
}

QString ExportImageDialog::pathError() const
{
    return m_path_error->isVisibleTo(this) ? m_path_error->text() : QString();
}

QString ExportImageDialog::path() const
{
    return m_path->text();
}
QSize ExportImageDialog::imageSize() const
{
    return {m_width->value(), m_height->value()};
}
double ExportImageDialog::scale() const
{
    return m_scale->value();
}

}  // namespace attn
