#include "ui/views/model/ModelView.h"

#include "core/analysis/AttentionDisplay.h"

#include "ui/views/model/ModelGridCanvas.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <optional>

namespace attn {
namespace {

// A table cell shown with 3 decimals and sorted by its exact number.
class NumberItem : public QTableWidgetItem {
public:
    explicit NumberItem(double value, int decimals = 3)
        : QTableWidgetItem(QString::number(value, 'f', decimals)), m_value(value)
    {
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        setData(Qt::UserRole, value);
    }
    bool operator<(const QTableWidgetItem& other) const override
    {
        return m_value < other.data(Qt::UserRole).toDouble();
    }

private:
    double m_value;
};

enum Column {
    HeadColumn,
    EntropyColumn,
    MaxColumn,
    DiagonalColumn,
    PreviousColumn,
    DuplicateColumn,
    InductionColumn,
    FirstColumn,
    ColumnCount
};

}  // namespace

ModelView::ModelView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);

    m_empty = new QLabel(tr("Open a model folder (File › Open model folder…) to see every layer and head"), this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setStyleSheet(QStringLiteral("color: #5f6b78; font-size: 14px"));
    m_stack->addWidget(m_empty);

    auto* content = new QWidget(this);
    auto* column = new QVBoxLayout(content);
    column->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(8, 4, 8, 0);
    m_reduction = new QComboBox(content);
    m_reduction->addItem(tr("Pixel: max of its cells"), int(ThumbnailReduction::Max));
    m_reduction->addItem(tr("Pixel: mean of its cells"), int(ThumbnailReduction::Mean));
    m_reduction->setToolTip(
        tr("When a head has more tokens than its thumbnail has pixels, each pixel shows the largest (or the mean) "
           "weight of the cells under it"));
    m_scale = new QComboBox(content);
    for (ColorScale scale : ColorScales::all()) {
        m_scale->addItem(ColorScales::title(scale), int(scale));
        m_scale->setItemData(m_scale->count() - 1, ColorScales::toolTip(scale), Qt::ToolTipRole);
    }
    m_scale->setToolTip(tr("Which weights set the top of the colour scale shared by every layer and head"));
    m_marks = new QComboBox(content);
    m_marks->addItem(tr("No frames"), QString());
    for (HeadScoreKind kind :
         {HeadScoreKind::Previous, HeadScoreKind::Duplicate, HeadScoreKind::Induction, HeadScoreKind::First})
        m_marks->addItem(tr("Frame by %1 score").arg(headScoreKindKey(kind)), headScoreKindKey(kind));
    m_marks->setToolTip(
        tr("Frame every head as strongly as its score: previous-token, duplicate-token, induction "
           "(TransformerLens's head detector) or the weight on the first token"));
    m_order = new QComboBox(content);
    m_order->addItem(tr("Heads in order"), QString());
    for (const QString& name : headScoreNames())
        m_order->addItem(name == u"entropy" ? tr("Sort by entropy") : tr("Sort by %1 score").arg(name), name);
    m_order->setToolTip(
        tr("Draw each layer's heads sorted by a score, highest on the left; each thumbnail "
           "names its head"));
    // One line under the grid, shown while it fits (fitHint): wrapped beside the choosers in a
    // narrow window it took six lines from the grid. A thumbnail's hover text says the same.
    m_hint = new QLabel(tr("Rows are layers, columns heads. Hover a head for its metrics; click it (or Enter) "
                           "to open it."),
                        content);
    m_hint->setStyleSheet(QStringLiteral("color: #5f6b78"));
    m_hint->setMinimumWidth(0);
    m_hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // the window's width is not set by it
    // The choosers as narrow as their shortest useful text: the window's smallest width is not set
    // by this bar (the full text is in each list).
    for (QComboBox* box : {m_order, m_marks, m_reduction, m_scale})
        box->setMinimumWidth(72);  // their full width when there is room
    bar->addStretch(1);
    bar->addWidget(m_order);
    bar->addWidget(m_marks);
    bar->addWidget(m_reduction);
    bar->addWidget(m_scale);
    column->addLayout(bar);

    auto* splitter = new QSplitter(Qt::Vertical, content);
    m_split = splitter;
    m_canvas = new ModelGridCanvas(splitter);
    auto* metrics = new QWidget(splitter);
    auto* metrics_layout = new QVBoxLayout(metrics);
    metrics_layout->setContentsMargins(8, 2, 8, 4);
    m_table_title = new QLabel(metrics);
    m_scope = new QComboBox(metrics);
    m_scope->addItem(tr("Heads of the selected layer"));
    m_scope->addItem(tr("Heads of every layer"));
    m_scope->setToolTip(tr("List every layer's heads to sort the whole model's heads by a score"));
    m_scope->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);  // the hint beside it when there is room
    auto* table_bar = new QHBoxLayout;
    table_bar->addWidget(m_table_title);
    table_bar->addSpacing(12);
    m_hint->setParent(metrics);
    table_bar->addWidget(m_hint, 1);
    table_bar->addWidget(m_scope);
    metrics_layout->addLayout(table_bar);
    m_table = new QTableWidget(0, ColumnCount, metrics);
    m_table->setHorizontalHeaderLabels({tr("Head"), tr("Entropy"), tr("Max"), tr("Diagonal"), tr("Previous"),
                                        tr("Duplicate"), tr("Induction"), tr("First")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setSortingEnabled(true);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->setMinimumHeight(tableHeightFor(kTableMinimumRows));
    m_table->horizontalHeader()->setSortIndicator(HeadColumn, Qt::AscendingOrder);  // head order until the user sorts
    m_table->setToolTip(
        tr("Means over the query rows: entropy of the row (0 = one key, ln T = uniform), its largest weight, the "
           "weight on the query itself and on the first token. Previous, Duplicate and Induction are "
           "TransformerLens's head-detector scores on the input's own ids, as --json's head_scores and the frames: "
           "the share of all the head's weight on the token before the query, on earlier copies of the query's "
           "token, and on the tokens right after them (give a sequence twice to find induction heads). "
           "Double-click a row to open the head."));
    metrics_layout->addWidget(m_table);
    splitter->addWidget(m_canvas);
    splitter->addWidget(metrics);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setCollapsible(0, false);
    splitter->setCollapsible(1, false);
    connect(splitter, &QSplitter::splitterMoved, this, [this] { m_split_sized = true; });
    column->addWidget(splitter, 1);
    m_stack->addWidget(content);

    connect(m_canvas, &ModelGridCanvas::headActivated, this, &ModelView::headActivated);
    connect(m_canvas, &ModelGridCanvas::headMenuRequested, this, &ModelView::headMenuRequested);
    connect(m_canvas, &ModelGridCanvas::currentChanged, this, [this](int layer, int) { selectLayer(layer); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (QTableWidgetItem* item = m_table->item(row, HeadColumn)) {
            const int heads = std::max(1, m_canvas->gridPainter().numHeads());
            const int index = item->data(Qt::UserRole).toInt();  // layer x heads + head
            emit headActivated(index / heads, index % heads);
        }
    });
    connect(m_marks, &QComboBox::currentIndexChanged, this, &ModelView::updateMarks);
    connect(m_order, &QComboBox::currentIndexChanged, this, &ModelView::updateMarks);
    connect(m_scope, &QComboBox::activated, this, [this] {
        if (hasModel())
            showLayerMetrics();
    });
    connect(m_reduction, &QComboBox::activated, this, [this](int index) {
        m_canvas->gridPainter().setReduction(ThumbnailReduction(m_reduction->itemData(index).toInt()));
        m_canvas->update();
    });
    connect(m_scale, &QComboBox::activated, this, [this](int index) {
        m_canvas->gridPainter().setColorScale(ColorScale(m_scale->itemData(index).toInt()));
        m_canvas->update();
    });
    clearModel();
}

bool ModelView::hasModel() const
{
    return m_canvas->gridPainter().run() != nullptr;
}

void ModelView::setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    if (!run || run->numLayers() == 0 || run->seqLen() == 0)
        return clearModel();
    m_tokens = tokens;
    const AttentionMaps& maps = run->attention;
    const int seq_len = maps.seqLen();
    const QString caption =
        tr("%1 × %2 · %3%4")
            .arg(maps.numLayers() == 1 ? tr("1 layer") : tr("%1 layers").arg(maps.numLayers()),
                 maps.numHeads() == 1 ? tr("1 head") : tr("%1 heads").arg(maps.numHeads()),
                 seq_len == 1 ? tr("1 token") : tr("%1 tokens").arg(seq_len),
                 !maps.isCausal()           ? QString()
                 : maps.slidingWindow() > 0 ? tr(" · causal, sliding window %1").arg(maps.slidingWindow())
                                            : tr(" · causal"));
    m_canvas->setTokens(tokens);
    m_canvas->setRun(run, caption);
    m_layer = std::clamp(m_layer, 0, maps.numLayers() - 1);
    m_stack->setCurrentIndex(1);
    sizeSplit();  // the table's rows follow the number of heads
    // Until this run's scores arrive the grid keeps the previous run's order and frames when the
    // shapes agree (typing a character moves little), and the table says it is computing.
    m_tables.reset();
    ModelGridPainter& grid = m_canvas->gridPainter();
    if (grid.headMarks().size() != size_t(maps.numLayers() * maps.numHeads()))
        grid.setHeadMarks({}, {});
    showLayerMetrics();
    m_tables_job.start([run = std::move(run)](const auto&) { return computeTables(*run); },
                       [this](std::shared_ptr<const HeadTables> tables) { setTables(std::move(tables)); });
}

