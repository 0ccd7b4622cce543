#pragma once

#include "core/analysis/WalkthroughData.h"
#include "ui/views/ViewPage.h"
#include "ui/views/walkthrough/WalkthroughItemModel.h"
#include "ui/workers/LatestJob.h"
#include "ui/workers/ViewWorkers.h"

#include <QWidget>

#include <array>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QScrollArea;
class QSpinBox;
class QTableView;
class QWheelEvent;

namespace attn {

struct AttentionResult;
class ScoreBreakdownView;
class WalkthroughPainter;

// The numbers of every step of attention for one head and one query token, in the order a
// tutorial explains them (WalkthroughData), as tables with the query's row highlighted, plus the
// per-dimension breakdown of the raw scores. The page scrolls: the wheel over a table scrolls
// the table only while it can scroll further that way, then the page.
//
// Selection: the user's choice of head or query (selectors, or a click on a row of a table
// whose rows are queries) emits selectionChanged; select() sets it from outside (the heatmaps)
// and does not emit, so connecting both ways cannot loop.
class WalkthroughView : public QWidget, public ViewPage {
    Q_OBJECT
public:
    static constexpr int kMaxTablesPerStep = 3;

    explicit WalkthroughView(QWidget* parent = nullptr);
    ~WalkthroughView() override;

    // ViewPage: the tab as the window and Export image see it.
    void showResult(const ViewInput& input) override;
    // The picture is a figure of the steps (WalkthroughPainter), not the page on screen.
    void renderPicture(QPainter* painter, const QRectF& target) override;
    QSize pictureSize() const override;  // the figure at its own scale, laid out for the tab's shape
    QString exportName() const override;

    int head() const { return m_head; }
    int query() const { return m_query; }
    int precision() const { return m_precision; }
    const std::shared_ptr<const AttentionResult>& result() const { return m_result; }
    const WalkthroughData& walkthrough() const { return m_walk; }

    // Step 1..10, table 0..2; nullptr when the step has no such table.
    WalkthroughItemModel* tableModel(int step, int table) const;
    // Step 2b (rotary positions): its header, hidden without rotary positions, and its tables.
    QLabel* rotationHeader() const { return m_sections[size_t(kRotationSection)].header; }
    WalkthroughItemModel* rotationTableModel(int table) const;
    QTableView* tableView(int step, int table) const;
    ScoreBreakdownView* breakdown() const { return m_breakdown; }
    QSpinBox* headSpinBox() const { return m_head_spin; }
    QComboBox* queryComboBox() const { return m_query_combo; }
    QSpinBox* precisionSpinBox() const { return m_precision_spin; }

    // Keys the heatmaps hide (View › Heatmaps): the walkthrough still shows the numbers as computed
    // (softmax over every key) and says so. Takes effect with the next setResult or select.
    void setHiddenKeys(const std::vector<bool>& hidden) { m_hidden_keys = hidden; }
    QString summaryText() const;
    // A long input's walkthrough (more than WalkthroughData::kWholeMatrixCells scores; its
    // query's row of weights recomputed) is built on the view's own worker thread while the view
    // is shown, the last tables staying until it arrives. isPending() says so; computeNow() builds
    // it here (exports).
    bool isPending() const { return m_pending; }
    void computeNow() override;

public slots:
    void setResult(std::shared_ptr<const AttentionResult> result);
    void select(int head, int query);
    void setPrecision(int digits);

signals:
    void selectionChanged(int head, int query);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    WalkthroughPainter pictureOf(const WalkthroughData& walk) const;
    struct TableSlot {
        QLabel* caption = nullptr;
        QTableView* view = nullptr;
        WalkthroughItemModel* model = nullptr;
    };
    struct Section {
        QLabel* header = nullptr;
        QLabel* unavailable = nullptr;
        std::array<TableSlot, kMaxTablesPerStep> tables;
    };

    void userSelect(int head, int query);
    void rebuild();
    bool isLong() const;
    void requestWalkthrough();
    void startWalkthrough();
    // What the item models and the score breakdown take from a walkthrough, made with it (on the
    // worker for a long input): copies of the tables of every section in order (step 1's, …,
    // step 10's, then step 2b's), the widest labels of each in the headers' font, and the widest
    // key label of the breakdown in its font.
    struct ShownTables {
        std::vector<WalkthroughTable> tables;
        std::vector<WidestLabels> widest;  // one per table
        int widest_key = -1;
    };
    static ShownTables shownTables(const WalkthroughData& walk, const QFont& header_font, const QFont& breakdown_font);
    struct BuiltWalkthrough {
        WalkthroughData walk;
        ShownTables shown;
    };
    // The work of a walkthrough, to run on the worker or here (computeNow).
    auto buildWork() const;
    QFont headerFont() const;  // bold: QHeaderView measures every section's label in bold
    void showWalkthrough(WalkthroughData walk, ShownTables shown);
    void updateSelectors();
    void fitTable(const TableSlot& slot) const;
    void updateHeaders();
    bool forwardWheelToPage(QTableView* table, QWheelEvent* event);

    std::shared_ptr<const AttentionResult> m_result;
    WalkthroughData m_walk;
    int m_head = 0;
    int m_query = 0;
    int m_precision = 4;
    bool m_pending = false;
    bool m_start_queued = false;
    OwnWorkers m_workers;
    LatestJob m_walk_job{this, m_workers};  // each rebuild is a new request

    QSpinBox* m_head_spin = nullptr;
    QComboBox* m_query_combo = nullptr;
    QSpinBox* m_precision_spin = nullptr;
    QScrollArea* m_scroll = nullptr;
    QWidget* m_page = nullptr;  // inside the scroll area
    QLabel* m_summary = nullptr;
    std::vector<bool> m_hidden_keys;
    QLabel* m_breakdown_caption = nullptr;
    ScoreBreakdownView* m_breakdown = nullptr;
    // The numbered steps' sections, then kRotationSection's (step 2b, shown after step 2).
    static constexpr int kRotationSection = WalkthroughData::kStepCount;
    const WalkthroughStep* sectionStep(int section) const;  // nullptr: the section is hidden
    std::array<Section, WalkthroughData::kStepCount + 1> m_sections;
};

}  // namespace attn
