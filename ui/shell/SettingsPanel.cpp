#include "ui/shell/SettingsPanel.h"

#include "core/model/ModelConfig.h"
#include "core/pipeline/AttentionResult.h"
#include "core/pipeline/MemoryPlan.h"
#include "ui/shell/BreakableText.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QSignalBlocker>
#include <QStyle>
#include <QTextDocument>
#include <QVBoxLayout>

#include <cmath>
#include <initializer_list>
#include <utility>

namespace attn {

namespace {
enum WeightsItem { kRandom = 0, kIdentity = 1, kFile = 2 };
enum ScaleItem { kSqrt = 0, kNone = 1, kCustom = 2 };

// A refused field keeps its own look (a style sheet would replace a spin box's arrows), tinted red.
QPalette refusedPalette(QPalette tinted)
{
    const QColor red(0xe5, 0x39, 0x35);
    for (QPalette::ColorRole role : {QPalette::Base, QPalette::Button}) {
        const QColor base = tinted.color(role);
        tinted.setColor(role, QColor::fromRgbF(float(base.redF() * 0.7 + red.redF() * 0.3),
                                               float(base.greenF() * 0.7 + red.greenF() * 0.3),
                                               float(base.blueF() * 0.7 + red.blueF() * 0.3)));
    }
    return tinted;
}

}  // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    form->setVerticalSpacing(4);

    auto spin = [this](int low, int high, const QString& tip) {
        auto* box = new QSpinBox(this);
        box->setRange(low, high);
        box->setKeyboardTracking(false);  // typing "512" is one change, not three
        box->setAccelerated(true);
        box->setToolTip(tip);
        return box;
    };
    m_d_model = spin(1, 16384, tr("Model width d_model: the size of Q, K and V over all heads"));
    m_heads = spin(1, 1024, tr("Number of heads; d_model must be divisible by it"));
    m_input_dim = spin(0, 16384, tr("Size of each token vector going in; 0 = the same as d_model"));
    m_input_dim->setSpecialValueText(tr("= d_model"));
    m_seed = spin(0, std::numeric_limits<int>::max(), tr("Seed of the random weights and token embeddings"));

    m_weights = new QComboBox(this);
    m_weights->addItems({tr("Random"), tr("Identity"), tr("File…")});
    m_weights->setToolTip(
        tr("Where the weights come from: random (PyTorch's default initialisation), "
           "identity (raw dot products), or a .safetensors / .npz / .json file"));
    m_layer = spin(0, 0, tr("Which layer of a multi-layer weight file (GPT-2 style h.N.attn)"));

    m_causal = new QCheckBox(tr("&Causal mask"), this);
    m_causal->setToolTip(tr("Decoder mask: query i sees keys 0..i only (Ctrl+M)"));
    m_scale = new QComboBox(this);
    m_scale->addItems({tr("√d_k"), tr("none"), tr("custom")});
    m_scale->setToolTip(tr("What the scores are divided by before the softmax"));
    m_custom_scale = new QDoubleSpinBox(this);
    m_custom_scale->setRange(0.001, 1e6);
    m_custom_scale->setDecimals(3);
    m_custom_scale->setValue(1.0);
    m_custom_scale->setKeyboardTracking(false);
    m_custom_scale->setToolTip(tr("Custom divisor of the scores"));
    m_positional = new QCheckBox(tr("&Positional encoding"), this);
    m_positional->setToolTip(tr("Add sinusoidal position vectors to the token embeddings"));
    m_color_map = new QComboBox(this);
    for (ColorMaps::Map map : ColorMaps::sequential())
        m_color_map->addItem(ColorMaps::name(map), int(map));
    m_color_map->setToolTip(tr("Perceptual colour map of the heatmaps"));
    m_memory_budget = new QLineEdit(this);
    m_memory_budget->setObjectName(QStringLiteral("MemoryBudget"));
    m_memory_budget->setClearButtonEnabled(true);
    m_memory_budget->setPlaceholderText(tr("default (%1)").arg(MemoryPlan::formatSize(MemoryPlan::defaultBudget())));
    m_memory_budget->setToolTip(
        tr("What one result may take in memory, e.g. 2G, 1.5 GB or 800M (a number alone is bytes); empty: the "
           "default, half the machine's memory. A longer sentence is refused before it is computed, saying how "
           "many tokens would fit; the last result stays."));
    m_memory_budget_error = new QLabel(this);
    m_memory_budget_error->setObjectName(QStringLiteral("MemoryBudgetError"));
    m_memory_budget_error->setWordWrap(true);
    m_memory_budget_error->setStyleSheet(QStringLiteral("color: #c62828; font-size: 11px;"));
    m_memory_budget_error->setVisible(false);

