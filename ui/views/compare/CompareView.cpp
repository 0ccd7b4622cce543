#include "ui/views/compare/CompareView.h"

#include "core/analysis/AttentionDisplay.h"
#include "core/analysis/CompareModel.h"
#include "core/analysis/HeadMetrics.h"
#include "core/pipeline/AttentionResult.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/compare/HeadMetricsTable.h"
#include "ui/views/compare/HeadSimilarityView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <limits>

namespace attn {

CompareView::CompareView(QWidget* parent) : QWidget(parent)
{
    m_figure = new CompareFigure(this);
    m_table = new HeadMetricsTable(this);
    m_similarity = new HeadSimilarityView(this);
    buildControls();

    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_table);
    bottom->addWidget(m_similarity);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_figure);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({640, 360});  // the heads being compared get most of the height
    static_cast<QVBoxLayout*>(layout())->addWidget(split, 1);

    connect(m_table, &HeadMetricsTable::headPicked, this, &CompareView::pickHead);
    connect(m_table, &HeadMetricsTable::headPickedB, this, [this](int head) { setHeads(m_head_a, head); });
    connect(m_similarity, &HeadSimilarityView::headsPicked, this, &CompareView::setHeads);
}

CompareView::~CompareView() = default;

void CompareView::buildControls()
{
    m_choose_a = new QComboBox(this);
    m_choose_b = new QComboBox(this);
    m_choose_a->setToolTip(tr("Head A"));
    m_choose_b->setToolTip(tr("Head B"));
    m_swap = new QToolButton(this);
    m_swap->setText(QStringLiteral("\u21c4"));
    m_swap->setToolTip(tr("Swap A and B"));
    m_status = new QLabel(this);

    auto* heads = new QHBoxLayout;
    heads->addWidget(new QLabel(tr("A:"), this));
    heads->addWidget(m_choose_a);
    heads->addWidget(m_swap);
    heads->addWidget(new QLabel(tr("B:"), this));
    heads->addWidget(m_choose_b);
    heads->addSpacing(12);
    heads->addWidget(m_status, 1);

    m_other = new QCheckBox(tr("B under other settings:"), this);
    m_other->setToolTip(tr("Compute side B from the same input with other settings"));
    m_b_causal = new QCheckBox(tr("causal"), this);
    m_b_causal->setToolTip(tr("Side B with the causal (decoder) mask on or off"));
    m_b_seed = new QSpinBox(this);
    m_b_seed->setToolTip(tr("Seed of side B's random weights and embeddings"));
    m_b_seed->setRange(0, std::numeric_limits<int>::max());
    m_b_seed->setPrefix(tr("seed "));
    m_b_layer = new QSpinBox(this);
    m_b_layer->setRange(0, 9999);
    m_b_layer->setPrefix(tr("layer "));
    m_b_layer->setToolTip(tr("Layer of the weight file (files with several layers)"));
    m_b_file = new QLineEdit(this);
    m_b_file->setPlaceholderText(tr("same weights as A"));
    m_b_file->setToolTip(tr("Another weight file for B (.safetensors, .npz, .json); empty = A's weights"));
    m_b_browse = new QToolButton(this);
    m_b_browse->setText(QStringLiteral("\u2026"));
    m_b_browse->setToolTip(tr("Choose a weight file for B"));
    m_b_error = new QLabel(this);
    m_b_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_b_error->setWordWrap(true);

    auto* variant = new QHBoxLayout;
    variant->addWidget(m_other);
    variant->addWidget(m_b_causal);
    variant->addWidget(m_b_seed);
    variant->addWidget(m_b_layer);
    variant->addWidget(m_b_file, 1);
    variant->addWidget(m_b_browse);
    variant->addStretch();  // with a model only the layer is shown: it keeps its size
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(heads);
    layout->addLayout(variant);
    layout->addWidget(m_b_error);
    m_b_error->hide();

    connect(m_choose_a, &QComboBox::activated, this, [this](int index) { setHeads(index, m_head_b); });
    connect(m_choose_b, &QComboBox::activated, this, [this](int index) { setHeads(m_head_a, index); });
    connect(m_swap, &QToolButton::clicked, this, [this] { setHeads(m_head_b, m_head_a); });
    connect(m_other, &QCheckBox::toggled, this, &CompareView::setOtherSettings);
    connect(m_b_causal, &QCheckBox::toggled, this, &CompareView::requestVariant);
    connect(m_b_seed, &QSpinBox::valueChanged, this, &CompareView::requestVariant);
    connect(m_b_layer, &QSpinBox::valueChanged, this, &CompareView::requestVariant);
    connect(m_b_file, &QLineEdit::editingFinished, this, &CompareView::requestVariant);
    connect(m_b_browse, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Weights for side B"), m_b_file->text(),
                                                          tr("Weight files (*.safetensors *.npz *.json)"));
        if (!path.isEmpty()) {
            m_b_file->setText(path);
            requestVariant();
        }
    });
    setOtherSettings(false);
}

