#include "core/io/FloatConversion.h"

#include <QtEndian>

#include <bit>
#include <cmath>
#include <cstring>

namespace attn {
namespace {

template <typename T>
T load(const char* p, ByteOrder order)
{
    return order == ByteOrder::Little ? qFromLittleEndian<T>(p) : qFromBigEndian<T>(p);
}

}  // namespace

int byteSize(FloatFormat format)
{
    switch (format) {
        case FloatFormat::F16:
        case FloatFormat::BF16:
            return 2;
        case FloatFormat::F32:
            return 4;
        case FloatFormat::F64:
            return 8;
    }
    return 0;
}

const char* formatName(FloatFormat format)
{
    switch (format) {
        case FloatFormat::F16:
            return "F16";
        case FloatFormat::BF16:
            return "BF16";
        case FloatFormat::F32:
            return "F32";
        case FloatFormat::F64:
            return "F64";
    }
    return "?";
}

float halfToFloat(std::uint16_t bits)
{
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    const std::uint32_t mantissa = bits & 0x3ffu;
    if (exponent == 0) {
        // Zero or subnormal: mantissa * 2^-24, exact in float32.
        const float magnitude = std::ldexp(float(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 0x1f)  // Inf (mantissa 0) or NaN (payload kept)
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    // Normal: rebias the exponent from 15 to 127.
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float bfloat16ToFloat(std::uint16_t bits)
{
    return std::bit_cast<float>(std::uint32_t(bits) << 16);
}

void decodeFloats(const char* source, std::int64_t count, FloatFormat format, ByteOrder order, float* target)
{
    if (count <= 0)  // an empty array's target may be null, which memcpy must not see even for 0 bytes
        return;
    switch (format) {
        case FloatFormat::F16:
            for (std::int64_t i = 0; i < count; ++i)
                target[i] = halfToFloat(load<quint16>(source + 2 * i, order));
            return;
        case FloatFormat::BF16:
            if (order == ByteOrder::Little && QSysInfo::ByteOrder == QSysInfo::LittleEndian) {
                // The upper half of a float32, written out inline so that the compiler vectorises it
                // (a call per value was a tenth of opening a BF16 checkpoint).
                for (std::int64_t i = 0; i < count; ++i) {
                    std::uint16_t bits;
                    std::memcpy(&bits, source + 2 * i, 2);
                    target[i] = std::bit_cast<float>(std::uint32_t(bits) << 16);
                }
                return;
            }
            for (std::int64_t i = 0; i < count; ++i)
                target[i] = bfloat16ToFloat(load<quint16>(source + 2 * i, order));
            return;
        case FloatFormat::F32:
            if (order == ByteOrder::Little && QSysInfo::ByteOrder == QSysInfo::LittleEndian) {
                std::memcpy(target, source, size_t(count) * 4);
                return;
            }
            for (std::int64_t i = 0; i < count; ++i)
                target[i] = std::bit_cast<float>(load<quint32>(source + 4 * i, order));
            return;
        case FloatFormat::F64:
            for (std::int64_t i = 0; i < count; ++i)
                target[i] = static_cast<float>(std::bit_cast<double>(load<quint64>(source + 8 * i, order)));
            return;
    }
}

}  // namespace attn