    auto heading = [](const QString& text) {
        auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(text));
        label->setContentsMargins(0, 8, 0, 2);
        return label;
    };
    // A whole model: its configuration, read-only, instead of the fields below.
    m_model_heading = heading(tr("Whole model"));
    m_model_info = new QLabel(this);
    m_model_info->setObjectName(QStringLiteral("ModelInfo"));
    m_model_info->setTextFormat(Qt::RichText);
    m_model_info->setWordWrap(true);
    m_model_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_open_model = new QPushButton(tr("Open model folder…"), this);
    m_open_model->setToolTip(
        tr("A Hugging Face folder with config.json, model.safetensors and the tokenizer "
           "(Ctrl+Shift+O, or drop the folder on the window)"));
    m_close_model = new QPushButton(tr("Close model"), this);
    m_close_model->setObjectName(QStringLiteral("CloseModel"));
    m_close_model->setToolTip(tr("Back to the weights of the fields below (random, identity or a weight file)"));
    // One row of the form holds the whole section: QFormLayout squeezes the row after a
    // word-wrapped label to no height once rows around it are hidden (the Close model button
    // vanished under a refused folder's reason); a box layout gives each its height for the width.
    auto* model_section = new QWidget(this);
    auto* model_column = new QVBoxLayout(model_section);
    model_column->setContentsMargins(0, 0, 0, 0);
    model_column->setSpacing(4);
    QLabel* model_error = errorLabel();
    for (QWidget* widget :
         std::initializer_list<QWidget*>{m_model_heading, m_model_info, model_error, m_open_model, m_close_model})
        model_column->addWidget(widget);
    m_rows.insert_or_assign(SettingField::Model,
                            FieldRow{m_open_model, model_error, QString(), m_open_model->toolTip()});
    form->addRow(model_section);
    connect(m_open_model, &QPushButton::clicked, this, &SettingsPanel::openModelRequested);
    connect(m_close_model, &QPushButton::clicked, this, &SettingsPanel::closeModelRequested);

    auto* section = heading(tr("Model"));
    form->addRow(section);
    form->addRow(tr("d_m&odel"), m_d_model);
    addErrorRow(form, SettingField::DModel, m_d_model);
    form->addRow(tr("H&eads"), m_heads);
    addErrorRow(form, SettingField::Heads, m_heads);
    form->addRow(tr("&Input dim"), m_input_dim);
    addErrorRow(form, SettingField::InputDim, m_input_dim);
    form->addRow(tr("See&d"), m_seed);
    form->addRow(tr("&Weights"), m_weights);
    addErrorRow(form, SettingField::Weights, m_weights, false);
    form->addRow(tr("&Layer"), m_layer);
    addErrorRow(form, SettingField::Layer, m_layer, false);
    auto* attention = new QLabel(QStringLiteral("<b>%1</b>").arg(tr("Attention")));
    attention->setContentsMargins(0, 8, 0, 2);
    form->addRow(attention);
    form->addRow(m_causal);
    form->addRow(tr("&Scale"), m_scale);
    form->addRow(tr("Divisor"), m_custom_scale);
    addErrorRow(form, SettingField::Scale, m_custom_scale);
    form->addRow(m_positional);
    auto* view = new QLabel(QStringLiteral("<b>%1</b>").arg(tr("View")));
    view->setContentsMargins(0, 8, 0, 2);
    form->addRow(view);
    form->addRow(tr("Colo&ur map"), m_color_map);
    form->addRow(tr("Memory &budget"), m_memory_budget);
    form->addRow(QString(), m_memory_budget_error);
    m_form = form;
    m_weight_rows = {section, m_d_model, m_heads,  m_input_dim, m_seed,         m_weights,
                     m_layer, attention, m_causal, m_scale,     m_custom_scale, m_positional};
    m_model_info->setVisible(false);
    m_close_model->setVisible(false);

    for (QSpinBox* box : {m_d_model, m_heads, m_input_dim, m_seed, m_layer})
        connect(box, &QSpinBox::valueChanged, this, &SettingsPanel::emitConfig);
    connect(m_custom_scale, &QDoubleSpinBox::valueChanged, this, &SettingsPanel::emitConfig);
    connect(m_causal, &QCheckBox::toggled, this, &SettingsPanel::emitConfig);
    connect(m_positional, &QCheckBox::toggled, this, &SettingsPanel::emitConfig);
    connect(m_scale, &QComboBox::currentIndexChanged, this, &SettingsPanel::emitConfig);
    connect(m_weights, &QComboBox::activated, this, [this](int index) {
        if (index == kFile && m_weights_file.isEmpty()) {
            emit openWeightsRequested();
            return;
        }
        emitConfig();
    });
    connect(m_color_map, &QComboBox::currentIndexChanged, this, [this] { emit colorMapChanged(colorMap()); });
    connect(m_memory_budget, &QLineEdit::editingFinished, this, &SettingsPanel::editMemoryBudget);
    setConfig(RunSettings{});
}

