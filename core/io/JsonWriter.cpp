#include "core/io/JsonWriter.h"

#include "core/io/OutputChunk.h"

#include <charconv>
#include <cmath>

namespace attn {
namespace {

void appendEscaped(QByteArray& out, const QString& text)
{
    out += '"';
    // toUtf8 replaces unpaired surrogates, so the output is always valid UTF-8.
    for (char c : text.toUtf8()) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (u < 0x20) {
                    char buffer[8];
                    std::snprintf(buffer, sizeof buffer, "\\u%04x", u);
                    out += buffer;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

template <typename F>
void appendNumber(QByteArray& out, F number)
{
    if (!std::isfinite(number)) {
        out += "null";
        return;
    }
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, number);
    out.append(buffer, end - buffer);
}

}  // namespace

void JsonWriter::newline()
{
    if (!m_indent)
        return;
    m_out += '\n';
    m_out.append(QByteArray(qsizetype(m_first.size()) * 2, ' '));
}

void JsonWriter::separate()
{
    if (m_after_key) {
        m_after_key = false;
        return;
    }
    if (m_first.empty())
        return;
    if (!m_first.back())
        m_out += ',';
    m_first.back() = false;
}

void JsonWriter::streamTo(QIODevice& device)
{
    m_device = &device;
}

void JsonWriter::flushWhenFull()
{
    if (!m_device)
        return;
    if (!m_failed && !OutputChunk::flushWhenFull(m_out, *m_device))
        m_failed = true;
    if (m_failed)
        m_out.resize(0);
}

bool JsonWriter::finish()
{
    if (m_device && !m_failed && !OutputChunk::flush(m_out, *m_device))
        m_failed = true;
    return !m_failed;
}

JsonWriter& JsonWriter::beginObject()
{
    separate();
    m_out += '{';
    m_first.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::endObject()
{
    const bool empty = m_first.back();
    m_first.pop_back();
    if (!empty)
        newline();
    m_out += '}';
    flushWhenFull();
    return *this;
}

JsonWriter& JsonWriter::beginArray()
{
    separate();
    m_out += '[';
    m_first.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::endArray()
{
    m_first.pop_back();
    m_out += ']';
    flushWhenFull();
    return *this;
}

JsonWriter& JsonWriter::key(const QString& name)
{
    separate();
    newline();
    appendEscaped(m_out, name);
    m_out += m_indent ? ": " : ":";
    m_after_key = true;
    return *this;
}

JsonWriter& JsonWriter::value(const QString& text)
{
    separate();
    appendEscaped(m_out, text);
    return *this;
}

JsonWriter& JsonWriter::value(double number)
{
    separate();
    appendNumber(m_out, number);
    return *this;
}

JsonWriter& JsonWriter::value(float number)
{
    separate();
    appendNumber(m_out, number);
    return *this;
}

JsonWriter& JsonWriter::value(int number)
{
    separate();
    m_out += QByteArray::number(number);
    return *this;
}

JsonWriter& JsonWriter::value(qint64 number)
{
    separate();
    m_out += QByteArray::number(number);
    return *this;
}

JsonWriter& JsonWriter::value(bool flag)
{
    separate();
    m_out += flag ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null()
{
    separate();
    m_out += "null";
    return *this;
}

JsonWriter& JsonWriter::array(const QStringList& texts)
{
    beginArray();
    for (const QString& text : texts)
        value(text);
    return endArray();
}

JsonWriter& JsonWriter::array(const std::vector<int>& numbers)
{
    beginArray();
    for (int n : numbers)
        value(n);
    return endArray();
}

JsonWriter& JsonWriter::row(const float* values, Eigen::Index count)
{
    beginArray();
    for (Eigen::Index i = 0; i < count; ++i) {
        if (i > 0)
            m_out += ',';
        appendNumber(m_out, values[i]);
    }
    m_first.back() = count == 0;
    return endArray();
}

JsonWriter& JsonWriter::matrix(const ConstMatrixRef& m)
{
    beginArray();
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        row(m.row(r).data(), m.cols());
    return endArray();
}

JsonWriter& JsonWriter::matrices(const std::vector<Matrix>& list)
{
    beginArray();
    for (const Matrix& m : list)
        matrix(m);
    return endArray();
}

}  // namespace attn
