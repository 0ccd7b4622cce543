// How long GPT-2's, BERT's and a Llama 3-style tokenizer (tests/data/tokenizers/llama3-style: the
// Llama 3 Split regex, then ByteLevel, on a small vocabulary) take for a text of 20,000 words
// (QBENCHMARK, not in CTest): once with every word new to the BPE cache, and once with the cache warm, as when a
// view re-tokenises a sentence being edited. Run build/tests/bench/tokenizer_bench.
#include "core/text/TokenizerLoader.h"

#include <QtTest>

using namespace attn;

namespace {

const QString kDataDir = QStringLiteral(ATTENTION_SOURCE_DIR "/tests/data");

// 20,000 words of ordinary prose with punctuation, numbers and a few accents; every word is
// made distinct by a counter so the first pass cannot lean on the cache.
QString proseOf20000Words(bool distinct)
{
    const QStringList words = QString::fromUtf8(
                                  "The quick brown fox jumps over the lazy dog, and then it naps: "
                                  "résumé café 2024 tokenizers don't split contractions badly!")
                                  .split(' ');
    QStringList out;
    for (int i = 0; out.size() < 20000; ++i)
        out.append(distinct && i % 2 ? words[i % words.size()] + QString::number(i) : words[i % words.size()]);
    return out.join(' ');
}

}  // namespace

class TokenizerBench : public QObject {
    Q_OBJECT

private slots:
    void encode_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<bool>("distinct");
        QTest::addRow("gpt2, distinct words") << "vocab/gpt2" << true;
        QTest::addRow("gpt2, repeated words") << "vocab/gpt2" << false;
        QTest::addRow("bert, distinct words") << "vocab/bert-base-uncased" << true;
        QTest::addRow("bert, repeated words") << "vocab/bert-base-uncased" << false;
        QTest::addRow("llama3-style, distinct words") << "tokenizers/llama3-style" << true;
        QTest::addRow("llama3-style, repeated words") << "tokenizers/llama3-style" << false;
    }
    void encode()
    {
        QFETCH(QString, folder);
        QFETCH(bool, distinct);
        const QString text = proseOf20000Words(distinct);
        auto tokenizer = loadTokenizer(kDataDir + '/' + folder);
        QVERIFY2(tokenizer, qPrintable(tokenizer.error()));
        qsizetype count = 0;
        QBENCHMARK
        {
            count = (*tokenizer)->encode(text).size();
        }
        QVERIFY(count >= 20000);
    }
};

QTEST_GUILESS_MAIN(TokenizerBench)
#include "tokenizer_bench.moc"
