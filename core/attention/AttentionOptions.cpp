#include "core/attention/AttentionOptions.h"

#include <cmath>

namespace attn {

double ScaleSetting::divisor(int head_dim) const
{
    switch (mode) {
        case Mode::Sqrt:
            return std::sqrt(double(head_dim));
        case Mode::None:
            return 1.0;
        case Mode::Custom:
            return custom;
    }
    return 1.0;
}

QString ScaleSetting::toString() const
{
    switch (mode) {
        case Mode::Sqrt:
            return QStringLiteral("sqrt");
        case Mode::None:
            return QStringLiteral("none");
        case Mode::Custom:
            return QString::number(custom, 'g', 17);
    }
    return {};
}

Result<ScaleSetting> ScaleSetting::parse(const QString& text)
{
    const QString t = text.trimmed();
    if (t == u"sqrt")
        return ScaleSetting{Mode::Sqrt, 1.0};
    if (t == u"none")
        return ScaleSetting{Mode::None, 1.0};
    bool ok = false;
    const double value = t.toDouble(&ok);
    if (!ok || !std::isfinite(value) || value <= 0)
        return Error{QStringLiteral("scale must be 'sqrt', 'none' or a finite positive number, got '%1'").arg(text)};
    return ScaleSetting{Mode::Custom, value};
}

}  // namespace attn
