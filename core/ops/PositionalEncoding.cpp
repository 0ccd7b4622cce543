#include "core/ops/PositionalEncoding.h"

#include <QHash>
#include <QMutex>
#include <QMutexLocker>

#include <algorithm>
#include <cmath>
#include <vector>

namespace attn {
namespace {

// Rows [first, pe.rows()) of the table. 10000^(i / dim) is hoisted out of the position loop:
// the same call with the same arguments, so the same bits as computing it per element.
void fillRows(Matrix& pe, int first)  // pe: (seq_len, dim)
{
    const int dim = int(pe.cols());
    std::vector<double> denominator;  // (ceil(dim / 2)): 10000^(2i / dim) for pair i
    denominator.reserve((dim + 1) / 2);
    for (int i = 0; i < dim; i += 2)
        denominator.push_back(std::pow(10000.0, double(i) / dim));
    for (int pos = first; pos < pe.rows(); ++pos) {
        float* row = pe.row(pos).data();
        for (int i = 0; i < dim; i += 2) {
            const double angle = pos / denominator[std::size_t(i / 2)];
            row[i] = static_cast<float>(std::sin(angle));
            if (i + 1 < dim)
                row[i + 1] = static_cast<float>(std::cos(angle));
        }
    }
}

struct TableCache {
    QMutex mutex;
    QHash<int, Matrix> tables;  // dim -> (tallest seq_len so far, dim)
};

TableCache& tableCache()
{
    static TableCache cache;
    return cache;
}

}  // namespace

Matrix PositionalEncoding::compute(int seq_len, int dim)
{
    Matrix pe(seq_len, dim);  // (seq_len, dim)
    fillRows(pe, 0);
    return pe;
}

Matrix PositionalEncoding::sinusoidal(int seq_len, int dim)
{
    if (seq_len <= 0 || dim <= 0 || qsizetype(seq_len) * dim > kCachedTableFloats)
        return compute(std::max(0, seq_len), std::max(0, dim));
    TableCache& cache = tableCache();
    QMutexLocker lock(&cache.mutex);
    if (!cache.tables.contains(dim) && cache.tables.size() >= 4)
        cache.tables.clear();           // a few widths in use at a time; forget old ones
    Matrix& table = cache.tables[dim];  // (rows computed so far, dim)
    if (table.rows() < seq_len) {
        const int first = int(table.rows());
        table.conservativeResize(seq_len, dim);  // keeps the rows already computed
        fillRows(table, first);
    }
    return table.topRows(seq_len);
}

}  // namespace attn