std::shared_ptr<const ModelView::HeadTables> ModelView::computeTables(const ModelRun& run)
{
    auto tables = std::make_shared<HeadTables>();
    // Scores and metrics are defined on distributions: value-weighted maps are read row-normalised.
    std::optional<AttentionMaps> normalised;
    if (run.value_norms)
        normalised = AttentionDisplay::rowNormalisedMaps(run.attention);
    const AttentionMaps& maps = normalised ? *normalised : run.attention;
    tables->scores = HeadScores::compute(maps, run.token_ids);
    tables->metrics.reserve(size_t(maps.numLayers() * maps.numHeads()));
    for (int layer = 0; layer < maps.numLayers(); ++layer)
        for (int head = 0; head < maps.numHeads(); ++head)
            tables->metrics.push_back(computeHeadMetrics(maps, layer, head));
    return tables;
}

void ModelView::setTables(std::shared_ptr<const HeadTables> tables)
{
    m_tables = std::move(tables);
    m_canvas->setMetrics(m_tables->metrics);
    m_canvas->setScores(m_tables->scores);
    updateMarks();
    showLayerMetrics();
    emit headTablesComputed();
}

void ModelView::computeNow()
{
    const std::shared_ptr<const ModelRun>& run = m_canvas->gridPainter().run();
    if (m_tables || !run || !hasModel())
        return;
    setTables(m_tables_job.computeNow([&run](const auto&) { return computeTables(*run); }));
}

