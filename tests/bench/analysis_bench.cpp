// Across layers on random attention maps of GPT-2 small's shape (12 layers x 12 heads, causal):
// attention flow at its limit of 64 tokens (64 x 64 maximum flows over a graph of 12 x 64^2
// edges), rollout and head scores at 1,024 tokens. Rows: "flow T=16", "flow T=64",
// "rollout T=1024", "head_scores T=1024".
#include "core/analysis/AttentionFlow.h"
#include "core/analysis/AttentionRollout.h"
#include "core/analysis/HeadScores.h"

#include <QTest>

#include <random>

using namespace attn;

namespace {

// Softmax rows of random scores, causal: what a trained model's maps look like in shape.
AttentionMaps randomMaps(int layers, int heads, int seq_len)
{
    std::mt19937_64 generator(5);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    AttentionMaps maps(layers, heads, seq_len, true);
    for (int l = 0; l < layers; ++l) {
        std::vector<Matrix> layer;
        for (int h = 0; h < heads; ++h) {
            Matrix weights = Matrix::Zero(seq_len, seq_len);  // (T, T)
            for (int i = 0; i < seq_len; ++i) {
                for (int j = 0; j <= i; ++j)
                    weights(i, j) = std::exp(normal(generator));
                weights.row(i) /= weights.row(i).sum();
            }
            layer.push_back(std::move(weights));
        }
        maps.setLayer(l, std::move(layer));
    }
    return maps;
}

}  // namespace

class AnalysisBench : public QObject {
    Q_OBJECT

private slots:
    void flow_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::newRow("flow T=16") << 16;
        QTest::newRow("flow T=64") << 64;
    }

    void flow()
    {
        QFETCH(int, tokens);
        const AttentionMaps maps = randomMaps(12, 12, tokens);
        QBENCHMARK {
            auto flow = AttentionFlow::compute(maps, {});
            QVERIFY(flow.ok());
        }
    }

    void rollout()
    {
        const AttentionMaps maps = randomMaps(12, 12, 1024);
        QBENCHMARK {
            auto rollout = AttentionRollout::compute(maps, {});
            QVERIFY(rollout.ok());
        }
    }

    void headScores()
    {
        const AttentionMaps maps = randomMaps(12, 12, 1024);
        std::vector<int> ids(1024);
        for (int i = 0; i < 1024; ++i)
            ids[size_t(i)] = i % 97;
        QBENCHMARK {
            const std::vector<HeadScore> scores = HeadScores::compute(maps, ids);
            QCOMPARE(int(scores.size()), 144);
        }
    }
};

QTEST_APPLESS_MAIN(AnalysisBench)
#include "analysis_bench.moc"
