#include "ui/views/walkthrough/WalkthroughView.h"

#include "core/pipeline/AttentionResult.h"
#include "ui/views/walkthrough/ScoreBreakdownView.h"
#include "ui/views/walkthrough/WalkthroughHeaderView.h"
#include "ui/views/walkthrough/WalkthroughItemModel.h"
#include "ui/views/walkthrough/WalkthroughPainter.h"
#include "ui/views/walkthrough/WidestLabel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace attn {
namespace {

constexpr int kVisibleRows = 8;  // taller tables scroll inside their frame

// Secondary text (the formulas) in the palette's colours, light or dark: the text colour
// two thirds of the way from the background.
QColor mutedText(const QPalette& palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    const QColor back = palette.color(QPalette::Window);
    return QColor::fromRgbF(float(back.redF() + (text.redF() - back.redF()) * 2 / 3),
                            float(back.greenF() + (text.greenF() - back.greenF()) * 2 / 3),
                            float(back.blueF() + (text.blueF() - back.blueF()) * 2 / 3));
}

// A header that measures only the widest label (WalkthroughHeaderView), clickable and
// highlighting sections as QTableView's own.
QHeaderView* tableHeader(Qt::Orientation orientation, QTableView* table)
{
    auto* header = new WalkthroughHeaderView(orientation, table);
    header->setSectionsClickable(true);
    header->setHighlightSections(true);
    return header;
}

QString headerHtml(const WalkthroughStep& step, const QColor& formula_color)
{
    return QStringLiteral(
               "<span style=\"font-size:large; font-weight:600\">%1.&nbsp;%2</span>"
               "&nbsp;&nbsp;&nbsp;<i style=\"color:%4\">%3</i>")
        .arg(step.label.isEmpty() ? QString::number(step.number) : step.label)
        .arg(step.title.toHtmlEscaped(), step.formula.toHtmlEscaped(), formula_color.name());
}

}  // namespace

WalkthroughView::WalkthroughView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    // Selectors.
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(8, 6, 8, 6);
    m_head_spin = new QSpinBox(this);
    m_head_spin->setRange(0, 0);
    m_head_spin->setToolTip(tr("The head whose numbers are shown"));
    m_query_combo = new QComboBox(this);
    m_query_combo->setMinimumContentsLength(12);
    m_query_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_query_combo->setToolTip(tr("The query token: the row followed through every step"));
    m_precision_spin = new QSpinBox(this);
    m_precision_spin->setRange(0, 9);
    m_precision_spin->setValue(m_precision);
    m_precision_spin->setSuffix(tr(" decimals"));
    m_precision_spin->setToolTip(tr("Digits after the decimal point"));
    bar->addWidget(new QLabel(tr("Head"), this));
    bar->addWidget(m_head_spin);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Query token"), this));
    bar->addWidget(m_query_combo);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Precision"), this));
    bar->addWidget(m_precision_spin);
    bar->addStretch(1);
    layout->addLayout(bar);

    auto* scroll = new QScrollArea(this);
    m_scroll = scroll;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* page = new QWidget(scroll);
    m_page = page;
    page->installEventFilter(this);
    auto* steps = new QVBoxLayout(page);
    steps->setContentsMargins(10, 4, 10, 10);
    steps->setSpacing(4);
    m_summary = new QLabel(page);
    m_summary->setWordWrap(true);
    steps->addWidget(m_summary);

    const int number_width = QFontMetrics(font()).horizontalAdvance(QStringLiteral("-000.0000")) + 10;
    // Sections in the order shown: steps 1, 2, 2b (rotary positions), 3 … 10.
    std::vector<int> order;
    for (int s = 0; s < WalkthroughData::kStepCount; ++s) {
        order.push_back(s);
        if (s == 1)
            order.push_back(kRotationSection);
    }
    for (int s : order) {
        Section& section = m_sections[size_t(s)];
        section.header = new QLabel(page);
        section.header->setTextFormat(Qt::RichText);
        section.header->setContentsMargins(0, 10, 0, 2);
        steps->addWidget(section.header);
        section.unavailable = new QLabel(page);
        QFont italic = section.unavailable->font();  // the palette's text colour, light or dark
        italic.setItalic(true);
        section.unavailable->setFont(italic);
        section.unavailable->setWordWrap(true);
        section.unavailable->hide();
        steps->addWidget(section.unavailable);
        for (TableSlot& slot : section.tables) {
            slot.caption = new QLabel(page);
            slot.model = new WalkthroughItemModel(this);
            slot.view = new QTableView(page);
            slot.view->setHorizontalHeader(tableHeader(Qt::Horizontal, slot.view));
            slot.view->setVerticalHeader(tableHeader(Qt::Vertical, slot.view));
            slot.view->setModel(slot.model);
            slot.view->setSelectionMode(QAbstractItemView::NoSelection);
            slot.view->setEditTriggers(QAbstractItemView::NoEditTriggers);
            slot.view->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
            slot.view->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
            slot.view->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
            slot.view->horizontalHeader()->setDefaultSectionSize(number_width);
            slot.view->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
            slot.view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
            slot.view->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
            slot.view->viewport()->installEventFilter(this);  // the wheel goes on to the page at the table's end
            slot.caption->hide();
            slot.view->hide();
            steps->addWidget(slot.caption);
            steps->addWidget(slot.view, 0, Qt::AlignLeft);
            WalkthroughItemModel* model = slot.model;
            connect(slot.view, &QTableView::clicked, this, [this, model](const QModelIndex& index) {
                // Rows of this table are queries: a click follows that query.
                if (index.isValid() && model->table().highlighted_row >= 0)
                    userSelect(m_head, model->table().first_row + index.row());
            });
        }
        if (s == 2) {  // after the raw scores: which dimensions make them
            m_breakdown_caption = new QLabel(page);
            m_breakdown_caption->setWordWrap(true);
            m_breakdown_caption->setContentsMargins(0, 6, 0, 0);
            steps->addWidget(m_breakdown_caption);
            m_breakdown = new ScoreBreakdownView(page);
            steps->addWidget(m_breakdown);
        }
    }
    steps->addStretch(1);
    scroll->setWidget(page);
    layout->addWidget(scroll, 1);

    connect(m_head_spin, &QSpinBox::valueChanged, this, [this](int head) { userSelect(head, m_query); });
    connect(m_query_combo, &QComboBox::currentIndexChanged, this, [this](int query) {
        if (query >= 0)
            userSelect(m_head, query);
    });
    connect(m_precision_spin, &QSpinBox::valueChanged, this, &WalkthroughView::setPrecision);
    rebuild();
}

