// The rough edges a new user met in the window, offscreen: a weight file without a number of
// heads, exports into a missing folder, the settings dock, the Help menu, the walkthrough's
// scrolling and colours, and the settings panel's error flags.
#include "core/pipeline/AttentionResult.h"
#include "tests/support/WeightFileWriters.h"
#include "ui/controller/AttentionController.h"
#include "ui/shell/AppSettings.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/MessageBar.h"
#include "ui/shell/SettingsPanel.h"

#include <QFile>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace attn;
using namespace attn::testing;

namespace {

// torch.nn.MultiheadAttention(64, 4).state_dict() saved with numpy.savez: no num_heads member.
bool writeTorchStateDict(const QString& path, int embed_dim, std::optional<int> num_heads = std::nullopt)
{
    std::vector<ZipMember> members;
    for (const NamedF32& tensor : mhaTensors(SampleWeights::make(embed_dim, embed_dim, embed_dim))) {
        QStringList dims;
        for (auto d : tensor.shape)
            dims << QString::number(d);
        const QString shape = dims.size() == 1 ? QStringLiteral("(%1,)").arg(dims[0]) : "(" + dims.join(", ") + ")";
        members.push_back({tensor.name + ".npy", npy("<f4", shape, tensor.data)});
    }
    if (num_heads)
        members.push_back({"num_heads.npy", npy("<i8", "()", i64Bytes({*num_heads}))});
    return writeZip(path, members);
}

}  // namespace

class TestWindowEdges : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<MainWindow> m_window;

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_settings = std::make_unique<AppSettings>(m_dir.filePath("settings.ini"));
        m_window = std::make_unique<MainWindow>(m_settings.get());
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup()
    {
        m_window.reset();
        m_settings.reset();
        QFile::remove(m_dir.filePath("settings.ini"));
    }

    void fileWithoutHeadsIsSplitAsTheHeadsFieldSays()
    {
        const QString path = m_dir.filePath("mha.npz");
        QVERIFY(writeTorchStateDict(path, 64));
        m_window->settingsPanel()->headsBox()->setValue(4);  // the user knows: 4 heads
        QCOMPARE(m_window->controller()->config().num_heads, 4);
        m_window->openWeightsFile(path);
        m_window->controller()->waitForIdle();
        const QString message = m_window->messageBar()->text();
        QVERIFY2(m_window->controller()->config().weight_source == RunSettings::WeightSource::File,
                 qPrintable(message));
        const auto result = m_window->controller()->result();
        QCOMPARE(result->config.d_model, 64);
        QCOMPARE(result->numHeads(), 4);
        QVERIFY2(!message.contains("--"), qPrintable(message));  // the window's words, not a flag
        QVERIFY2(message.contains("Heads") && message.contains("mha.npz"), qPrintable(message));
        QCOMPARE(m_window->settingsPanel()->headsBox()->value(), 4);
        // Another split from the Heads field reads the file again, with 2 heads.
        m_window->settingsPanel()->headsBox()->setValue(2);
        m_window->controller()->waitForIdle();
        QCOMPARE(m_window->controller()->result()->numHeads(), 2);
    }

    void fileThatStatesItsHeadsKeepsThem()
    {
        const QString path = m_dir.filePath("mha-heads.npz");
        QVERIFY(writeTorchStateDict(path, 64, 2));
        m_window->settingsPanel()->headsBox()->setValue(4);
        m_window->openWeightsFile(path);
        m_window->controller()->waitForIdle();
        QVERIFY2(m_window->controller()->result()->numHeads() == 2, qPrintable(m_window->messageBar()->text()));
        QVERIFY(m_window->messageBar()->text().isEmpty());
    }

    void headsFieldThatDoesNotFitSaysWhatToDo()
    {
        const QString path = m_dir.filePath("mha.npz");
        QVERIFY(writeTorchStateDict(path, 64));
        m_window->settingsPanel()->headsBox()->setValue(128);  // d_model 512 / 128; 64 / 128 does not fit
        m_window->openWeightsFile(path);
        m_window->controller()->waitForIdle();
        QCOMPARE(m_window->controller()->config().weight_source, RunSettings::WeightSource::Random);
        const QString message = m_window->messageBar()->text();
        QVERIFY2(message.contains("does not say how many heads") && message.contains("Heads"), qPrintable(message));
        QVERIFY2(!message.contains("--heads"), qPrintable(message));
    }
};

QTEST_MAIN(TestWindowEdges)
#include "test_window_edges.moc"
