#pragma once

// What the fuzz targets share: the input as bytes or as a file, and invariants that must hold
// whatever the input (a broken one aborts, which libFuzzer reports as a crash with its input).

#include "core/io/TensorSource.h"
#include "core/text/SubwordTokenizer.h"
#include "core/text/TokenizerLoader.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace attn::fuzz {

inline QByteArray bytesOf(const std::uint8_t* data, size_t size)
{
    return QByteArray(reinterpret_cast<const char*>(data), qsizetype(size));
}

// The input files of this process, removed when it exits.
struct InputFiles {
    QStringList paths;
    ~InputFiles()
    {
        for (const QString& path : paths)
            QFile::remove(path);
    }
};

// The input written to a file of this process named "input<suffix>", in /dev/shm when there is
// one (no disk traffic per run), as the program would open it.
inline QString writeInputFile(const QByteArray& bytes, const QString& suffix)
{
    static const QString folder =
        QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm") : QDir::tempPath();
    static InputFiles files;
    const QString path =
        QStringLiteral("%1/attention-fuzz-%2-input%3").arg(folder).arg(QCoreApplication::applicationPid()).arg(suffix);
    if (!files.paths.contains(path))
        files.paths << path;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size()) {
        std::fprintf(stderr, "fuzz: cannot write %s\n", qPrintable(path));
        std::abort();
    }
    return path;
}

// A folder of this process, "attention-fuzz-<pid>-<name>", for the targets whose parser reads a
// model folder as the program does (loadTokenizer, ModelFolder::open). Removed when it exits.
class InputFolder {
public:
    explicit InputFolder(const QString& name)
        : m_path(QStringLiteral("%1/attention-fuzz-%2-%3")
                     .arg(tempFolder())
                     .arg(QCoreApplication::applicationPid())
                     .arg(name))
    {
        QDir().mkpath(m_path);
    }
    ~InputFolder() { QDir(m_path).removeRecursively(); }
    InputFolder(const InputFolder&) = delete;
    InputFolder& operator=(const InputFolder&) = delete;

    const QString& path() const { return m_path; }

    void put(const QString& name, const QByteArray& bytes) const
    {
        QFile file(m_path + QLatin1Char('/') + name);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size()) {
            std::fprintf(stderr, "fuzz: cannot write %s\n", qPrintable(file.fileName()));
            std::abort();
        }
    }
    // `bytes` as the file `name`, or no such file when there are none.
    void putOrRemove(const QString& name, const std::optional<QByteArray>& bytes) const
    {
        if (bytes)
            put(name, *bytes);
        else
            QFile::remove(m_path + QLatin1Char('/') + name);
    }

private:
    static QString tempFolder()
    {
        return QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm") : QDir::tempPath();
    }

    QString m_path;
};

// The tokenizer targets' input: the file the target is about, then optionally a line
// kConfigSeparator and tokenizer_config.json.
inline constexpr char kConfigSeparator[] = "\n//tokenizer_config.json\n";

struct FileAndConfig {
    QByteArray file;
    std::optional<QByteArray> config;
};

inline FileAndConfig splitConfig(const QByteArray& input)
{
    const qsizetype at = input.indexOf(kConfigSeparator);
    if (at < 0)
        return {input, std::nullopt};
    return {input.left(at), input.mid(at + qsizetype(sizeof(kConfigSeparator)) - 1)};
}

[[noreturn]] inline void broken(const char* condition, const char* file, int line)
{
    std::fprintf(stderr, "fuzz: invariant broken at %s:%d: %s\n", file, line, condition);
    std::abort();
}

#define FUZZ_CHECK(condition) ((condition) ? void() : ::attn::fuzz::broken(#condition, __FILE__, __LINE__))

// A refusal says something.
inline void checkMessage(const QString& message)
{
    FUZZ_CHECK(!message.isEmpty());
}

// A refusal the program prints (WeightFile::load, NpyReader::readMatrixFile) is one line, whatever
// names the file holds.
inline void checkPrintedMessage(const QString& message)
{
    checkMessage(message);
    for (QChar c : message) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            std::fprintf(stderr, "fuzz: the message is not one line: %s\n", qPrintable(message));
        FUZZ_CHECK(c.unicode() >= 0x20 && c.unicode() != 0x7f);
    }
}

// An array that was read has the element count and matrix layout its shape says.
inline void checkArray(const TensorArray& array)
{
    const auto count = elementCount(array.shape);
    FUZZ_CHECK(count.has_value() && *count <= TensorSource::kMaxTensorElements);
    FUZZ_CHECK(array.values.size() == *count);
    const auto [rows, cols] = TensorArray::matrixDims(array.shape);
    FUZZ_CHECK(array.values.rows() == rows && array.values.cols() == cols);
}

// Every array of a source: its shape from the headers, then its values, which must agree.
inline void readEveryTensor(TensorSource& source)
{
    for (const QString& name : source.tensorNames()) {
        auto shape = source.tensorShape(name);
        auto array = source.readTensor(name);
        if (!array)
            continue;
        FUZZ_CHECK(shape.ok());
        FUZZ_CHECK(array->shape == *shape);
        checkArray(*array);
    }
    (void)source.declaredNumHeads();
}

// A tokenizer that loaded encodes any text, with and without special tokens, into ids it has:
// one token per id, each token's range inside the text.
inline void checkTokenizer(const SubwordTokenizer& tokenizer)
{
    const int vocab_size = tokenizer.vocabSize();
    FUZZ_CHECK(vocab_size > 0);
    QStringList texts{
        QString(), QStringLiteral(" "),
        QString::fromUtf8("Hello world, it's a na\xc3\xafve CAF\xc3\x89  \xe4\xb8\xad\xe6\x96\x87\xf0\x9f\x98\x80 "
                          "[CLS] <|endoftext|> x\ty\n")};
    QString known;  // the first tokens of the vocabulary, as a text
    for (int id = 0; id < std::min(vocab_size, 16); ++id)
        known += tokenizer.idToToken(id) + QLatin1Char(id % 3 ? ' ' : '-');
    texts << known;
    for (const QString& text : texts) {
        for (bool add_special : {true, false}) {
            const SubwordEncoding encoding = tokenizer.encode(text, add_special);
            FUZZ_CHECK(encoding.tokens.size() == encoding.ids.size());
            FUZZ_CHECK(encoding.special.size() == encoding.ids.size());
            for (qsizetype i = 0; i < encoding.size(); ++i) {
                const int id = encoding.ids[i];
                const Token& token = encoding.tokens[i];
                FUZZ_CHECK(id >= 0 && id < vocab_size);
                FUZZ_CHECK(encoding.special[i] == tokenizer.isSpecial(id));
                FUZZ_CHECK(0 <= token.begin && token.begin <= token.end && token.end <= text.size());
            }
        }
    }
}

// One tokenizer target's input, `file_name` and optionally tokenizer_config.json (splitConfig),
// written into `folder` and read as --model reads a folder: a refusal is one printed line, and a
// tokenizer that loads encodes any text (checkTokenizer).
inline void loadTokenizerFolder(const InputFolder& folder, const QString& file_name, const std::uint8_t* data,
                                size_t size)
{
    const FileAndConfig input = splitConfig(bytesOf(data, size));
    folder.put(file_name, input.file);
    folder.putOrRemove(QStringLiteral("tokenizer_config.json"), input.config);
    auto tokenizer = loadTokenizer(folder.path());
    if (!tokenizer) {
        checkPrintedMessage(tokenizer.error());
        return;
    }
    checkTokenizer(**tokenizer);
}

}  // namespace attn::fuzz