WalkthroughView::~WalkthroughView() = default;

WalkthroughItemModel* WalkthroughView::tableModel(int step, int table) const
{
    if (step < 1 || step > WalkthroughData::kStepCount || table < 0 || table >= kMaxTablesPerStep ||
        m_walk.steps.empty() || size_t(table) >= m_walk.step(step).tables.size())
        return nullptr;
    return m_sections[size_t(step - 1)].tables[size_t(table)].model;
}

WalkthroughItemModel* WalkthroughView::rotationTableModel(int table) const
{
    if (table < 0 || size_t(table) >= m_walk.rotation.tables.size())
        return nullptr;
    return m_sections[size_t(kRotationSection)].tables[size_t(table)].model;
}

QTableView* WalkthroughView::tableView(int step, int table) const
{
    return tableModel(step, table) ? m_sections[size_t(step - 1)].tables[size_t(table)].view : nullptr;
}

void WalkthroughView::setResult(std::shared_ptr<const AttentionResult> result)
{
    m_result = std::move(result);
    if (m_result) {
        m_head = std::clamp(m_head, 0, std::max(0, m_result->numHeads() - 1));
        m_query = std::clamp(m_query, 0, std::max(0, m_result->seqLen() - 1));
    }
    updateSelectors();
    rebuild();
}

void WalkthroughView::select(int head, int query)
{
    if (m_result) {
        head = std::clamp(head, 0, std::max(0, m_result->numHeads() - 1));
        query = std::clamp(query, 0, std::max(0, m_result->seqLen() - 1));
    }
    if (head == m_head && query == m_query)
        return;
    m_head = head;
    m_query = query;
    updateSelectors();
    rebuild();
}

void WalkthroughView::userSelect(int head, int query)
{
    const int old_head = m_head, old_query = m_query;
    select(head, query);
    if (m_head != old_head || m_query != old_query)
        emit selectionChanged(m_head, m_query);
}

void WalkthroughView::setPrecision(int digits)
{
    digits = std::clamp(digits, 0, 9);
    m_precision = digits;
    {
        const QSignalBlocker blocker(m_precision_spin);
        m_precision_spin->setValue(digits);
    }
    const QFontMetrics fm(font());
    const int width = fm.horizontalAdvance(QStringLiteral("-000.") + QString(digits, QLatin1Char('0'))) + 10;
    for (Section& section : m_sections)
        for (TableSlot& slot : section.tables) {
            slot.model->setPrecision(digits);
            slot.view->horizontalHeader()->setDefaultSectionSize(width);
            if (slot.model->rowCount() > 0)
                fitTable(slot);
        }
    m_breakdown->setPrecision(digits);
}

