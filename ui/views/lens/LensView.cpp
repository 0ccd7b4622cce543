#include "ui/views/lens/LensView.h"

#include "core/lens/ResidualRows.h"
#include "core/model/ModelSession.h"
#include "ui/views/TokenField.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>

namespace attn {
namespace {

class LensCanvas : public QWidget {
public:
    LensCanvas(LensView* view, QWidget* parent) : QWidget(parent), m_view(view)
    {
        setMinimumSize(320, 200);
        setMouseTracking(true);
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        m_view->bringUpToDate();
        QPainter painter(this);
        m_view->painter().paint(painter, rect());
    }
    void mouseMoveEvent(QMouseEvent* event) override
    {
        const auto cell = m_view->painter().cellAt(event->position(), rect());
        const QString text = cell ? m_view->painter().hoverText(cell->row, cell->position) : QString();
        setToolTip(text);
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }
    void mousePressEvent(QMouseEvent* event) override
    {
        if (const auto cell = m_view->painter().cellAt(event->position(), rect()))
            m_view->pin(cell->position == m_view->painter().pinned() ? -1 : cell->position);
    }

private:
    LensView* m_view;
};

}  // namespace

LensView::LensView(QWidget* parent) : QWidget(parent)
{
    m_top_k = new QSpinBox(this);
    m_top_k->setRange(1, LogitLens::kMaxTopK);
    m_top_k->setValue(5);
    m_top_k->setPrefix(tr("top "));
    m_top_k->setToolTip(tr("How many tokens each cell keeps (its hover and the pinned list)"));
    m_shade = new QComboBox(this);
    m_shade->addItem(tr("Top token's p"));
    m_shade->addItem(tr("Tracked token's p"));
    m_shade->addItem(tr("Tracked token's rank"));
    m_shade->setToolTip(tr("What colours each cell"));
    m_tracked = new QComboBox(this);
    m_tracked->setEditable(true);
    m_tracked->setMinimumContentsLength(12);
    m_tracked->setInsertPolicy(QComboBox::NoInsert);
    m_tracked->lineEdit()->setPlaceholderText(tr("token to track"));
    m_tracked->setToolTip(
        tr("One of the model's top predictions at the last position, a token as the window shows it "
           "(\u2423cat), a vocabulary entry as the tokenizer spells it (\u0120cat), or an id"));
    m_tracked_error = new QLabel(this);
    m_tracked_error->setStyleSheet(QStringLiteral("color: #c62828"));
    m_tracked_error->setWordWrap(true);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_top_k);
    controls->addWidget(new QLabel(tr("Colour by"), this));
    controls->addWidget(m_shade);
    controls->addWidget(new QLabel(tr("Track"), this));
    controls->addWidget(m_tracked);
    controls->addWidget(m_tracked_error, 1);
    m_canvas = new LensCanvas(this, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_canvas, 1);

    connect(m_top_k, &QSpinBox::valueChanged, this, &LensView::changed);
    connect(m_shade, &QComboBox::currentIndexChanged, this, &LensView::shadeChosen);
    connect(m_tracked->lineEdit(), &QLineEdit::editingFinished, this, &LensView::trackedEdited);
    connect(m_tracked, &QComboBox::activated, this, &LensView::trackedEdited);
    refreshMessage();
}

LensView::~LensView() = default;

LensRequest LensView::request() const
{
    LensRequest request;
    request.top_k = m_top_k->value();
    request.tracked = m_tracked_id;
    return request;
}

void LensView::setModel(std::shared_ptr<const ModelSession> model)
{
    if (model == m_model)
        return;
    m_model = std::move(model);
    m_tracked_id.reset();
    m_tracked->lineEdit()->clear();
    m_tracked_error->clear();
    if (m_model) {
        const ModelSession* session = m_model.get();
        m_painter.setTokenLabel([session](int id) { return TokenField::label(*session, id); });
        m_painter.setVocabSize(m_model->config().vocab_size);
    } else {
        m_painter.setTokenLabel({});
    }
    changed();
}

void LensView::setModelRun(std::shared_ptr<const ModelRun> run, const QStringList& tokens)
{
    if (run && m_run && run->seqLen() != m_run->seqLen())
        m_painter.setPinned(-1);
    m_run = std::move(run);
    m_painter.setColumns(tokens);
    changed();
}

void LensView::clearModel()
{
    m_run.reset();
    setModel(nullptr);
    m_painter.setResult(nullptr);
    m_painter.setPinned(-1);
    changed();
}

void LensView::setLayer(int layer)
{
    m_layer = layer;
    m_painter.setHighlightRow(layer + 1);
    m_canvas->update();
}

void LensView::setColorMap(ColorMaps::Map map)
{
    m_painter.setColorMap(map);
    m_canvas->update();
}

void LensView::setRefusal(const QString& refusal)
{
    if (refusal == m_refusal)
        return;
    m_refusal = refusal;
    changed();
}

void LensView::pin(int position)
{
    m_painter.setPinned(position);
    m_canvas->update();
}

