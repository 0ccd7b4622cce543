#pragma once

// What the subword tokenizer tests share: the committed vocabularies (tests/data/vocab), tokenizer
// files written into a temporary folder, and the encodings' tokens and offsets as lists.

#include "core/text/ByteLevelAlphabet.h"
#include "core/text/ByteLevelPreTokenizer.h"
#include "core/text/TokenizerLoader.h"
#include "tests/support/TestPaths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

namespace attn::testing {

inline const QString kVocabDir = sourcePath("tests/data/vocab");

inline QByteArray readAll(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

inline void writeFile(const QString& dir, const QString& name, const QByteArray& bytes)
{
    QDir().mkpath(dir);
    QFile file(QDir(dir).filePath(name));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(file.fileName()));
}

inline void writeJson(const QString& dir, const QString& name, const QJsonObject& object)
{
    writeFile(dir, name, QJsonDocument(object).toJson(QJsonDocument::Compact));
}

inline QJsonObject parseObject(const char* json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

// The hub's gpt2 tokenizer.json, assembled from the vocabulary files.
inline QJsonObject gpt2TokenizerJson(bool pairMerges)
{
    const QJsonObject vocab = QJsonDocument::fromJson(readAll(kVocabDir + "/gpt2/vocab.json")).object();
    QJsonArray merges;
    const QList<QByteArray> lines = readAll(kVocabDir + "/gpt2/merges.txt").split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString line = QString::fromUtf8(lines[i]);
        if (line.isEmpty() || (i == 0 && line.startsWith("#version")))
            continue;
        if (pairMerges)
            merges.append(QJsonArray::fromStringList(line.split(' ')));
        else
            merges.append(line);
    }
    QJsonObject root = parseObject(R"({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "single_word": false, "lstrip": false,
                          "rstrip": false, "normalized": true, "special": true}],
        "normalizer": null,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}})");
    QJsonObject model = parseObject(R"({"type": "BPE", "dropout": null, "unk_token": null,
        "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false})");
    model["vocab"] = vocab;
    model["merges"] = merges;
    root["model"] = model;
    return root;
}

inline QJsonObject bertVocab(const QString& path)
{
    QJsonObject vocab;
    const QList<QByteArray> lines = readAll(path).split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (!lines[i].isEmpty())
            vocab[QString::fromUtf8(lines[i])] = int(i);
    return vocab;
}

// The hub's bert-base-uncased tokenizer.json, assembled from vocab.txt. This one writes its
// post-processor as the older BertProcessing, as some DistilBERT files do.
inline QJsonObject bertTokenizerJson()
{
    QJsonObject root = parseObject(R"({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [
          {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
          {"id": 100, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
          {"id": 101, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
          {"id": 102, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
          {"id": 103, "content": "[MASK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true}})");
    QJsonObject model = parseObject(R"({"type": "WordPiece", "unk_token": "[UNK]",
        "continuing_subword_prefix": "##", "max_input_chars_per_word": 100})");
    model["vocab"] = bertVocab(kVocabDir + "/bert-base-uncased/vocab.txt");
    root["model"] = model;
    return root;
}

inline QStringList tokenTexts(const SubwordEncoding& encoding)
{
    QStringList out;
    for (const Token& token : encoding.tokens)
        out.append(token.text);
    return out;
}

inline QList<std::pair<qsizetype, qsizetype>> ranges(const SubwordEncoding& encoding)
{
    QList<std::pair<qsizetype, qsizetype>> out;
    for (const Token& token : encoding.tokens)
        out.append({token.begin, token.end});
    return out;
}

inline QList<int> intList(const QJsonArray& array)
{
    QList<int> out;
    for (const QJsonValue& v : array)
        out.append(v.toInt());
    return out;
}

inline QString loadError(const QString& dir)
{
    const auto tokenizer = loadTokenizer(dir);
    return tokenizer ? QString() : tokenizer.error();
}

// A temporary folder for tokenizer files, and tokenizers loaded from a tokenizer.json written there.
class TokenizerTestBase : public QObject {
protected:
    QTemporaryDir m_temp;

    QString tempPath(const QString& name) { return m_temp.filePath(name); }

    std::unique_ptr<SubwordTokenizer> loadJson(const QString& name, const QJsonObject& json)
    {
        writeJson(tempPath(name), "tokenizer.json", json);
        auto loaded = loadTokenizer(tempPath(name));
        if (!loaded)
            qFatal("%s: %s", qPrintable(name), qPrintable(loaded.error()));
        return std::move(loaded).value();
    }
};

}  // namespace attn::testing