void WalkthroughView::updateSelectors()
{
    const QSignalBlocker head_blocker(m_head_spin);
    const QSignalBlocker query_blocker(m_query_combo);
    m_head_spin->setRange(0, m_result ? std::max(0, m_result->numHeads() - 1) : 0);
    m_head_spin->setValue(m_head);
    const int tokens = m_result ? m_result->seqLen() : 0;
    if (m_query_combo->count() != tokens ||
        (tokens > 0 && m_query_combo->property("result").value<const void*>() != m_result.get())) {
        m_query_combo->clear();
        for (int i = 0; i < tokens; ++i) {
            const QString& text = m_result->input.tokens[i].text;
            m_query_combo->addItem(text == QString::number(i) ? text : QStringLiteral("%1  %2").arg(i).arg(text));
        }
        m_query_combo->setProperty("result", QVariant::fromValue<const void*>(m_result.get()));
    }
    m_query_combo->setCurrentIndex(tokens > 0 ? m_query : -1);
}

void WalkthroughView::fitTable(const TableSlot& slot) const
{
    // As wide as the numbers (up to the page), as tall as kVisibleRows rows; scroll bars only
    // where the table is larger than that.
    QTableView* view = slot.view;
    const int rows = slot.model->rowCount();
    const int columns = slot.model->columnCount();
    const int frame = 2 * view->frameWidth();
    const int bar_h = view->horizontalScrollBar()->sizeHint().height();
    const int bar_w = view->verticalScrollBar()->sizeHint().width();
    const bool scrolls_down = rows > kVisibleRows;
    const int content_w = view->verticalHeader()->sizeHint().width() +
                          columns * view->horizontalHeader()->defaultSectionSize() + frame + (scrolls_down ? bar_w : 0);
    const int page_w = m_page->width() > 0 ? m_page->width() : width();
    const int available = std::max(200, page_w - 24);
    const bool scrolls_across = content_w > available;
    view->setFixedWidth(std::min(content_w, available));
    view->setFixedHeight(view->horizontalHeader()->sizeHint().height() +
                         std::min(rows, kVisibleRows) * view->verticalHeader()->defaultSectionSize() + frame +
                         (scrolls_across ? bar_h : 0));
    const WalkthroughTable& table = slot.model->table();
    if (table.highlighted_row >= 0) {
        const int column = std::max(0, table.highlighted_first_column);
        view->scrollTo(slot.model->index(table.highlighted_row, column), QAbstractItemView::PositionAtCenter);
    }
}

bool WalkthroughView::forwardWheelToPage(QTableView* table, QWheelEvent* event)
{
    // Up and down: the table while it can scroll that way, then the page (never sideways).
    // Sideways (a tilt wheel, a touchpad, Shift+wheel) stays with the table.
    const QPoint delta = event->angleDelta();
    if (std::abs(delta.y()) <= std::abs(delta.x()) || (event->modifiers() & (Qt::ShiftModifier | Qt::AltModifier)))
        return false;
    const QScrollBar* bar = table->verticalScrollBar();
    const bool table_can_scroll = delta.y() > 0 ? bar->value() > bar->minimum() : bar->value() < bar->maximum();
    if (table_can_scroll)
        return false;
    QCoreApplication::sendEvent(m_scroll->verticalScrollBar(), event);
    return true;
}

void WalkthroughView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        updateHeaders();
    QWidget::changeEvent(event);
}

void WalkthroughView::updateHeaders()
{
    if (m_walk.steps.empty())
        return;
    const QColor formula = mutedText(palette());
    for (size_t s = 0; s < m_sections.size(); ++s)
        if (const WalkthroughStep* step = sectionStep(int(s)))
            m_sections[s].header->setText(headerHtml(*step, formula));
}

const WalkthroughStep* WalkthroughView::sectionStep(int section) const
{
    if (m_walk.steps.empty())
        return nullptr;
    if (section < kRotationSection)
        return &m_walk.steps[size_t(section)];
    const WalkthroughStep& rotation = m_walk.rotation;  // only with rotary positions
    return rotation.tables.empty() && rotation.unavailable.isEmpty() ? nullptr : &rotation;
}