namespace {

// The budget as the field shows it, in the largest unit that keeps it exact: "2 GB", "1.5 GB",
// "800 MB"; bytes otherwise.
QString budgetText(std::int64_t bytes)
{
    for (const auto& [shift, unit] : {std::pair{30, "GB"}, std::pair{20, "MB"}}) {
        const double amount = std::ldexp(double(bytes), -shift);
        const double hundredths = std::round(amount * 100.0);
        if (amount >= 1.0 && std::ldexp(hundredths / 100.0, shift) == double(bytes))
            return QStringLiteral("%1 %2").arg(QLocale::c().toString(hundredths / 100.0, 'g', 12), QLatin1String(unit));
    }
    return QString::number(bytes);
}

}  // namespace

void SettingsPanel::setMemoryBudget(std::int64_t bytes)
{
    m_memory_budget_bytes = std::max<std::int64_t>(0, bytes);
    m_memory_budget->setText(m_memory_budget_bytes > 0 ? budgetText(m_memory_budget_bytes) : QString());
    m_memory_budget_error->clear();
    m_memory_budget_error->setVisible(false);
    m_memory_budget->setPalette(QPalette());
}

QString SettingsPanel::memoryBudgetError() const
{
    return m_memory_budget_error->text().remove(QChar(0x200B));  // without breakableText's break marks
}

void SettingsPanel::editMemoryBudget()
{
    const QString text = m_memory_budget->text().trimmed();
    Result<std::int64_t> bytes = text.isEmpty() ? Result<std::int64_t>(std::int64_t(0))
                                                : MemoryPlan::parseBudget(text, MemoryPlan::physicalMemory());
    if (!bytes) {
        // The typed text stays to be corrected; the budget in use is said with the reason.
        const QString in_use =
            m_memory_budget_bytes > 0 ? MemoryPlan::formatSize(m_memory_budget_bytes) : tr("the default");
        m_memory_budget_error->setText(breakableText(tr("%1; the budget stays %2.").arg(bytes.error(), in_use)));
        m_memory_budget_error->setVisible(true);
        m_memory_budget->setPalette(refusedPalette(palette()));
        return;
    }
    const bool changed = *bytes != m_memory_budget_bytes;
    setMemoryBudget(*bytes);
    if (changed)
        emit memoryBudgetEdited(*bytes);
}

QLabel* SettingsPanel::errorLabel()
{
    auto* label = new QLabel(this);
    label->setWordWrap(true);
    label->setStyleSheet(QStringLiteral("color: #c62828; font-size: 11px;"));
    label->setVisible(false);
    return label;
}

