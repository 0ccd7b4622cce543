#include "ui/shell/WindowMenus.h"

#include "ui/heatmap/HeatmapPlot.h"
#include "ui/shell/AboutText.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/HeatmapMenu.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/UserGuide.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/compare/CompareFigure.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/heads/HeadView.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>

namespace attn {

WindowMenus::WindowMenus(MainWindow& window, QDockWidget* settings_dock) : QObject(&window), m_window(window)
{
    ActionRegistry* a = window.actions();
    QMenuBar* bar = window.menuBar();
    QMenu* file = bar->addMenu(tr("&File"));
    file->addAction(a->get(ActionId::OpenWeights));
    m_recent_files = file->addMenu(tr("Open &recent"));
    file->addAction(a->get(ActionId::OpenModel));
    m_recent_models = file->addMenu(tr("Recen&t models"));
    file->addAction(a->get(ActionId::CloseModel));
    file->addSeparator();
    file->addAction(a->get(ActionId::OpenSession));
    m_recent_sessions = file->addMenu(tr("Recent se&ssions"));
    file->addAction(a->get(ActionId::SaveSession));
    file->addSeparator();
    file->addAction(a->get(ActionId::ExportImage));
    file->addAction(a->get(ActionId::CopyImage));
    file->addAction(a->get(ActionId::ExportData));
    file->addSeparator();
    file->addAction(a->get(ActionId::Quit));
    QMenu* view = bar->addMenu(tr("&View"));
    for (const ViewRow& row : ViewRegistry::rows()) {
        const View shown = row.id;
        QAction* action = a->view(shown);
        view->addAction(action);
        connect(action, &QAction::triggered, this, [this, shown] { m_window.setCurrentView(shown); });
    }
    view->addSeparator();
    view->addAction(a->get(ActionId::PreviousHead));
    view->addAction(a->get(ActionId::NextHead));
    view->addAction(a->get(ActionId::PreviousLayer));
    view->addAction(a->get(ActionId::NextLayer));
    view->addSeparator();
    view->addAction(a->get(ActionId::ZoomIn));
    view->addAction(a->get(ActionId::ZoomOut));
    view->addAction(a->get(ActionId::ZoomWhole));
    view->addSeparator();
    view->addAction(a->get(ActionId::FocusSentence));
    view->addSeparator();
    HeatmapMenu* heatmap = window.heatmapMenu();
    heatmap->insertAction(heatmap->actions().value(0), a->get(ActionId::ValueNorms));
    view->addMenu(heatmap);
    view->addSeparator();
    QAction* settings_panel = settings_dock->toggleViewAction();  // brings a closed panel back
    settings_panel->setText(tr("Se&ttings panel"));
    settings_panel->setToolTip(tr("Show or hide the settings panel"));
    view->addAction(settings_panel);
    QMenu* model = bar->addMenu(tr("&Model"));
    model->addAction(a->get(ActionId::Causal));
    model->addAction(a->get(ActionId::InductionProbe));
    m_examples = bar->addMenu(tr("E&xamples"));
    QMenu* help = bar->addMenu(tr("&Help"));
    help->addAction(a->get(ActionId::UserGuide));
    help->addAction(a->get(ActionId::KeyboardShortcuts));
    help->addSeparator();
    help->addAction(a->get(ActionId::About));
    help->addAction(a->get(ActionId::AboutQt));
    for (QMenu* menu : {file, view, model, m_examples, help})
        menu->setToolTipsVisible(true);
    connectActions();
}

void WindowMenus::connectActions()
{
    ActionRegistry* a = m_window.actions();
    MainWindow* window = &m_window;
    connect(a->get(ActionId::Quit), &QAction::triggered, window, &QWidget::close);
    HeadView* head_view = window->headView();
    connect(a->get(ActionId::NextHead), &QAction::triggered, this,
            [head_view] { head_view->setHead(head_view->head() + 1); });
    connect(a->get(ActionId::PreviousHead), &QAction::triggered, this,
            [head_view] { head_view->setHead(head_view->head() - 1); });
    // Zooming is One head's and Compare's, whose three plots follow head A's (grid thumbnails stay whole).
    const auto zoomed = [window] {
        return window->currentView() == View::Compare ? window->viewTabs()->compareView()->figure()->plotA()
                                                      : window->headView()->plot();
    };
    connect(a->get(ActionId::ZoomIn), &QAction::triggered, this, [zoomed] { zoomed()->zoomIn(); });
    connect(a->get(ActionId::ZoomOut), &QAction::triggered, this, [zoomed] { zoomed()->zoomOut(); });
    connect(a->get(ActionId::ZoomWhole), &QAction::triggered, this, [zoomed] { zoomed()->resetZoom(); });
    const auto enableZoom = [window, a] {
        const bool zoomable = window->currentView() == View::Head || window->currentView() == View::Compare;
        for (ActionId id : {ActionId::ZoomIn, ActionId::ZoomOut, ActionId::ZoomWhole})
            a->get(id)->setEnabled(zoomable);
    };
    connect(window->viewTabs(), &QTabWidget::currentChanged, this, enableZoom);
    enableZoom();
    connect(a->get(ActionId::FocusSentence), &QAction::triggered, this, [window] {
        window->sentenceEdit()->setFocus(Qt::ShortcutFocusReason);
        window->sentenceEdit()->selectAll();
    });
    connect(a->get(ActionId::UserGuide), &QAction::triggered, this, [window] { UserGuide::open(window); });
    connect(a->get(ActionId::KeyboardShortcuts), &QAction::triggered, this, &WindowMenus::showKeyboardShortcuts);
    connect(a->get(ActionId::About), &QAction::triggered, this, &WindowMenus::showAbout);
    connect(a->get(ActionId::AboutQt), &QAction::triggered, qApp, &QApplication::aboutQt);
}

void WindowMenus::showKeyboardShortcuts()
{
    auto* box = new QMessageBox(QMessageBox::NoIcon, tr("Keyboard shortcuts"), m_window.actions()->shortcutsHtml(),
                                QMessageBox::Close, &m_window);
    box->setObjectName(QStringLiteral("KeyboardShortcuts"));
    box->setTextFormat(Qt::RichText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();  // the window stays usable: the list can be read while trying the keys
}

void WindowMenus::showAbout()
{
    auto* box =
        new QMessageBox(QMessageBox::NoIcon, tr("About attention-lab"), aboutHtml(), QMessageBox::Close, &m_window);
    box->setObjectName(QStringLiteral("About"));
    box->setTextFormat(Qt::RichText);
    box->setTextInteractionFlags(Qt::TextBrowserInteraction);  // the links open in the browser
    box->setIconPixmap(m_window.windowIcon().pixmap(64, 64));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

}  // namespace attn