ModelView::~ModelView() = default;

void ModelView::clearModel()
{
    m_tables_job.supersede();
    m_tables.reset();
    m_canvas->setRun(nullptr, m_empty->text());  // what an exported picture of the empty tab says
    m_tokens.clear();
    m_table->setRowCount(0);
    m_stack->setCurrentIndex(0);
}

void ModelView::setColorMap(ColorMaps::Map map)
{
    m_canvas->gridPainter().setColorMap(map);
    m_canvas->update();
}

void ModelView::updateMarks()
{
    const QString mark = m_marks->currentData().toString();
    const QString order = m_order->currentData().toString();
    if (!m_tables)
        return;  // applied when this run's scores arrive
    const std::vector<HeadScore>& scores = m_tables->scores;
    ModelGridPainter& grid = m_canvas->gridPainter();
    grid.setHeadMarks(headScoreValues(scores, mark), mark);
    grid.setHeadOrder(headScoreValues(scores, order), order);
    m_canvas->update();
}

void ModelView::setHiddenKeys(const QList<int>& positions)
{
    m_canvas->gridPainter().setHiddenKeys(positions);
    m_canvas->update();
}

void ModelView::setAggregate(HeadAggregate aggregate)
{
    m_canvas->gridPainter().setAggregate(headFusionOf(aggregate));
    m_canvas->update();
}