void SettingsPanel::addErrorRow(QFormLayout* form, SettingField field, QWidget* widget, bool reason_underneath)
{
    QLabel* label = nullptr;
    if (reason_underneath) {
        label = errorLabel();
        form->addRow(QString(), label);
    }
    m_rows.insert_or_assign(field, FieldRow{widget, label, QString(), widget->toolTip()});
}

void SettingsPanel::setConfig(const RunSettings& config)
{
    m_updating = true;
    m_d_model->setValue(config.d_model);
    m_input_dim->setValue(config.input_dim);
    m_seed->setValue(int(std::min<std::uint64_t>(config.seed, std::numeric_limits<int>::max())));
    m_weights_file = config.weights_file;
    m_weights->setItemText(kFile, m_weights_file.isEmpty() ? tr("File…") : QFileInfo(m_weights_file).fileName());
    m_weights->setItemData(kFile, m_weights_file, Qt::ToolTipRole);
    m_weights->setCurrentIndex(config.weight_source == RunSettings::WeightSource::File       ? kFile
                               : config.weight_source == RunSettings::WeightSource::Identity ? kIdentity
                                                                                             : kRandom);
    m_heads_value = config.num_heads;
    m_file_heads_value = config.file_num_heads;
    m_layer->setMaximum(std::max(m_layer->maximum(), config.layer));
    m_layer->setValue(config.layer);
    m_causal->setChecked(config.causal);
    m_scale->setCurrentIndex(config.scale.mode == ScaleSetting::Mode::Sqrt   ? kSqrt
                             : config.scale.mode == ScaleSetting::Mode::None ? kNone
                                                                             : kCustom);
    if (config.scale.mode == ScaleSetting::Mode::Custom)
        m_custom_scale->setValue(config.scale.custom);
    m_positional->setChecked(config.positional_encoding);
    updateEnabled();
    m_updating = false;
}

RunSettings SettingsPanel::config() const
{
    RunSettings config;
    config.d_model = m_d_model->value();
    config.input_dim = m_input_dim->value();
    config.seed = std::uint64_t(m_seed->value());
    const int source = m_weights->currentIndex();
    config.weight_source = source == kFile && !m_weights_file.isEmpty() ? RunSettings::WeightSource::File
                           : source == kIdentity                        ? RunSettings::WeightSource::Identity
                                                                        : RunSettings::WeightSource::Random;
    config.weights_file = m_weights_file;
    const bool file = config.weight_source == RunSettings::WeightSource::File;
    config.num_heads = file ? m_heads_value : m_heads->value();
    config.file_num_heads = file ? m_heads->value() : m_file_heads_value;
    config.layer = m_layer->value();
    config.causal = m_causal->isChecked();
    config.scale.mode = m_scale->currentIndex() == kSqrt   ? ScaleSetting::Mode::Sqrt
                        : m_scale->currentIndex() == kNone ? ScaleSetting::Mode::None
                                                           : ScaleSetting::Mode::Custom;
    config.scale.custom = m_custom_scale->value();
    config.positional_encoding = m_positional->isChecked();
    return config;
}

void SettingsPanel::setColorMap(ColorMaps::Map map)
{
    const int index = m_color_map->findData(int(map));
    if (index >= 0)
        m_color_map->setCurrentIndex(index);
}

ColorMaps::Map SettingsPanel::colorMap() const
{
    return ColorMaps::Map(m_color_map->currentData().toInt());
}

void SettingsPanel::setFieldError(SettingField field, const QString& message)
{
    const auto row = m_rows.find(field);
    if (row == m_rows.end())
        return;
    FieldRow& flagged = row->second;
    flagged.message = message;
    if (flagged.error) {
        flagged.error->setText(breakableText(message));  // wraps inside a long file name too
        flagged.error->setVisible(!message.isEmpty());
    }
    flagged.widget->setToolTip(message.isEmpty() ? flagged.tooltip : message);
    flagged.widget->setProperty("error", message);
    // A refused weight file leaves the weights in use, which the combo shows again: it is not
    // tinted (its tooltip and the message bar say why the file was not taken).
    if (message.isEmpty() || field == SettingField::Weights) {
        flagged.widget->setPalette(QPalette());  // back to the inherited palette
        return;
    }
    flagged.widget->setPalette(refusedPalette(palette()));
}