bool CompareView::usesOtherSettings() const
{
    return m_other->isChecked();
}

std::shared_ptr<const AttentionResult> CompareView::resultB() const
{
    return usesOtherSettings() && m_variant ? m_variant : m_result;
}

QString CompareView::variantError() const
{
    return m_b_error->isHidden() ? QString() : m_b_error->text();
}

void CompareView::setResult(std::shared_ptr<const AttentionResult> result)
{
    // The metrics, the h x h divergences and a result under other settings cost more than a
    // repaint (about 1 s at 1,024 tokens and 12 heads): a hidden view catches up when shown.
    if (!isVisible()) {
        m_pending = std::move(result);
        return;
    }
    m_pending.reset();
    const bool first = !m_result;
    const bool was_model = m_result && isModelLayer(*m_result);
    m_result = std::move(result);
    if (!m_result)
        return;
    if (first || was_model != isModelLayer(*m_result))
        syncVariantControls();
    if (m_result->trace.keepsEveryHead()) {
        m_table->setMetrics(computeHeadMetrics(m_result->trace.weights));
        m_similarity->setHeads(m_result->trace.weights);
    } else {
        // A long input keeps one head's weights: the others are recomputed one at a time for their
        // metrics. The similarity of every pair of heads would need them all at once: left empty.
        std::vector<HeadMetric> metrics;
        for (int head = 0; head < m_result->numHeads(); ++head)
            metrics.push_back(computeHeadMetrics(*AttentionDisplay::headWeights(*m_result, head)));
        m_table->setMetrics(metrics);
        m_similarity->setHeads({});
    }
    if (usesOtherSettings())
        requestVariant();  // refreshes when B is there
    else
        refresh();
}

void CompareView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_pending)
        setResult(std::move(m_pending));
}

void CompareView::setSentence(const QString& sentence)
{
    m_sentence = sentence;
}

void CompareView::setColorMap(ColorMaps::Map map)
{
    m_figure->setColorMap(map);
}

void CompareView::setReduction(CellReduction how)
{
    m_figure->setReduction(how);
}

void CompareView::setColorScale(ColorScale scale)
{
    m_figure->setColorScale(scale);
}

void CompareView::setHeads(int head_a, int head_b)
{
    if (head_a == m_head_a && head_b == m_head_b)
        return;
    m_head_a = head_a;
    m_head_b = head_b;
    refresh();
    emit headsChanged(m_head_a, m_head_b);
}

void CompareView::pickHead(int head)
{
    if (usesOtherSettings())
        setHeads(head, head);  // the same head under the other settings
    else if (head != m_head_a)
        setHeads(head, m_head_a);
}

void CompareView::setOtherSettings(bool enabled)
{
    {
        const QSignalBlocker blocker(m_other);
        m_other->setChecked(enabled);
    }
    for (QWidget* w : std::initializer_list<QWidget*>{m_b_causal, m_b_seed, m_b_layer, m_b_file, m_b_browse})
        w->setEnabled(enabled);
    if (enabled) {
        syncVariantControls();
        requestVariant();
    } else {
        m_variant.reset();
        m_awaiting_variant = false;
        m_b_error->hide();
        refresh();
    }
}

bool CompareView::isModelLayer(const AttentionResult& result)
{
    return result.config.weight_source == RunSettings::WeightSource::File &&
           QFileInfo(result.config.weights_file).isDir();
}

