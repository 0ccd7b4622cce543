// ViewRegistry's table walked row by row: every view is a tab of the real MainWindow, in the
// table's order, with its title and tooltip; its View menu action exists with the table's
// shortcut and shows the tab; and every view the table marks as exported draws headless through
// the command line's own path (CommandLine::parse → HeadlessRunner::run, as --export does), with
// random weights and with a tiny model folder, while the others are refused by --view.
#include "app/CommandLine.h"
#include "app/HeadlessRunner.h"
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WindowTest.h"
#include "ui/registry/ViewRegistry.h"
#include "ui/shell/ActionRegistry.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/ViewPage.h"

#include <QAction>
#include <QImage>
#include <QKeySequence>
#include <QSet>
#include <QTextStream>
#include <QtTest>

using namespace attn;
using namespace attn::testing;

namespace {

struct Outcome {
    int exit_code = 0;
    QString err;
};

// The command line of --export, without starting the program: parsed and run as main() does.
Outcome runExport(const QStringList& arguments)
{
    auto options = CommandLine::parse(QStringList{"attention-lab"} + arguments);
    if (!options)
        return {2, QStringLiteral("error: ") + options.error()};
    QString out_text, err_text;
    QTextStream out(&out_text), err(&err_text);
    const int code = HeadlessRunner::run(options.value(), out, err);
    err.flush();
    return {code, err_text};
}

// More than one colour: something was drawn.
bool isDrawn(const QImage& image)
{
    const QRgb first = image.pixel(0, 0);
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            if (image.pixel(x, y) != first)
                return true;
    return false;
}

}  // namespace

class TestViewRegistry : public test::WindowTest {
    Q_OBJECT

    // A picture drawn through --export, checked for its size and for something drawn.
    void checkExport(const QStringList& arguments, const QString& name)
    {
        const QString path = m_dir.filePath(name + QStringLiteral(".png"));
        const Outcome outcome =
            runExport(arguments + QStringList{"--export", path, "--size", "640x480"});
        QVERIFY2(outcome.exit_code == 0, qPrintable(name + QStringLiteral(": ") + outcome.err));
        QVERIFY2(outcome.err.isEmpty(), qPrintable(outcome.err));
        const QImage image(path);
        QCOMPARE(image.size(), QSize(640, 480));
        QVERIFY2(isDrawn(image), qPrintable(name));
    }

private slots:
    void init() { openWindow({1400, 900}); }
    void cleanup() { closeWindow(); }

    void theTableFollowsTheEnum()
    {
        QSet<QString> keys;
        int index = 0;
        for (const ViewRow& row : ViewRegistry::rows()) {
            // Saved settings hold the index of older versions: a row's place is its value.
            QCOMPARE(int(row.id), index++);
            QCOMPARE(&ViewRegistry::row(row.id), &row);
            QVERIFY2(!keys.contains(row.key), row.key);
            keys.insert(row.key);
            QCOMPARE(viewKey(row.id), QString::fromLatin1(row.key));
            QCOMPARE(viewFromKey(QStringLiteral(" %1 ").arg(row.key).toUpper()), std::optional<View>(row.id));
            QVERIFY(row.create != nullptr);
            // A view of a whole model's run draws nothing without --model.
            QVERIFY(row.source == ViewSource::Result || row.needs_model != nullptr);
        }
        QCOMPARE(viewFromKey("pie"), std::nullopt);
        // The command-line contract's names, in --help's order.
        QCOMPARE(ViewRegistry::exportKeys(),
                 QStringList({"grid", "head", "compare", "lines", "shapes", "model", "model-shapes", "rollout", "qk",
                              "lens", "attribution", "ablation"}));
    }

    void everyRowIsATabWithItsAction()
    {
        ViewTabs* tabs = m_window->viewTabs();
        QCOMPARE(tabs->count(), int(ViewRegistry::rows().size()));
        QSet<int> shortcuts;
        for (const ViewRow& row : ViewRegistry::rows()) {
            const int tab = int(row.id);
            QCOMPARE(tabs->tabText(tab), ViewRegistry::title(row));
            QCOMPARE(tabs->tabToolTip(tab), ViewRegistry::tabTip(row));
            QVERIFY(tabs->page(row.id) != nullptr);
            QCOMPARE(tabs->widget(tab), dynamic_cast<QWidget*>(tabs->page(row.id)));

            QAction* action = m_window->actions()->view(row.id);
            QVERIFY2(action, row.key);
            QCOMPARE(action->text(), ViewRegistry::actionText(row));
            QCOMPARE(action->shortcut(), QKeySequence(row.shortcut));
            QVERIFY2(!shortcuts.contains(row.shortcut.toCombined()), row.key);
            shortcuts.insert(row.shortcut.toCombined());
            QVERIFY(m_window->actions()->shortcutsHtml().contains(
                QKeySequence(row.shortcut).toString(QKeySequence::NativeText).toHtmlEscaped()));
            action->trigger();
            QCOMPARE(m_window->currentView(), row.id);
            QCOMPARE(tabs->currentIndex(), tab);
            QVERIFY(!tabs->page(row.id)->exportName().isEmpty());
        }
    }

    void everyExportedRowExportsHeadless()
    {
        const QStringList random_weights = {"--sentence", "the cat sat on the mat", "--heads", "4", "--d-model", "32"};
        const QStringList model = {"--model", fixturesPath("models/gpt2-tiny"), "--token-ids", "5,6,7,8"};
        int drawn = 0;
        for (const ViewRow& row : ViewRegistry::rows()) {
            const QStringList view = {"--view", QString::fromLatin1(row.key)};
            if (!row.picture) {  // --view refuses it: one error line, nothing written
                const QString path = m_dir.filePath(QStringLiteral("%1.png").arg(row.key));
                const Outcome refused = runExport(random_weights + view + QStringList{"--export", path});
                QVERIFY(refused.exit_code != 0);
                QVERIFY2(refused.err.startsWith(QStringLiteral("error: --view: expected ")), qPrintable(refused.err));
                QVERIFY(!QFile::exists(path));
                continue;
            }
            if (!row.needs_model) {
                checkExport(random_weights + view, QStringLiteral("random-%1").arg(row.key));
            } else {  // without --model: refused with the table's reason
                const Outcome refused = runExport(random_weights + view + QStringList{"--export", "x.png"});
                QVERIFY(refused.exit_code != 0);
                QVERIFY2(refused.err.contains(QLatin1String(row.needs_model)), qPrintable(refused.err));
            }
            // With a whole model every exported view draws: the run, or its selected layer. The
            // attribution splits a metric's logit and the ablation scan measures one, so they need one.
            const QStringList metric =
                row.id == View::Attribution || row.id == View::Ablation ? QStringList{"--metric", "5"} : QStringList();
            checkExport(model + view + metric, QStringLiteral("model-%1").arg(row.key));
            if (row.model_key)
                checkExport(model + QStringList{"--view", QString::fromLatin1(row.model_key)},
                            QStringLiteral("model-%1").arg(row.model_key));
            ++drawn;
        }
        QVERIFY(drawn >= 8);
    }
};

REGISTER_TEST_SUITE(TestViewRegistry, QApplication)
#include "test_view_registry.moc"
