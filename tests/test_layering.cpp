// The layers stay apart: core/ (the engine and its file formats) sees Eigen and Qt Core only,
// so it can run in a command-line tool, a test or a server without a display.
#include <QDirIterator>
#include <QRegularExpression>
#include <QtTest>

class TestLayering : public QObject {
    Q_OBJECT

private slots:
    void coreIncludesNoGuiOrWidgets()
    {
        static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s*[<\"]([^>\"]+)[>\"]"),
                                                QRegularExpression::MultilineOption);
        static const QRegularExpression forbidden(QStringLiteral(
            "^(QtGui|QtWidgets|QtSvg|QtPrintSupport)/"
            "|^Q(Widget|Application|GuiApplication|Painter|Image|Pixmap|Color|Font|Pen|Brush|SvgGenerator|PdfWriter)\\b"
            "|qcustomplot"));
        QDirIterator it(QStringLiteral(ATTENTION_SOURCE_DIR "/core"), {"*.h", "*.cpp"}, QDir::Files,
                        QDirIterator::Subdirectories);
        int files = 0;
        while (it.hasNext()) {
            QFile file(it.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            ++files;
            const QString text = QString::fromUtf8(file.readAll());
            for (auto match = include.globalMatch(text); match.hasNext();) {
                const QString header = match.next().captured(1);
                QVERIFY2(!forbidden.match(header).hasMatch(),
                         qPrintable(QStringLiteral("%1 includes <%2>").arg(file.fileName(), header)));
            }
        }
        QVERIFY2(files >= 10, "core/ was not found");
    }
};

QTEST_GUILESS_MAIN(TestLayering)
#include "test_layering.moc"
