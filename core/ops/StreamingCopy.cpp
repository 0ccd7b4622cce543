#include "core/ops/StreamingCopy.h"

#include <cstdint>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace attn {
namespace {

#if defined(__AVX512F__)
constexpr Eigen::Index kLanes = 16;
inline void streamVector(float* out, const float* in) { _mm512_stream_ps(out, _mm512_loadu_ps(in)); }
#elif defined(__AVX__)
constexpr Eigen::Index kLanes = 8;
inline void streamVector(float* out, const float* in) { _mm256_stream_ps(out, _mm256_loadu_ps(in)); }
#endif

}  // namespace

void copyStreaming(const ConstBlockRef& src, BlockRef dst)
{
#if defined(__AVX__)
    constexpr std::uintptr_t kAlignment = kLanes * sizeof(float);
    const Eigen::Index cols = src.cols();
    for (Eigen::Index r = 0; r < src.rows(); ++r) {
        const float* in = src.data() + r * src.outerStride();
        float* out = dst.data() + r * dst.outerStride();
        Eigen::Index c = 0;
        for (; c < cols && reinterpret_cast<std::uintptr_t>(out + c) % kAlignment != 0; ++c)
            out[c] = in[c];
        for (; c + kLanes <= cols; c += kLanes)
            streamVector(out + c, in + c);
        for (; c < cols; ++c)
            out[c] = in[c];
    }
    _mm_sfence();  // the non-temporal stores are seen by other threads before anything after
#else
    dst = src;
#endif
}

}  // namespace attn
