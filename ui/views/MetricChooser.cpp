#include "ui/views/MetricChooser.h"

#include "core/model/ModelSession.h"
#include "ui/views/TokenField.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>

namespace attn {
namespace {

QLabel* errorLabel(QWidget* parent, const QString& name)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setStyleSheet(QStringLiteral("color: #c0392b;"));
    label->setWordWrap(true);
    label->hide();
    return label;
}

QComboBox* tokenBox(QWidget* parent, const QString& name, const QString& placeholder)
{
    auto* box = new QComboBox(parent);
    box->setObjectName(name);
    box->setEditable(true);
    box->setInsertPolicy(QComboBox::NoInsert);
    box->setMinimumContentsLength(12);
    box->lineEdit()->setPlaceholderText(placeholder);
    return box;
}

void showError(QLabel* label, const QString& message)
{
    label->setText(message);
    label->setVisible(!message.isEmpty());
}

}  // namespace

MetricChooser::MetricChooser(const QString& object_prefix, const QString& target_tip, QWidget* parent) : QWidget(parent)
{
    m_target = tokenBox(this, object_prefix + QStringLiteral("Target"), tr("top prediction"));
    m_target->setToolTip(target_tip);
    m_foil = tokenBox(this, object_prefix + QStringLiteral("Foil"), tr("none"));
    m_foil->setToolTip(tr("Optional: measure logit(target) \u2212 logit(foil) instead"));
    m_target_error = errorLabel(this, object_prefix + QStringLiteral("TargetError"));
    m_foil_error = errorLabel(this, object_prefix + QStringLiteral("FoilError"));
    m_position = new QSpinBox(this);
    m_position->setObjectName(object_prefix + QStringLiteral("Position"));
    m_position->setToolTip(tr("The position whose prediction is measured (the last one until you choose)"));
    m_position->setEnabled(false);

    auto* controls = new QHBoxLayout(this);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(new QLabel(tr("Target"), this));
    controls->addWidget(m_target);
    controls->addWidget(m_target_error, 1);
    controls->addWidget(new QLabel(tr("Foil"), this));
    controls->addWidget(m_foil);
    controls->addWidget(m_foil_error, 1);
    controls->addWidget(new QLabel(tr("Position"), this));
    controls->addWidget(m_position);
    controls->addStretch();

    for (QComboBox* box : {m_target, m_foil})
        connect(box, &QComboBox::editTextChanged, this, [this] {
            if (!m_filling)
                emit changed();
        });
    connect(m_position, &QSpinBox::valueChanged, this, [this] {
        if (m_filling)
            return;
        m_position_chosen = true;
        emit changed();
    });
}

void MetricChooser::setModel(std::shared_ptr<const ModelSession> model)
{
    m_model = std::move(model);
    m_position_chosen = false;
    m_top.clear();
    m_filling = true;
    m_target->clear();
    m_foil->clear();
    m_filling = false;
}

void MetricChooser::setRun(const ModelRun* run)
{
    if (!run)
        return;
    m_filling = true;
    m_position->setRange(0, std::max(0, run->seqLen() - 1));
    if (!m_position_chosen || m_position->value() >= run->seqLen())
        m_position->setValue(run->seqLen() - 1);
    m_position->setEnabled(true);
    m_filling = false;
}

void MetricChooser::clear()
{
    m_model.reset();
    m_position->setEnabled(false);
}

std::optional<MetricChooser::Choice> MetricChooser::read()
{
    Choice choice{m_position->value(), std::nullopt, std::nullopt};
    bool ok = true;
    const auto read_box = [&](QComboBox* box, QLabel* error, std::optional<int>& id) {
        const QString text = box->currentText().trimmed();
        if (text.isEmpty() || !m_model) {
            showError(error, QString());
            return;
        }
        auto parsed = TokenField::read(*box, *m_model);
        if (!parsed) {
            showError(error, parsed.error());
            ok = false;
            return;
        }
        showError(error, QString());
        id = *parsed;
    };
    read_box(m_target, m_target_error, choice.target);
    read_box(m_foil, m_foil_error, choice.foil);
    if (!ok)
        return std::nullopt;
    return choice;
}

void MetricChooser::setTopPredictions(const std::vector<int>& ids)
{
    if (!m_model)
        return;
    QStringList items;
    for (int id : ids)
        items << tokenShown(id);
    if (items == m_top)
        return;
    m_top = items;
    m_filling = true;
    for (QComboBox* box : {m_target, m_foil})
        TokenField::fill(*box, *m_model, ids);
    m_filling = false;
}

void MetricChooser::showTargetError(const QString& message)
{
    showError(m_target_error, message);
}

QString MetricChooser::metricText(const QString& target, const QString& foil, int position, const QString& at)
{
    QString text = QStringLiteral("logit(%1)").arg(target);
    if (!foil.isEmpty())
        text += QStringLiteral(" \u2212 logit(%1)").arg(foil);
    return text + QStringLiteral(" at position %1 \u2018%2\u2019").arg(position).arg(at);
}

QString MetricChooser::tokenShown(int id) const
{
    return m_model ? TokenField::label(*m_model, id) : QString::number(id);
}

}  // namespace attn