QString SettingsPanel::fieldError(SettingField field) const
{
    const auto row = m_rows.find(field);
    return row == m_rows.end() ? QString() : row->second.message;
}

void SettingsPanel::showResult(const AttentionResult& result)
{
    if (m_weights->currentIndex() != kFile)
        return;
    m_updating = true;
    m_d_model->setValue(result.config.d_model);
    m_input_dim->setValue(result.config.input_dim);
    m_heads_value = result.config.num_heads;
    m_layer->setMaximum(std::max(0, result.layer_count - 1));
    m_layer->setEnabled(result.layer_count > 1);
    m_updating = false;
}

void SettingsPanel::emitConfig()
{
    if (m_updating)
        return;
    (m_heads_is_file ? m_file_heads_value : m_heads_value) = m_heads->value();
    updateEnabled();
    emit configEdited(config());
}

void SettingsPanel::updateEnabled()
{
    const bool file = m_weights->currentIndex() == kFile && !m_weights_file.isEmpty();
    const bool was_updating = m_updating;
    m_updating = true;
    // With a file the heads box chooses how to split the file's d_model (0 = what the file says).
    m_heads->setMinimum(file ? 0 : 1);
    m_heads->setSpecialValueText(file ? tr("from file") : QString());
    m_heads->setValue(file ? m_file_heads_value : m_heads_value);
    m_heads_is_file = file;
    m_updating = was_updating;
    m_d_model->setEnabled(!file);
    m_input_dim->setEnabled(!file);
    m_seed->setEnabled(m_weights->currentIndex() == kRandom);
    m_layer->setEnabled(file && m_layer->maximum() > 0);
    m_custom_scale->setEnabled(m_scale->currentIndex() == kCustom);
}

void SettingsPanel::showModel(const ModelConfig& config, const QString& dir, std::int64_t parameters)
{
    const QLocale locale;
    const QString type = config.causal ? tr("%1, causal").arg(config.model_type) : config.model_type;
    const std::pair<QString, QString> rows[] = {
        {tr("Folder"), breakableText(QFileInfo(dir).fileName()).toHtmlEscaped()},
        {tr("Type"), type.toHtmlEscaped()},
        {tr("Layers"), locale.toString(config.num_layers)},
        {tr("Heads"), locale.toString(config.num_heads)},
        {tr("KV heads"), locale.toString(config.num_kv_heads)},
        {tr("Width"), tr("%1 (%2 per head)").arg(locale.toString(config.hidden_size)).arg(config.headDim())},
        {tr("Vocabulary"), locale.toString(config.vocab_size)},
        {tr("Positions"), locale.toString(config.max_positions)},
        {tr("Parameters"), locale.toString(qlonglong(parameters))},
    };
    QString html;
    for (const auto& [name, value] : rows)
        html += QStringLiteral("<tr><td style='color:#606060; padding-right:10px'>%1</td><td>%2</td></tr>")
                    .arg(name, value);
    m_model_info->setText(QStringLiteral("<table>%1</table>").arg(html));
    m_model_info->setToolTip(QDir::toNativeSeparators(dir));
    m_model_dir = dir;
    setModelShown(true);
}

QString SettingsPanel::modelInfoText() const
{
    QTextDocument document;
    document.setHtml(m_model_info->text());
    return document.toPlainText();
}

void SettingsPanel::clearModel()
{
    m_model_dir.clear();
    m_model_info->clear();
    setModelShown(false);
}

void SettingsPanel::setModelShown(bool shown)
{
    m_model_info->setVisible(shown);
    m_close_model->setVisible(shown);
    m_open_model->setText(shown ? tr("Open another model folder…") : tr("Open model folder…"));
    for (QWidget* row : m_weight_rows)
        m_form->setRowVisible(row, !shown);
}

}  // namespace attn