bool WalkthroughView::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Wheel)
        for (const Section& section : m_sections)
            for (const TableSlot& slot : section.tables)
                if (watched == slot.view->viewport())
                    return forwardWheelToPage(slot.view, static_cast<QWheelEvent*>(event));
    // The tables are as wide as the page allows: fit them again when the page changes width.
    if (watched == m_page && event->type() == QEvent::Resize) {
        for (const Section& section : m_sections)
            for (const TableSlot& slot : section.tables)
                if (slot.model->rowCount() > 0)
                    fitTable(slot);
    }
    return QWidget::eventFilter(watched, event);
}

QString WalkthroughView::summaryText() const
{
    return m_summary->text();
}

bool WalkthroughView::isLong() const
{
    return m_result && std::int64_t(m_result->seqLen()) * m_result->keyLen() > WalkthroughData::kWholeMatrixCells;
}

WalkthroughView::ShownTables WalkthroughView::shownTables(const WalkthroughData& walk, const QFont& header_font,
                                                          const QFont& breakdown_font)
{
    ShownTables shown;
    if (walk.steps.empty())
        return shown;
    WidestLabel widest(header_font);
    for (int s = 0; s <= kRotationSection; ++s) {
        const WalkthroughStep& step = s < kRotationSection ? walk.steps[size_t(s)] : walk.rotation;
        for (size_t t = 0; t < step.tables.size() && t < size_t(kMaxTablesPerStep); ++t) {
            const WalkthroughTable& table = step.tables[t];
            shown.tables.push_back(table);
            shown.widest.push_back({widest.in(table.row_labels), widest.in(table.column_labels)});
        }
    }
    shown.widest_key = WidestLabel(breakdown_font).in(walk.products.row_labels);
    return shown;
}

QFont WalkthroughView::headerFont() const
{
    QFont font = m_sections[0].tables[0].view->horizontalHeader()->font();
    font.setBold(true);
    return font;
}

auto WalkthroughView::buildWork() const
{
    // The tables' copies for the item models are made here too (X, concat and Y of 8,192 tokens
    // are tens of megabytes each), and their widest of thousands of labels found.
    return [result = m_result, head = m_head, query = m_query, header_font = headerFont(),
            breakdown_font = m_breakdown->font()](const auto&) {
        BuiltWalkthrough built{WalkthroughData::build(*result, head, query), {}};
        built.shown = shownTables(built.walk, header_font, breakdown_font);
        return built;
    };
}

void WalkthroughView::rebuild()
{
    m_walk_job.supersede();
    m_pending = false;  // a worker's walkthrough for the old selection is dropped
    if (isLong() && isVisible()) {
        requestWalkthrough();
        return;
    }
    WalkthroughData walk = m_result ? WalkthroughData::build(*m_result, m_head, m_query) : WalkthroughData{};
    ShownTables shown = shownTables(walk, headerFont(), m_breakdown->font());
    showWalkthrough(std::move(walk), std::move(shown));
}

void WalkthroughView::computeNow()
{
    if (!m_pending)
        return;
    m_pending = false;
    BuiltWalkthrough built = m_walk_job.computeNow(buildWork());
    showWalkthrough(std::move(built.walk), std::move(built.shown));
}

void WalkthroughView::requestWalkthrough()
{
    m_pending = true;
    // The last tables stay; the summary says what is on its way.
    m_summary->setText(tr("<b>Computing head %1, query token %2…</b> (a long input's weights are recomputed for "
                          "this head). The tables below still show head %3, query token %4.")
                           .arg(m_head)
                           .arg(m_query)
                           .arg(m_walk.steps.empty() ? m_head : m_walk.head)
                           .arg(m_walk.steps.empty() ? m_query : m_walk.query));
    // Started from the event loop: a tab brought up to date sets the result and then the
    // selection, and only the last of them is built.
    if (!m_start_queued) {
        m_start_queued = true;
        QMetaObject::invokeMethod(this, &WalkthroughView::startWalkthrough, Qt::QueuedConnection);
    }
}

void WalkthroughView::startWalkthrough()
{
    m_start_queued = false;
    if (!m_pending)
        return;  // built meanwhile (computeNow), or the input is no longer long
    m_walk_job.start(buildWork(), [this](BuiltWalkthrough built) {
        m_pending = false;
        showWalkthrough(std::move(built.walk), std::move(built.shown));
    });
}

