#include "ui/views/compare/CompareView.h"

#include "core/analysis/CompareData.h"
#include "core/analysis/HeadTables.h"
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
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <limits>

namespace attn {

struct CompareView::ArrivedComparison {
    CompareSide a;
    CompareSide b;
    std::shared_ptr<const HeadComparison> comparison;
};

CompareView::CompareView(QWidget* parent) : QWidget(parent)
{
    m_figure = new CompareFigure(this);
    m_table = new HeadMetricsTable(this);
    m_similarity = new HeadSimilarityView(this);
    buildControls();

    m_tables_note = new QLabel(this);
    m_tables_note->setWordWrap(true);
    m_tables_note->hide();
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_table);
    bottom->addWidget(m_similarity);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    auto* tables = new QWidget(this);
    auto* tables_layout = new QVBoxLayout(tables);
    tables_layout->setContentsMargins(0, 0, 0, 0);
    tables_layout->addWidget(m_tables_note);
    tables_layout->addWidget(bottom, 1);
    m_split = new QSplitter(Qt::Vertical, this);
    m_split->addWidget(m_figure);
    m_split->addWidget(tables);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 1);
    m_split->setCollapsible(0, false);
    m_split->handle(1)->setToolTip(tr("Drag to show or hide the head metrics and similarity"));
    m_table->setMinimumHeight(90);  // the header and about three heads; it scrolls
    m_similarity->setMinimumHeight(90);
    static_cast<QVBoxLayout*>(layout())->addWidget(m_split, 1);
    connect(m_split, &QSplitter::splitterMoved, this, [this] { m_split_sized = true; });

    connect(m_table, &HeadMetricsTable::headPicked, this, &CompareView::pickHead);
    connect(m_table, &HeadMetricsTable::headPickedB, this, [this](int head) { setHeads(m_head_a, head); });
    connect(m_similarity, &HeadSimilarityView::headsPicked, this, &CompareView::setHeads);
}

CompareView::~CompareView() = default;  // the tables under way stop at their next check

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
    adoptResult(std::move(result));
}

void CompareView::adoptResult(std::shared_ptr<const AttentionResult> result)
{
    const bool first = !m_result;
    const bool was_model = m_result && isModelLayer(*m_result);
    m_result = std::move(result);
    if (!m_result)
        return;
    if (first || was_model != isModelLayer(*m_result))
        syncVariantControls();
    if (usesOtherSettings())
        requestVariant();  // refreshes when B is there
    else
        refresh();
    startTables();  // after the comparison: what the view shows first
}

void CompareView::startTables()
{
    m_tables_job.supersede();
    const AttentionResult& result = *m_result;
    // Up to this many weights x heads (12 heads at ~170 tokens, a few milliseconds) the tables
    // are computed at once: typing a short sentence never shows "computing".
    constexpr std::int64_t kInlineCells = std::int64_t(1) << 22;
    const std::int64_t cells = std::int64_t(result.numHeads()) * result.numHeads() * result.seqLen() * result.keyLen();
    if (result.trace.keepsEveryHead() && cells <= kInlineCells) {
        m_tables_pending = false;
        showTables(HeadTables::compute(result));
        return;
    }
    m_tables_pending = true;
    m_table->setMetrics({});  // another input's numbers would pass for this one's
    m_similarity->setDivergence({});
    const QLocale locale;
    m_tables_note->setText(tr("Computing the metrics and similarity of %1 heads over %2 tokens\u2026")
                               .arg(result.numHeads())
                               .arg(locale.toString(result.seqLen())));
    m_tables_note->show();
    m_tables_job.start(
        [result = m_result](const auto& ticket) -> std::optional<HeadTables> {
            HeadTables tables =
                HeadTables::compute(*result, HeadTables::kDivergenceCells, [&ticket] { return ticket.isStale(); });
            if (!tables.complete)
                return std::nullopt;
            return tables;
        },
        [this](HeadTables tables) {
            m_tables_pending = false;
            showTables(tables);
        });
}

void CompareView::showTables(const HeadTables& tables)
{
    m_table->setMetrics(tables.metrics);
    m_similarity->setDivergence(tables.divergence);
    if (tables.divergence_rows < tables.query_rows) {
        const QLocale locale;
        m_tables_note->setText(tr("Head similarity: the mean over %1 of the %2 queries (evenly spaced blocks of "
                                  "queries, every pair of heads on the same rows); the metrics use every query.")
                                   .arg(locale.toString(tables.divergence_rows), locale.toString(tables.query_rows)));
        m_tables_note->show();
    } else {
        m_tables_note->clear();
        m_tables_note->hide();
    }
}

