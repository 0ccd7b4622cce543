// The window under a dark desktop palette (Fusion with Breeze Dark's colours), offscreen: the
// fields' placeholders stay readable, and every view's picture is a white figure on purpose (as
// its exports are) with dark text, while the controls around it follow the palette.
// With ATTENTION_WINDOW_SHOTS=<folder> it also writes the window at 1400 x 900, 1000 x 700 and
// its minimum size, light and dark, with a small GPT-2 open (All heads, Compare, Lines, Lens,
// Attribution and Ablation), for docs/window.md
// (scripts/make_window_shots.sh).
#include "tests/support/ModelFolders.h"
#include "tests/support/TestSuite.h"
#include "tests/support/WindowTest.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/PlaceholderContrast.h"
#include "ui/shell/ViewTabs.h"
#include "ui/views/View.h"
#include "ui/views/ViewPage.h"
#include "ui/views/generate/GenerateView.h"

#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QPalette>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTest>

using namespace attn;

namespace {

// KDE's Breeze Dark colour scheme. The placeholder is left as the light palette has it, as a
// desktop that sets only the scheme's colours does.
QPalette breezeDark()
{
    QPalette palette = QApplication::style()->standardPalette();
    const QColor window(0x31, 0x36, 0x3b), base(0x1b, 0x1e, 0x20), text(0xfc, 0xfc, 0xfc);
    for (const auto group : {QPalette::Active, QPalette::Inactive}) {
        palette.setColor(group, QPalette::Window, window);
        palette.setColor(group, QPalette::WindowText, text);
        palette.setColor(group, QPalette::Base, base);
        palette.setColor(group, QPalette::AlternateBase, QColor(0x23, 0x26, 0x29));
        palette.setColor(group, QPalette::Text, text);
        palette.setColor(group, QPalette::Button, window);
        palette.setColor(group, QPalette::ButtonText, text);
        palette.setColor(group, QPalette::Highlight, QColor(0x3d, 0xae, 0xe9));
        palette.setColor(group, QPalette::HighlightedText, text);
        palette.setColor(group, QPalette::ToolTipBase, window);
        palette.setColor(group, QPalette::ToolTipText, text);
        palette.setColor(group, QPalette::PlaceholderText, QColor(0x30, 0x30, 0x30, 0x80));
    }
    palette.setColor(QPalette::Disabled, QPalette::Window, window);
    palette.setColor(QPalette::Disabled, QPalette::Base, base);
    palette.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x6e, 0x71, 0x73));
    palette.setColor(QPalette::Disabled, QPalette::Text, QColor(0x6e, 0x71, 0x73));
    palette.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x6e, 0x71, 0x73));
    return palette;
}

bool isWhite(QRgb pixel)
{
    return qRed(pixel) > 245 && qGreen(pixel) > 245 && qBlue(pixel) > 245;
}

}  // namespace

class TestWindowPalette : public attn::test::WindowTest {
    Q_OBJECT

    void setDark(bool dark)
    {
        QApplication::setPalette(dark ? breezeDark() : QApplication::style()->standardPalette());
        QCoreApplication::processEvents();
    }

    void showView(View view)
    {
        m_window->setCurrentView(view);
        m_window->controller()->waitForIdle();
        QTest::qWait(50);
        QCoreApplication::processEvents();
    }

private slots:
    void initTestCase()
    {
        m_style = QApplication::style()->name();
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    }

    void cleanupTestCase()
    {
        setDark(false);
        QApplication::setStyle(QStyleFactory::create(m_style));
    }

    void init()
    {
        setDark(true);
        openWindow(QSize(1400, 900));
    }

    void cleanup() { closeWindow(); }

    void placeholdersAreReadable()
    {
        auto* keys = m_window->kvSentenceEdit();
        QVERIFY(!keys->placeholderText().isEmpty());
        QVERIFY(PlaceholderContrast::isReadable(keys));
        for (QLineEdit* field : m_window->findChildren<QLineEdit*>())
            if (!field->placeholderText().isEmpty() && field->isEnabled())
                QVERIFY2(PlaceholderContrast::isReadable(field), qPrintable(field->placeholderText()));
    }

    // Each view's picture is white, the window around it dark: a sample of the picture's area.
    void figuresAreWhiteOnPurpose()
    {
        const QColor window = m_window->palette().color(QPalette::Window);
        QVERIFY(window.lightness() < 80);
        for (const View view : {View::Grid, View::Head, View::Compare, View::Lines, View::Shapes, View::QueryKey}) {
            showView(view);
            QWidget* page = m_window->viewTabs()->currentWidget();
            QVERIFY(page);
            const QImage picture = page->grab().toImage();
            int white = 0;
            for (int y = 0; y < picture.height(); y += 7)
                for (int x = 0; x < picture.width(); x += 7)
                    white += isWhite(picture.pixel(x, y)) ? 1 : 0;
            const double share = double(white) / ((picture.height() / 7 + 1) * (picture.width() / 7 + 1));
            QVERIFY2(share > 0.25, qPrintable(viewKey(view) + QStringLiteral(": %1 white").arg(share)));
        }
    }

    // Not a check: the pictures of docs/window.md, when asked for.
    void writeShots()
    {
        const QString folder = qEnvironmentVariable("ATTENTION_WINDOW_SHOTS");
        if (folder.isEmpty())
            QSKIP("ATTENTION_WINDOW_SHOTS is not set");
        QVERIFY(QDir().mkpath(folder));
        m_window->sentenceEdit()->setText(QStringLiteral("The cat sat on the mat because it was tired."));
        m_window->openModelFolder(attn::testing::modelFixture(QStringLiteral("gpt2-tiny")));
        m_window->controller()->waitForIdle();
        const QSize smallest = m_window->minimumSizeHint().expandedTo(m_window->minimumSize());
        const struct {
            QString name;
            QSize size;
        } sizes[] = {{"1400x900", {1400, 900}}, {"1000x700", {1000, 700}}, {"minimum", smallest}};
        for (const bool dark : {false, true}) {
            setDark(dark);
            for (const auto& size : sizes) {
                m_window->resize(size.size);
                for (const View view :
                     {View::Grid, View::Compare, View::Lines, View::Lens, View::Attribution, View::Ablation}) {
                    showView(view);
                    // The Lens, Attribution and Ablation draw on a worker.
                    m_window->viewTabs()->page(view)->computeNow();
                    QCoreApplication::processEvents();
                    const QString name =
                        QStringLiteral("window-%1-%2-%3.png").arg(viewKey(view), size.name, dark ? "dark" : "light");
                    QVERIFY(m_window->grab().save(QDir(folder).filePath(name)));
                }
            }
        }
        // The Generate tab after 12 greedy tokens, at step 7 (every view shows the first 7).
        showView(View::Generate);
        auto* generate = dynamic_cast<GenerateView*>(m_window->viewTabs()->page(View::Generate));
        QVERIFY(generate);
        generate->tokensBox()->setValue(12);
        QSignalSpy finished(generate, &GenerateView::finished);
        QVERIFY(generate->generate());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 20000);
        generate->stepSlider()->setValue(7);
        for (const bool dark : {false, true}) {
            setDark(dark);
            for (const auto& size : sizes) {
                m_window->resize(size.size);
                showView(View::Generate);
                const QString name = QStringLiteral("window-generate-%1-%2.png").arg(size.name, dark ? "dark" : "light");
                QVERIFY(m_window->grab().save(QDir(folder).filePath(name)));
            }
        }
    }

private:
    QString m_style;
};

REGISTER_TEST_SUITE(TestWindowPalette, QApplication)
#include "test_window_palette.moc"
