#pragma once

#include "core/base/Tensor.h"

#include <QByteArray>
#include <QIODevice>
#include <QString>
#include <QStringList>

#include <vector>

namespace attn {

// A streaming JSON writer for large numeric arrays: a 2,048-token result holds tens of millions
// of numbers, too many for QJsonDocument's tree. Floats are written in their shortest form that
// reads back to the same float (std::to_chars), non-finite ones as null (JSON has no NaN).
// The caller keeps the structure well-formed; the writer places the commas.
class JsonWriter {
public:
    explicit JsonWriter(bool indent = true) : m_indent(indent) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(const QString& name);

    JsonWriter& value(const QString& text);
    JsonWriter& value(const char* text) { return value(QString::fromUtf8(text)); }
    JsonWriter& value(double number);
    JsonWriter& value(float number);
    JsonWriter& value(int number);
    JsonWriter& value(qint64 number);
    JsonWriter& value(bool flag);
    JsonWriter& null();

    JsonWriter& array(const QStringList& texts);
    JsonWriter& array(const std::vector<int>& numbers);
    JsonWriter& row(const float* values, Eigen::Index count);
    JsonWriter& matrix(const ConstMatrixRef& m);            // [[row], ...]
    JsonWriter& matrices(const std::vector<Matrix>& list);  // [[[row], ...], ...]

    const QByteArray& data() const { return m_out; }
    QByteArray take() { return std::move(m_out); }

    // From now on what is written goes on to `device` a chunk at a time (OutputChunk, checked as
    // each array or object closes), so a document of gigabytes is never held whole; finish()
    // writes the rest. The device must outlive the writer's use of it.
    void streamTo(QIODevice& device);
    // Writes what is still held to the device; false when this or any earlier write failed.
    bool finish();
    // False once a write to the device has failed (what follows is then dropped).
    bool ok() const { return !m_failed; }

private:
    void separate();
    void newline();
    void flushWhenFull();

    QByteArray m_out;
    QIODevice* m_device = nullptr;
    bool m_failed = false;
    std::vector<bool> m_first;  // per open container: nothing written in it yet
    bool m_after_key = false;
    bool m_indent;
};

}  // namespace attn
