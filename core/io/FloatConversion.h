#pragma once

#include <cstdint>

namespace attn {

// The floating-point element types weight files store, decoded to float32 by hand so that every
// reader converts the same way (and the conversions are tested bit for bit).
enum class FloatFormat { F16, BF16, F32, F64 };
enum class ByteOrder { Little, Big };

int byteSize(FloatFormat format);
const char* formatName(FloatFormat format);  // "F16", "BF16", "F32", "F64"

// IEEE 754 binary16 -> binary32: exact for every value, subnormals included; Inf and NaN kept.
float halfToFloat(std::uint16_t bits);
// bfloat16 is the upper half of a float32: exact.
float bfloat16ToFloat(std::uint16_t bits);

// Decodes `count` values stored back to back at `source` (byteSize(format) bytes each, in `order`)
// into target[0 .. count); nothing for count <= 0 (where either pointer may be null). F64 values beyond the float32 range become +-Inf (callers reject them).
void decodeFloats(const char* source, std::int64_t count, FloatFormat format, ByteOrder order, float* target);

}  // namespace attn
