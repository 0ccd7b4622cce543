#include "core/ops/Transpose.h"

namespace attn {

void transposeInto(const ConstBlockRef& src, BlockRef dst)
{
    using Index = Eigen::Index;
    const Index rows = src.rows();
    const Index cols = src.cols();
    const float* in = src.data();
    float* out = dst.data();
    const Index in_stride = src.outerStride();
    const Index out_stride = dst.outerStride();
    Index whole_rows = 0;
    Index whole_cols = 0;
#if defined(EIGEN_VECTORIZE_AVX)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"  // PacketBlock of a vector type, as inside Eigen
    using Eigen::internal::Packet8f;
    whole_rows = rows / 8 * 8;
    whole_cols = cols / 8 * 8;
    for (Index r = 0; r < whole_rows; r += 8) {
        for (Index c = 0; c < whole_cols; c += 8) {
            Eigen::internal::PacketBlock<Packet8f, 8> block;
            for (int i = 0; i < 8; ++i)
                block.packet[i] = Eigen::internal::ploadu<Packet8f>(in + (r + i) * in_stride + c);
            Eigen::internal::ptranspose(block);
            for (int i = 0; i < 8; ++i)
                Eigen::internal::pstoreu(out + (c + i) * out_stride + r, block.packet[i]);
        }
    }
#pragma GCC diagnostic pop
#endif
    // The edges: the last cols % 8 columns of the whole rows, then the last rows % 8 rows.
    for (Index r = 0; r < whole_rows; ++r)
        for (Index c = whole_cols; c < cols; ++c)
            out[c * out_stride + r] = in[r * in_stride + c];
    for (Index r = whole_rows; r < rows; ++r)
        for (Index c = 0; c < cols; ++c)
            out[c * out_stride + r] = in[r * in_stride + c];
}

}  // namespace attn
