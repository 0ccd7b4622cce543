// What choosing another layer of a whole model costs in the window, against the forward pass it
// replaces: ModelLayerResult::make of a layer the run did not select (its Q, K, V, head outputs
// and raw scores made again from the layer's kept input by one attention layer) and a full
// forward pass, GPT-2 small shape (12 layers, 12 heads, width 768, random weights).
//
// Not a test: built with the tests, not registered with CTest. Run
// `build/tests/bench/model_layer_bench -csv`.

#include "core/base/MemoryReuse.h"
#include "core/pipeline/ModelLayerResult.h"

#include "tests/support/RandomModel.h"

#include <QtTest>

using namespace attn;
using namespace attn::testing;

namespace {

TransformerModel& gpt2()
{
    static std::unique_ptr<TransformerModel> model = randomModel(gpt2SmallConfig(), 7);
    return *model;
}

std::vector<int> ids(int count)
{
    std::vector<int> out;
    for (int i = 0; i < count; ++i)
        out.push_back((i * 7919) % 50257);
    return out;
}

QStringList texts(int count)
{
    QStringList out;
    for (int i = 0; i < count; ++i)
        out << QString::number(i);
    return out;
}

}  // namespace

class ModelLayerBench : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { keepFreedBlocksForReuse(); }  // as the program does (app/main.cpp)

    void layerChange_data()
    {
        QTest::addColumn<int>("seq_len");
        QTest::addColumn<bool>("forward");
        for (int seq_len : {32, 256, 1024}) {
            QTest::addRow("gpt2 T=%d another layer", seq_len) << seq_len << false;
            QTest::addRow("gpt2 T=%d forward pass", seq_len) << seq_len << true;
        }
    }

    void layerChange()
    {
        QFETCH(int, seq_len);
        QFETCH(bool, forward);
        const TransformerModel& model = gpt2();
        auto run = model.forward(ids(seq_len), 0);
        QVERIFY(run);
        // As the window: raw scores while they are small (T^2 H <= 2^19).
        const TraceDetail detail =
            qint64(seq_len) * seq_len * 12 <= (qint64(1) << 19) ? TraceDetail::Full : TraceDetail::Probabilities;
        if (forward) {
            QBENCHMARK
            {
                auto again = model.forward(ids(seq_len), 5);
                Q_UNUSED(again);
            }
        } else {
            QBENCHMARK
            {
                auto layer = ModelLayerResult::make(model, QStringLiteral("gpt2"), *run, texts(seq_len), 5, detail);
                QVERIFY(layer);
            }
        }
    }
};

QTEST_GUILESS_MAIN(ModelLayerBench)
#include "model_layer_bench.moc"