void LensView::refreshMessage()
{
    QString message;
    if (!m_model)
        message =
            tr("The logit lens reads a whole model's prediction head at every layer: open a model folder "
               "(File › Open model) to see it.");
    else if (!m_model->model().hasPredictionHead())
        message = tr("This model folder has no prediction head (%1), so there is no logit lens to draw.")
                      .arg(m_model->model().weights().head_missing);
    else if (!m_run)
        message = tr("Waiting for the model's run…");
    else if (!m_refusal.isEmpty())
        message = m_refusal;
    else if (!ResidualRows::check(m_model->config(), *m_run))
        message = tr("Running the model again to keep its residual stream…");
    m_painter.setMessage(message);
}

void LensView::changed()
{
    m_lens_job.supersede();
    m_requested = false;
    m_stale = true;
    refreshMessage();
    m_canvas->update();
}

void LensView::shadeChosen(int index)
{
    if (index > 0 && !m_tracked_id) {
        m_tracked_error->setText(tr("type or pick a token to track first"));
        const QSignalBlocker block(m_shade);
        m_shade->setCurrentIndex(int(m_painter.shade()));
        return;
    }
    m_tracked_error->clear();
    m_painter.setShade(LensPainter::Shade(index));
    m_canvas->update();
}

void LensView::trackedEdited()
{
    const QString text = m_tracked->currentText().trimmed();
    if (!m_model)
        return;
    if (text.isEmpty()) {
        m_tracked_error->clear();
        if (!m_tracked_id)
            return;
        m_tracked_id.reset();
        const QSignalBlocker block(m_shade);
        m_shade->setCurrentIndex(0);
        m_painter.setShade(LensPainter::Shade::TopP);
        changed();
        return;
    }
    auto id = TokenField::read(*m_tracked, *m_model);
    if (!id) {
        m_tracked_error->setText(id.error());  // the last good token stays tracked
        return;
    }
    m_tracked_error->clear();
    if (m_tracked_id == *id)
        return;
    m_tracked_id = *id;
    if (m_painter.shade() == LensPainter::Shade::TopP) {
        const QSignalBlocker block(m_shade);
        m_shade->setCurrentIndex(1);
        m_painter.setShade(LensPainter::Shade::TrackedP);
    }
    changed();
}

void LensView::fillTrackedChoices()
{
    const auto& result = m_painter.result();
    if (!m_model || !result || result->seq_len == 0 || !result->done.back())
        return;
    std::vector<int> ids;
    for (const LensEntry& entry : result->at(result->num_rows - 1, result->seq_len - 1).top)
        ids.push_back(entry.id);
    const QSignalBlocker block(m_tracked);
    TokenField::fill(*m_tracked, *m_model, ids);
}

void LensView::deliver(Outcome outcome)
{
    m_painter.setMessage(outcome.error);
    if (outcome.result)
        m_painter.setResult(std::move(outcome.result));
    if (outcome.complete) {
        m_stale = false;
        fillTrackedChoices();
    }
    m_canvas->update();
    if (outcome.complete)
        emit computed();
}

void LensView::bringUpToDate()
{
    if (!m_stale || m_requested || !m_painter.message().isEmpty() || !m_run || !m_model)
        return;
    m_requested = true;
    auto model = m_model;
    auto run = m_run;
    const LensRequest wanted = request();
    m_lens_job.start(
        [model, run, wanted](const auto& ticket) {
            auto progress = [&ticket](const LensResult& partial) {
                if (ticket.isStale())
                    return false;
                ticket.deliver(Outcome{std::make_shared<const LensResult>(partial), QString(), false});
                return true;
            };
            auto lens = LogitLens::compute(model->config(), model->model().weights(), *run, wanted, progress);
            if (!lens)
                return Outcome{nullptr, lens.error(), true};
            return Outcome{std::make_shared<const LensResult>(std::move(lens).value()), QString(), true};
        },
        [this](Outcome outcome) { deliver(std::move(outcome)); });
}

void LensView::computeNow()
{
    // A picture wanted now (--screenshot) of a run made before the stream was asked for: the pass
    // is made again here, keeping it (not for a lens refused by the memory budget).
    if (m_model && m_run && m_refusal.isEmpty() && !ResidualRows::check(m_model->config(), *m_run)) {
        if (auto again = m_model->model().forward(m_run->token_ids, m_run->selected_layer, true)) {
            m_run = std::make_shared<const ModelRun>(std::move(again).value());
            changed();
        }
    }
    if (!m_stale || !m_painter.message().isEmpty() || !m_run || !m_model)
        return;
    auto model = m_model;
    auto run = m_run;
    const LensRequest wanted = request();
    Outcome outcome = m_lens_job.computeNow([&](const auto&) {
        auto lens = LogitLens::compute(model->config(), model->model().weights(), *run, wanted);
        if (!lens)
            return Outcome{nullptr, lens.error(), true};
        return Outcome{std::make_shared<const LensResult>(std::move(lens).value()), QString(), true};
    });
    m_requested = false;
    deliver(std::move(outcome));
}

void LensView::renderPicture(QPainter* painter, const QRectF& target)
{
    m_painter.paint(*painter, target);
}

QSize LensView::pictureSize() const
{
    return m_canvas->size();
}

QString LensView::exportName() const
{
    return QStringLiteral("logit-lens.png");
}

}  // namespace attn