void CompareView::syncVariantControls()
{
    if (!m_result)
        return;
    const RunSettings& config = m_result->config;
    const QSignalBlocker b1(m_b_causal), b2(m_b_seed), b3(m_b_layer), b4(m_b_file);
    // A whole model's side B is another (layer, head) of the same run: only the layer is B's own.
    const bool model = isModelLayer(*m_result);
    for (QWidget* w : std::initializer_list<QWidget*>{m_b_causal, m_b_seed, m_b_file, m_b_browse})
        w->setVisible(!model);
    m_b_layer->setRange(0, model ? std::max(0, m_result->layer_count - 1) : 9999);
    m_b_layer->setToolTip(model ? tr("The model's layer of side B: head B of this layer")
                                : tr("Layer of the weight file (files with several layers)"));
    // Start B as A's twin with causal flipped: the most common question, and a visible difference.
    m_b_causal->setChecked(!config.causal);
    m_b_seed->setValue(int(std::min<std::uint64_t>(config.seed, std::uint64_t(std::numeric_limits<int>::max()))));
    m_b_layer->setValue(config.layer);
    m_b_file->clear();
}

RunSettings CompareView::variantConfig() const
{
    RunSettings config = m_result->config;
    config.causal = m_b_causal->isChecked();
    config.seed = std::uint64_t(m_b_seed->value());
    const QString file = m_b_file->text().trimmed();
    if (!file.isEmpty()) {
        config.weight_source = RunSettings::WeightSource::File;
        config.weights_file = file;
    }
    config.layer = m_b_layer->value();
    return config;
}

void CompareView::requestVariant()
{
    if (!m_result || !usesOtherSettings())
        return;
    m_awaiting_variant = true;
    emit variantRequested(variantConfig(), m_result, m_sentence);  // may be answered before it returns
}

void CompareView::showVariant(std::shared_ptr<const AttentionResult> variant)
{
    if (!m_awaiting_variant || !variant)
        return;  // other settings were switched off meanwhile
    m_awaiting_variant = false;
    m_variant = std::move(variant);
    m_b_error->clear();
    m_b_error->hide();
    refresh();
}

void CompareView::showVariantError(const QString& message)
{
    if (!m_awaiting_variant)
        return;
    m_awaiting_variant = false;
    // Keep the last good B while it still fits the current input.
    if (m_variant && (m_variant->seqLen() != m_result->seqLen() || m_variant->keyLen() != m_result->keyLen()))
        m_variant.reset();
    m_b_error->setText(tr("B: %1%2").arg(message, m_variant ? tr(" (showing the last good settings)") : QString()));
    m_b_error->show();
    refresh();
}

void CompareView::refillChoosers()
{
    auto fill = [](QComboBox* box, int heads, int current) {
        const QSignalBlocker blocker(box);
        if (box->count() != heads) {
            box->clear();
            for (int h = 0; h < heads; ++h)
                box->addItem(tr("head %1").arg(h));
        }
        box->setCurrentIndex(current);
    };
    fill(m_choose_a, m_result->numHeads(), m_head_a);
    fill(m_choose_b, resultB()->numHeads(), m_head_b);
}

void CompareView::refresh()
{
    if (!m_result)
        return;
    const auto result_b = resultB();
    // Heads that no longer exist (fewer heads than before) fall back into range.
    const int heads_a = m_result->numHeads();
    const int heads_b = result_b->numHeads();
    const int a = std::clamp(m_head_a, 0, std::max(0, heads_a - 1));
    const int b = std::clamp(m_head_b, 0, std::max(0, heads_b - 1));
    if (a != m_head_a || b != m_head_b) {
        m_head_a = a;
        m_head_b = b;
        emit headsChanged(a, b);
    }
    refillChoosers();

    const QString settings = usesOtherSettings() && m_variant
                                 ? CompareModel::describeDifference(m_result->config, m_variant->config)
                                 : QString();
    // A whole model's sides are (layer, head) pairs: both titles name their layer.
    const bool model = isModelLayer(*m_result);
    const Status shown =
        m_figure->setComparison({m_result, m_head_a, model ? tr("layer %1").arg(m_result->config.layer) : QString()},
                                {result_b, m_head_b,
                                 model ? tr("layer %1").arg(result_b->config.layer)
                                 : settings.isEmpty() && usesOtherSettings() && m_variant ? tr("same settings")
                                                                                          : settings});
    m_status->setText(shown ? QString() : shown.error());
    m_table->setComparedHeads(m_head_a, result_b == m_result ? m_head_b : -1);
}

void CompareView::renderFigure(QPainter* painter, const QRectF& target)
{
    m_figure->paint(painter, target);
}

}  // namespace attn