void WalkthroughView::showWalkthrough(WalkthroughData walk, ShownTables shown)
{
    m_walk = std::move(walk);
    size_t next_table = 0;
    const bool empty = m_walk.steps.empty();
    if (empty) {
        m_summary->setText(tr("No computation yet: type a sentence or load an input."));
    } else {
        const QString token = m_result->input.tokens[m_query].text;
        m_summary->setText(
            tr("Head %1, query token %2 “%3”: the numbers of every step, read from the engine’s trace. "
               "Click a row to follow another token.")
                .arg(m_head)
                .arg(m_query)
                .arg(token.toHtmlEscaped()) +
            (m_walk.note.isEmpty() ? QString() : QStringLiteral(" <b>%1.</b>").arg(m_walk.note.toHtmlEscaped())));
        QStringList hidden;
        for (size_t key = 0; key < m_hidden_keys.size() && int(key) < m_result->keyLen(); ++key)
            if (m_hidden_keys[key])
                hidden << QString::number(key);
        if (!hidden.isEmpty())
            m_summary->setText(m_summary->text() +
                               tr(" Hidden in the heatmaps: key %1. Here every key is shown as computed (the "
                                  "softmax runs over all of them).")
                                   .arg(hidden.join(QStringLiteral(", "))));
    }
    for (size_t s = 0; s < m_sections.size(); ++s) {
        Section& section = m_sections[s];
        const WalkthroughStep* step = sectionStep(int(s));
        section.header->setVisible(step != nullptr);
        if (step) {
            section.header->setText(headerHtml(*step, mutedText(palette())));
            section.unavailable->setText(step->unavailable);
        }
        section.unavailable->setVisible(step && !step->unavailable.isEmpty());
        for (size_t t = 0; t < section.tables.size(); ++t) {
            TableSlot& slot = section.tables[t];
            const bool visible = step && t < step->tables.size();
            if (visible) {
                if (next_table < shown.tables.size()) {
                    slot.model->setTable(std::move(shown.tables[next_table]), shown.widest[next_table]);
                    ++next_table;
                } else {
                    slot.model->setTable(step->tables[t]);
                }
                slot.caption->setText(step->tables[t].title);
            } else {
                slot.model->setTable({});
            }
            slot.caption->setVisible(visible && step->tables.size() > 1);
            slot.view->setVisible(visible);
            if (visible)
                fitTable(slot);
        }
    }

    const bool have_scores = !empty && !m_walk.step(3).tables.empty();
    m_breakdown_caption->setVisible(!empty);
    m_breakdown->setVisible(!empty);
    if (!empty) {
        m_breakdown_caption->setText(
            tr("<b>Which dimensions make each score:</b> q<sub>i</sub> · k<sub>j,i</sub> for query %1, one row per key "
               "j, "
               "one column per dimension i of head %2. Each row adds up to the raw score beside it.")
                .arg(m_query)
                .arg(m_head));
        std::optional<RowVector> raw;
        if (have_scores)
            raw = RowVector(m_walk.step(3).tables[0].values.row(m_query - m_walk.step(3).tables[0].first_row));
        m_breakdown->setData(m_walk.products, std::move(raw), shown.widest_key);
        m_breakdown->setPrecision(m_precision);
    }
}

void WalkthroughView::showResult(const ViewInput& input)
{
    // The numbers as computed; it names the keys the heatmaps hide.
    setHiddenKeys(input.hidden_keys);
    setResult(input.computed);
    select(input.walk_head, input.walk_query);
}

void WalkthroughView::renderPicture(QPainter* painter, const QRectF& target)
{
    // A figure of the steps, not the page on screen: no selectors, no scroll state, whole tables.
    pictureOf(m_walk).paint(*painter, target);
}

WalkthroughPainter WalkthroughView::pictureOf(const WalkthroughData& walk) const
{
    QString summary;
    if (!walk.steps.empty() && m_result && walk.query < m_result->input.tokens.size()) {
        summary = tr("Head %1, query token %2 “%3”: the numbers of every step of attention, read from the engine’s "
                     "trace.")
                      .arg(walk.head)
                      .arg(walk.query)
                      .arg(m_result->input.tokens[walk.query].text);
        if (!walk.note.isEmpty())
            summary += QStringLiteral(" %1.").arg(walk.note);
    }
    return WalkthroughPainter(walk, summary, m_precision);
}

QSize WalkthroughView::pictureSize() const
{
    return pictureOf(m_walk).naturalSize(QSizeF(size())).toSize();
}

QString WalkthroughView::exportName() const
{
    return QStringLiteral("attention-walkthrough.png");
}

}  // namespace attn
