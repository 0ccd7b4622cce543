#pragma once

// The toy vocabulary and merges of transformers' GPT-2 tokenizer test (test_tokenization_gpt2.py),
// on which "lower newer" with add_prefix_space is [14, 15, 10, 9, 3, 2, 15]: for the tokenizer
// tests, the fixed files of the fuzz targets and their seed corpus.

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>

namespace attn::testing {

// token -> id: the byte-level symbols of the merges and what they make, <unk> 19, <|endoftext|> 20.
inline QJsonObject toyGpt2Vocab()
{
    const QStringList tokens{"l",
                             "o",
                             "w",
                             "e",
                             "r",
                             "s",
                             "t",
                             "i",
                             "d",
                             "n",
                             "\u0120",
                             "\u0120l",
                             "\u0120n",
                             "\u0120lo",
                             "\u0120low",
                             "er",
                             "\u0120lowest",
                             "\u0120newer",
                             "\u0120wider",
                             "<unk>",
                             "<|endoftext|>"};
    QJsonObject vocab;
    for (qsizetype i = 0; i < tokens.size(); ++i)
        vocab[tokens[i]] = int(i);
    return vocab;
}

// The merges by rank, each "left right".
inline QStringList toyGpt2Merges()
{
    return {"\u0120 l", "\u0120l o", "\u0120lo w", "e r"};
}

// merges.txt as transformers writes it: a version line, then one merge a line.
inline QByteArray toyGpt2MergesTxt()
{
    return ("#version: 0.2\n" + toyGpt2Merges().join(u'\n') + "\n").toUtf8();
}

}  // namespace attn::testing