void ModelView::selectLayer(int layer)
{
    if (layer < 0 || (hasModel() && layer >= m_canvas->gridPainter().numLayers()))
        return;
    m_layer = layer;                                 // before a model's first run too: its table starts there
    if (hasModel() && m_scope->currentIndex() == 0)  // every layer's list stays as it is
        showLayerMetrics();
}

void ModelView::showLayerMetrics()
{
    const ModelGridPainter& grid = m_canvas->gridPainter();
    const int heads = grid.numHeads();
    const bool every_layer = m_scope->currentIndex() == 1;
    const int first_layer = every_layer ? 0 : m_layer;
    const int layers = every_layer ? grid.numLayers() : 1;
    const QString title = every_layer ? tr("Head metrics of every layer") : tr("Head metrics of layer %1").arg(m_layer);
    m_table_title->setText(m_tables ? title : tr("%1 (computing…)").arg(title));
    m_table->setSortingEnabled(false);  // rows are filled in head order, then sorted as the user chose
    m_table->setRowCount(m_tables ? layers * heads : 0);
    if (!m_tables)
        return;
    for (int l = 0; l < layers; ++l)
        for (int head = 0; head < heads; ++head) {
            const int layer = first_layer + l;
            const int row = l * heads + head;
            const HeadMetric& m = m_tables->metrics[size_t(layer * heads + head)];
            const HeadScore& score = m_tables->scores[size_t(layer * heads + head)];
            auto* head_item = new NumberItem(layer * heads + head, 0);
            head_item->setText(QStringLiteral("L%1 H%2").arg(layer).arg(head));
            m_table->setItem(row, HeadColumn, head_item);
            m_table->setItem(row, EntropyColumn, new NumberItem(m.entropy));
            m_table->setItem(row, MaxColumn, new NumberItem(m.max));
            m_table->setItem(row, DiagonalColumn, new NumberItem(m.diagonal));
            m_table->setItem(row, PreviousColumn, new NumberItem(score.previous));
            m_table->setItem(row, DuplicateColumn, new NumberItem(score.duplicate));
            m_table->setItem(row, InductionColumn, new NumberItem(score.induction));
            m_table->setItem(row, FirstColumn, new NumberItem(m.first));
        }
    m_table->setSortingEnabled(true);
}

int ModelView::tableHeightFor(int rows) const
{
    return m_table->horizontalHeader()->sizeHint().height() + rows * m_table->verticalHeader()->defaultSectionSize() +
           2 * m_table->frameWidth() + 2;
}

void ModelView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitHint();
    sizeSplit();
}

void ModelView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    fitHint();
    sizeSplit();
}

// The hint only on one line, between the table's title and its scope.
void ModelView::fitHint()
{
    const int room = width() - m_table_title->sizeHint().width() - m_scope->sizeHint().width() - 48;
    m_hint->setVisible(m_hint->fontMetrics().horizontalAdvance(m_hint->text()) <= room);
}

// Until the user moves the split: the table shows a layer's heads (up to kTableRows of them, and
// at least kTableMinimumRows) but never more than two fifths of the height; the grid the rest.
void ModelView::sizeSplit()
{
    const int height = m_split->height();
    if (m_split_sized || height <= 0)
        return;
    const int heads = std::max(1, m_canvas->gridPainter().numHeads());
    const int title = std::max(m_table_title->sizeHint().height(), m_scope->sizeHint().height()) + 12;
    const int wanted = title + tableHeightFor(std::clamp(heads, kTableMinimumRows, kTableRows));
    const int table = std::max(title + m_table->minimumHeight(), std::min(wanted, height * 2 / 5));
    const QSignalBlocker quiet(m_split);
    m_split->setSizes({height - table, table});
}

void ModelView::renderPicture(QPainter* painter, const QRectF& target)
{
    canvas()->gridPainter().paint(*painter, target, ModelGridPainter::Output::Picture);
}

QSize ModelView::pictureSize() const
{
    return canvas()->size();
}

QString ModelView::exportName() const
{
    return QStringLiteral("attention-model.png");
}

}  // namespace attn
