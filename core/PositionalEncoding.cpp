#include "PositionalEncoding.h"

#include <cmath>

namespace attn {

Matrix PositionalEncoding::sinusoidal(int seq_len, int dim)
{
    Matrix pe(seq_len, dim);  // (seq_len, dim)
    for (int pos = 0; pos < seq_len; ++pos) {
        for (int i = 0; i < dim; i += 2) {
            const double angle = pos / std::pow(10000.0, double(i) / dim);
            pe(pos, i) = static_cast<float>(std::sin(angle));
            if (i + 1 < dim)
                pe(pos, i + 1) = static_cast<float>(std::cos(angle));
        }
    }
    return pe;
}

}  // namespace attn
