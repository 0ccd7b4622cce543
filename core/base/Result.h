#pragma once

#include <QString>

#include <optional>
#include <utility>

namespace attn {

struct Error {
    QString message;
};

// A value or the reason there is none. Library code returns these; only app/ prints and exits.
template <typename T>
class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_error(std::move(error.message)) {}

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return *m_value; }
    T& value() & { return *m_value; }
    T&& value() && { return std::move(*m_value); }
    const T* operator->() const { return &*m_value; }
    T* operator->() { return &*m_value; }
    const T& operator*() const& { return *m_value; }

    const QString& error() const { return m_error; }

private:
    std::optional<T> m_value;
    QString m_error;
};

// For operations that produce nothing but may fail.
class Status {
public:
    Status() = default;
    Status(Error error) : m_error(std::move(error.message)), m_failed(true) {}
    static Status success() { return {}; }

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const QString& error() const { return m_error; }

private:
    QString m_error;
    bool m_failed = false;
};

}  // namespace attn