void CompareView::computeNow()
{
    if (m_pending) {
        std::shared_ptr<const AttentionResult> pending = std::move(m_pending);
        m_pending.reset();
        adoptResult(std::move(pending));  // as if the view had been opened
    }
    showArrived();
    if (m_comparison_pending) {
        m_compute_now = true;  // startComparison computes here
        refresh();
        m_compute_now = false;
    }
    if (m_tables_pending && m_result) {
        m_tables_pending = false;
        showTables(m_tables_job.computeNow([result = m_result](const auto&) { return HeadTables::compute(*result); }));
    }
}

void CompareView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    sizeSplit();
}

// Until the user moves the split: the heads being compared get 70 % of the height; in a short
// window (the smallest, about 290 pixels for both) all of it, the tables folded away under the
// split's handle (drag it up to show them), as two heatmaps and three lines of tables in that
// height would all be too small to read.
void CompareView::sizeSplit()
{
    if (m_split_sized || m_split->height() <= 0)
        return;
    const int height = m_split->height();
    const QSignalBlocker quiet(m_split);
    if (height < kFoldTablesBelow)
        m_split->setSizes({height, 0});
    else
        m_split->setSizes({height * 7 / 10, height - height * 7 / 10});
}

bool CompareView::tablesFolded() const
{
    return m_split->sizes().value(1) == 0;
}

void CompareView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    sizeSplit();
    if (m_pending)
        setResult(std::move(m_pending));
    else if (m_comparison_pending)
        refresh();
    else
        showArrived();
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
                                 ? CompareData::describeDifference(m_result->config, m_variant->config)
                                 : QString();
    // A whole model's sides are (layer, head) pairs: both titles name their layer.
    const bool model = isModelLayer(*m_result);
    const CompareSide side_a{m_result, m_head_a, model ? tr("layer %1").arg(m_result->config.layer) : QString()};
    const CompareSide side_b{result_b, m_head_b,
                             model ? tr("layer %1").arg(result_b->config.layer)
                             : settings.isEmpty() && usesOtherSettings() && m_variant ? tr("same settings")
                                                                                      : settings};
    startComparison(side_a, side_b);
    m_table->setComparedHeads(m_head_a, result_b == m_result ? m_head_b : -1);
}

void CompareView::startComparison(const CompareSide& a, const CompareSide& b)
{
    m_comparison_job.supersede();
    m_arrived.reset();  // an older pair's
    if (!CompareFigure::recomputesHeads(a, b) || m_compute_now) {
        m_comparison_pending = false;
        const Status shown = m_figure->setComparison(a, b);
        m_status->setText(shown ? QString() : shown.error());
        return;
    }
    // A long input's heads recomputed on a worker; the last comparison stays until they are here.
    m_comparison_pending = true;
    m_status->setText(tr("Computing heads %1 and %2\u2026").arg(a.head).arg(b.head));
    if (!isVisible())
        return;  // when the view is shown (showEvent)
    m_comparison_job.start(
        [a, b](const auto&) { return CompareFigure::computeComparison(a, b); },
        [this, a, b](Result<std::shared_ptr<const HeadComparison>> comparison) {
            m_comparison_pending = false;
            if (!comparison) {
                m_status->setText(comparison.error());
                return;
            }
            m_arrived = std::make_shared<ArrivedComparison>(ArrivedComparison{a, b, comparison.value()});
            if (isVisible())  // a hidden plot would reduce the heads here, on the GUI thread
                showArrived();
        });
}

void CompareView::showArrived()
{
    if (!m_arrived)
        return;
    const std::shared_ptr<ArrivedComparison> arrived = std::move(m_arrived);
    m_arrived.reset();
    m_figure->showComparison(arrived->a, arrived->b, arrived->comparison);
    m_status->clear();
}

void CompareView::renderFigure(QPainter* painter, const QRectF& target)
{
    m_figure->paint(painter, target);
}

void CompareView::showResult(const ViewInput& input)
{
    setResult(input.shown);  // it also defers while hidden
}

void CompareView::renderPicture(QPainter* painter, const QRectF& target)
{
    renderFigure(painter, target);
}

QSize CompareView::pictureSize() const
{
    return figure()->size();
}

QString CompareView::exportName() const
{
    return QStringLiteral("attention-compare.png");
}

}  // namespace attn
