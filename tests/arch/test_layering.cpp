// The architecture as a table: which folder may include which. core/ (the engine and its file
// formats) sees Eigen and Qt Core only, so it runs in a command-line tool, a test or a server
// without a display; ui/ sits on core/, app/ on both. Inside them each folder depends only on the
// folders below it, so a newcomer knows where a change belongs and a wrong include fails here.
#include "tests/support/TestPaths.h"
#include "tests/support/TestSuite.h"

#include <QDirIterator>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

using namespace attn::testing;

namespace {

const QStringList kCoreFolders = {
    "core/base",    "core/io",       "core/text",     "core/ops",  "core/attention", "core/model",
    "core/weights", "core/pipeline", "core/analysis", "core/lens", "core/report",
};

// Folder -> the other folders its files may include. A folder may always include itself.
QHash<QString, QSet<QString>> allowedEdges()
{
    QHash<QString, QSet<QString>> allowed;
    allowed["core/base"] = {};
    allowed["core/io"] = {"core/base"};
    allowed["core/text"] = {"core/base", "core/io"};
    allowed["core/ops"] = {"core/base", "core/text"};
    allowed["core/attention"] = {"core/base", "core/ops"};
    allowed["core/model"] = {"core/base", "core/io", "core/text", "core/ops", "core/attention"};
    allowed["core/weights"] = {"core/base", "core/io", "core/attention", "core/model"};
    allowed["core/pipeline"] = {"core/base",      "core/io",    "core/text",   "core/ops",
                                "core/attention", "core/model", "core/weights"};
    allowed["core/analysis"] = {"core/base",  "core/text",    "core/ops",     "core/attention",
                                "core/model", "core/weights", "core/pipeline"};
    allowed["core/lens"] = {"core/base", "core/ops", "core/attention", "core/model"};
    allowed["core/report"] = {"core/base",    "core/io",       "core/text",     "core/attention", "core/model",
                              "core/weights", "core/pipeline", "core/analysis", "core/lens"};

    const QSet<QString> core(kCoreFolders.begin(), kCoreFolders.end());
    allowed["ui/workers"] = {};
    allowed["ui/controller"] = core + QSet<QString>{"ui/workers"};  // its jobs run through LatestJob
    allowed["ui/heatmap"] = core + QSet<QString>{"ui/workers"};
    // What every view shares (the View enum, the ViewPage interface, what --export's pictures are
    // made from), then one folder per view, each seeing only that, the heatmaps and the workers.
    allowed["ui/views"] = core + QSet<QString>{"ui/heatmap", "ui/workers"};
    QSet<QString> views;
    const QDir view_root(sourcePath("ui/views"));
    for (const QString& view : view_root.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        allowed[QStringLiteral("ui/views/") + view] = core + QSet<QString>{"ui/heatmap", "ui/workers", "ui/views"};
        views.insert(QStringLiteral("ui/views/") + view);
    }
    // The table of the views: every view's folder, for its tab and its picture.
    allowed["ui/registry"] = core + views + QSet<QString>{"ui/heatmap", "ui/workers", "ui/views"};
    allowed["ui/export"] = core + views + QSet<QString>{"ui/workers", "ui/heatmap", "ui/views", "ui/registry"};
    QSet<QString> ui = core;
    for (auto it = allowed.cbegin(); it != allowed.cend(); ++it)
        if (it.key().startsWith("ui/"))
            ui.insert(it.key());
    allowed["ui/shell"] = ui;
    allowed["app"] = ui + QSet<QString>{"ui/shell"};
    return allowed;
}

struct Include {
    QString file;    // relative to the repository root
    QString folder;  // the file's folder
    QString header;  // as written between the quotes or brackets
    bool quoted = false;
};

QList<Include> includesUnder(const QString& top)
{
    static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s*([<\"])([^>\"]+)[>\"]"),
                                            QRegularExpression::MultilineOption);
    const QDir root(sourceDir());
    QList<Include> found;
    QDirIterator it(root.filePath(top), {"*.h", "*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QString relative = root.relativeFilePath(file.fileName());
        const QString folder = QFileInfo(relative).path();
        const QString text = QString::fromUtf8(file.readAll());
        for (auto match = include.globalMatch(text); match.hasNext();) {
            const auto m = match.next();
            found.append({relative, folder, m.captured(2), m.captured(1) == "\""});
        }
    }
    return found;
}

}  // namespace

class TestLayering : public QObject {
    Q_OBJECT

private slots:
    void everyFolderIsInTheTable()
    {
        const auto allowed = allowedEdges();
        const QDir root(sourceDir());
        int files = 0;
        for (const QString& top : {"core", "ui", "app"}) {
            QDirIterator it(root.filePath(top), {"*.h", "*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString folder = QFileInfo(root.relativeFilePath(it.next())).path();
                ++files;
                QVERIFY2(allowed.contains(folder),
                         qPrintable(folder + " is not in the layering table: add it with its edges"));
            }
        }
        QVERIFY2(files >= 100, "the sources were not found");
    }

    void includesFollowTheTable()
    {
        const auto allowed = allowedEdges();
        for (const QString& top : {"core", "ui", "app"}) {
            for (const Include& include : includesUnder(top)) {
                if (!include.quoted || include.header.endsWith(".moc"))
                    continue;
                QVERIFY2(include.header.contains('/'),
                         qPrintable(QStringLiteral("%1: #include \"%2\" must be rooted at the "
                                                   "repository (e.g. \"core/base/Result.h\")")
                                        .arg(include.file, include.header)));
                const QString target = QFileInfo(include.header).path();
                QVERIFY2(QFileInfo::exists(sourcePath("") + include.header),
                         qPrintable(include.file + " includes a missing " + include.header));
                QVERIFY2(target == include.folder || allowed.value(include.folder).contains(target),
                         qPrintable(QStringLiteral("%1 includes %2: %3 may not depend on %4")
                                        .arg(include.file, include.header, include.folder, target)));
            }
        }
    }

    void coreIncludesNoGuiOrWidgets()
    {
        static const QRegularExpression forbidden(QStringLiteral(
            "^(QtGui|QtWidgets|QtSvg|QtPrintSupport)/"
            "|^Q(Widget|Application|GuiApplication|Painter|Image|Pixmap|Color|Font|Pen|Brush|SvgGenerator|PdfWriter)\\b"
            "|qcustomplot"));
        const QList<Include> includes = includesUnder("core");
        QVERIFY2(includes.size() >= 50, "core/ was not found");
        for (const Include& include : includes)
            QVERIFY2(!forbidden.match(include.header).hasMatch(),
                     qPrintable(QStringLiteral("%1 includes <%2>").arg(include.file, include.header)));
    }

    // The command line's pieces form a tree: no two of app/'s classes (a header with its source)
    // include each other, so each runs and is tested without the other.
    void appHasNoPairThatIncludesEachOther()
    {
        QHash<QString, QSet<QString>> uses;  // "app/ModelCommand" -> {"app/ExportOptions", ...}
        const auto unit = [](const QString& path) { return path.left(path.lastIndexOf(QLatin1Char('.'))); };
        for (const Include& include : includesUnder("app"))
            if (include.quoted && include.header.startsWith("app/") && unit(include.header) != unit(include.file))
                uses[unit(include.file)].insert(unit(include.header));
        QVERIFY2(!uses.isEmpty(), "app/ was not found");
        for (auto it = uses.cbegin(); it != uses.cend(); ++it)
            for (const QString& used : it.value())
                QVERIFY2(!uses.value(used).contains(it.key()),
                         qPrintable(QStringLiteral("%1 and %2 include each other").arg(it.key(), used)));
    }

    // QCustomPlot stays behind the heatmap wrapper, so a view never depends on its API.
    void onlyTheHeatmapFolderSeesQCustomPlot()
    {
        for (const QString& top : {"core", "ui", "app"})
            for (const Include& include : includesUnder(top))
                if (include.header.contains("qcustomplot", Qt::CaseInsensitive))
                    QVERIFY2(include.folder == "ui/heatmap",
                             qPrintable(include.file + " includes qcustomplot.h outside ui/heatmap"));
    }
};

REGISTER_TEST_SUITE(TestLayering, QCoreApplication)
#include "test_layering.moc"
