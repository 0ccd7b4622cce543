#include "core/ops/TileWeights.h"

#include "core/ops/ParallelWork.h"

#include <QString>

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#define ATTN_HAVE_TILES 1
#endif

namespace attn {
namespace {

using Index = Eigen::Index;

constexpr Index kTile = 16;         // rows of a tile, and float32 columns of an accumulator tile
constexpr Index kTileK = 32;        // bfloat16 values of x in a tile row (64 bytes)
constexpr Index kPair = 2 * kTile;  // the kernel's column pair and row pair: 32 x 32 of out
constexpr Index kParts = 3;         // hi, mid, lo

// The parts of the rows a thread multiplies at once (rows x inner x 3 parts x 2 bytes) stay below
// this, so that they stay in its L2 (2 MiB on Sapphire Rapids) while a strip of W streams past:
// beyond, the rows are taken in blocks, and for a single block of 32 rows, the inner dimension.
// All of 256 x 896 parts at once (1.4 MB, Qwen2's MLP) spill from L2 and slow the product by half or more.
constexpr Index kPartsBudget = Index(768) << 10;

Index roundUp(Index n, Index to)
{
    return (n + to - 1) / to * to;
}

template <typename T>
T* allocate64(std::size_t values)
{
    const std::size_t bytes = (values * sizeof(T) + 63) / 64 * 64;
    return static_cast<T*>(std::aligned_alloc(64, std::max<std::size_t>(bytes, 64)));
}

// A 64-byte-aligned buffer kept by a thread for its next product (tile rows are 64 bytes: at
// any other alignment each straddles two cache lines, and the products ran at a third of the speed).
template <typename T>
struct AlignedBuffer {
    T* data = nullptr;
    std::size_t size = 0;
    ~AlignedBuffer() { std::free(data); }
    T* reserve(std::size_t values)
    {
        if (values > size) {
            std::free(data);
            size = 0;
            data = allocate64<T>(values);
            if (!data)
                throw std::bad_alloc();
            size = values;
        }
        return data;
    }
};

#if ATTN_HAVE_TILES

// The lanes of 16 values from `first` that lie before `count`: all, the first few, or none.
__mmask16 lanesBefore(Index count, Index first)
{
    return first + 16 <= count ? __mmask16(0xffff)
           : first < count     ? __mmask16((1u << (count - first)) - 1)
                               : __mmask16(0);
}

constexpr int kArchRequestPermission = 0x1023;  // ARCH_REQ_XCOMP_PERM
constexpr int kTileDataFeature = 18;            // XFEATURE_XTILEDATA

bool detectTiles()
{
    if (qEnvironmentVariable("ATTENTION_LAB_TILES") == u"off")
        return false;
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return false;
    const bool amx_bf16 = edx & (1u << 22);
    const bool amx_tile = edx & (1u << 24);
    const bool avx512f = ebx & (1u << 16);
    if (!amx_bf16 || !amx_tile || !avx512f)
        return false;
    if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) || !(eax & (1u << 5)))  // AVX512-BF16
        return false;
    // Linux gives a process the 8 KiB tile state only when it asks (since 5.16); an older kernel or
    // a sandbox that refuses leaves the tiles unusable.
    return syscall(SYS_arch_prctl, kArchRequestPermission, kTileDataFeature) == 0;
}

struct alignas(64) TileConfig {
    std::uint8_t palette = 1;
    std::uint8_t start_row = 0;
    std::uint8_t reserved[14] = {};
    std::uint16_t bytes_per_row[16] = {};
    std::uint8_t rows[16] = {};
};

// Every tile 16 rows of 64 bytes: tiles 0-3 accumulate out (16 x 16 float32 each), 4-5 hold parts
// of x (16 rows x 32 bfloat16), 6-7 columns of W (32 rows x 16 columns, in pairs of rows).
__attribute__((target("amx-tile"))) void configureTiles()
{
    TileConfig config;
    for (int t = 0; t < 8; ++t) {
        config.bytes_per_row[t] = 64;
        config.rows[t] = kTile;
    }
    _tile_loadconfig(&config);
}

__attribute__((target("amx-tile"))) void releaseTiles()
{
    _tile_release();
}

// Rows [first, last) of x into their three parts, each (rows, padded_inner) with the columns past
// x's zero, and rows past x's (up to `last`) all zero.
//   parts: hi at parts, mid at parts + part_size, lo at parts + 2 part_size; row r at r * padded_inner.
__attribute__((target("avx512f,avx512bf16,avx512vl,avx512bw"))) void splitRows(const ConstBlockRef& x, Index first,
                                                                               Index last, Index padded_inner,
                                                                               std::uint16_t* parts, Index part_size)
{
    const Index inner = x.cols();
    for (Index r = first; r < last; ++r) {
        std::uint16_t* hi = parts + r * padded_inner;
        std::uint16_t* mid = hi + part_size;
        std::uint16_t* lo = mid + part_size;
        if (r >= x.rows()) {
            for (Index p = 0; p < kParts; ++p)
                std::memset(hi + p * part_size, 0, std::size_t(padded_inner) * sizeof(std::uint16_t));
            continue;
        }
        const float* in = x.data() + r * x.outerStride();
        for (Index k = 0; k < padded_inner; k += 16) {
            const __m512 value = _mm512_maskz_loadu_ps(lanesBefore(inner, k), in + k);
            const __m256bh hi_bits = _mm512_cvtneps_pbh(value);                   // round to nearest even
            const __m512 rest = _mm512_sub_ps(value, _mm512_cvtpbh_ps(hi_bits));  // exact
            const __m256bh mid_bits = _mm512_cvtneps_pbh(rest);
            const __m512 rest2 = _mm512_sub_ps(rest, _mm512_cvtpbh_ps(mid_bits));  // exact
            const __m256bh lo_bits = _mm512_cvtneps_pbh(rest2);                    // exact
            _mm256_store_si256(reinterpret_cast<__m256i*>(hi + k), (__m256i)hi_bits);
            _mm256_store_si256(reinterpret_cast<__m256i*>(mid + k), (__m256i)mid_bits);
            _mm256_store_si256(reinterpret_cast<__m256i*>(lo + k), (__m256i)lo_bits);
        }
    }
}

// What one thread multiplies: rows [0, rows) of its parts (a multiple of 16) by the column pairs
// [first_pair, last_pair) of W, into out (rows, W's padded columns; float32, row stride out_stride).
struct TileJob {
    const std::uint16_t* parts;  // (3, rows, padded_inner), part_size apart
    Index part_size;
    Index rows;
    const TileWeights* w;
    float* out;
    Index out_stride;
    Index first_pair;
    Index last_pair;
};

// out[16 RowTiles x 32] (+)= parts[16 RowTiles rows] x W[:, pair], inner steps [first_k, last_k):
// 2 x 2 accumulator tiles, or 1 x 2 for the last 16 rows when the rows are not a multiple of 32.
// With `accumulate` the sums continue from out's values.
template <int RowTiles>
__attribute__((target("amx-tile,amx-bf16"))) void tileBlock(const TileJob& job, Index row, Index pair, Index first_k,
                                                            Index last_k, bool accumulate)
{
    static_assert(RowTiles == 1 || RowTiles == 2);
    constexpr bool two = RowTiles == 2;
    const Index padded_inner = job.w->paddedRows();
    const Index a_stride = padded_inner * Index(sizeof(std::uint16_t));
    const Index c_stride = job.out_stride * Index(sizeof(float));
    float* c = job.out + row * job.out_stride + pair * kPair;
    float* c_below = c + kTile * job.out_stride;  // the second row of tiles
    if (accumulate) {
        _tile_loadd(0, c, c_stride);
        _tile_loadd(1, c + kTile, c_stride);
        if constexpr (two) {
            _tile_loadd(2, c_below, c_stride);
            _tile_loadd(3, c_below + kTile, c_stride);
        }
    } else {
        _tile_zero(0);
        _tile_zero(1);
        if constexpr (two) {
            _tile_zero(2);
            _tile_zero(3);
        }
    }
    const std::uint16_t* w0 = job.w->columnBlock(2 * pair);
    const std::uint16_t* w1 = job.w->columnBlock(2 * pair + 1);
    const std::uint16_t* a = job.parts + row * padded_inner;
    for (Index k = first_k; k < last_k; k += kTileK) {
        _tile_loadd(6, w0 + k * kTile, 64);
        _tile_loadd(7, w1 + k * kTile, 64);
        for (Index p = 0; p < kParts; ++p) {
            const std::uint16_t* part = a + p * job.part_size + k;
            _tile_loadd(4, part, a_stride);
            if constexpr (two)
                _tile_loadd(5, part + kTile * padded_inner, a_stride);
            _tile_dpbf16ps(0, 4, 6);
            _tile_dpbf16ps(1, 4, 7);
            if constexpr (two) {
                _tile_dpbf16ps(2, 5, 6);
                _tile_dpbf16ps(3, 5, 7);
            }
        }
    }
    _tile_stored(0, c, c_stride);
    _tile_stored(1, c + kTile, c_stride);
    if constexpr (two) {
        _tile_stored(2, c_below, c_stride);
        _tile_stored(3, c_below + kTile, c_stride);
    }
}

// The job, in blocks of rows (and of the inner dimension) whose parts fit kPartsBudget; each block's
// rows go through all of the job's column pairs, every pair's strip of W used by all of them.
void runJob(const TileJob& job)
{
    const Index padded_inner = job.w->paddedRows();
    const Index bytes_per_row = padded_inner * kParts * Index(sizeof(std::uint16_t));
    const Index block_rows = std::clamp(kPartsBudget / bytes_per_row / kPair * kPair, kPair, roundUp(job.rows, kPair));
    const Index block_k =
        block_rows * bytes_per_row <= kPartsBudget
            ? padded_inner
            : std::max(kTileK, kPartsBudget / (block_rows * kParts * Index(sizeof(std::uint16_t))) / kTileK * kTileK);
    configureTiles();
    for (Index first_row = 0; first_row < job.rows; first_row += block_rows) {
        const Index end_row = std::min(job.rows, first_row + block_rows);
        for (Index first_k = 0; first_k < padded_inner; first_k += block_k) {
            const Index last_k = std::min(padded_inner, first_k + block_k);
            for (Index pair = job.first_pair; pair < job.last_pair; ++pair) {
                Index row = first_row;
                for (; row + kPair <= end_row; row += kPair)
                    tileBlock<2>(job, row, pair, first_k, last_k, first_k > 0);
                if (row < end_row)
                    tileBlock<1>(job, row, pair, first_k, last_k, first_k > 0);
            }
        }
    }
    releaseTiles();
}

// Whether every value of w is a finite bfloat16: the low 16 bits of its float32 all 0, the
// exponent not all 1.
__attribute__((target("avx512f"))) bool allBfloat16(const ConstBlockRef& w)
{
    const __m512i low_half = _mm512_set1_epi32(0xffff);
    const __m512i exponent = _mm512_set1_epi32(0x7f800000);
    for (Index i = 0; i < w.rows(); ++i) {
        const float* row = w.data() + i * w.outerStride();
        for (Index j = 0; j < w.cols(); j += 16) {
            const __mmask16 mask = lanesBefore(w.cols(), j);
            const __m512i bits = _mm512_maskz_loadu_epi32(mask, row + j);
            if (_mm512_test_epi32_mask(bits, low_half) ||
                _mm512_mask_cmpeq_epi32_mask(mask, _mm512_and_si512(bits, exponent), exponent))
                return false;
        }
    }
    return true;
}

// w's bfloat16 values in the tile layout (TileWeights), zeros past its rows and columns: for each
// block of 16 columns and pair of rows, one 64-byte row of 16 (W[2k][n], W[2k + 1][n]) pairs.
__attribute__((target("avx512f"))) void interleaveRowPairs(const ConstBlockRef& w, Index padded_rows, Index padded_cols,
                                                           std::uint16_t* out)
{
    const __m512i high_half = _mm512_set1_epi32(std::int32_t(0xffff0000u));
    for (Index block = 0; block < padded_cols / kTile; ++block) {
        const Index col = block * kTile;
        const __mmask16 mask = lanesBefore(w.cols(), col);
        for (Index k = 0; k < padded_rows; k += 2) {
            const __m512i even = k < w.rows() ? _mm512_maskz_loadu_epi32(mask, w.data() + k * w.outerStride() + col)
                                              : _mm512_setzero_si512();
            const __m512i odd = k + 1 < w.rows()
                                    ? _mm512_maskz_loadu_epi32(mask, w.data() + (k + 1) * w.outerStride() + col)
                                    : _mm512_setzero_si512();
            _mm512_store_si512(out, _mm512_or_si512(_mm512_and_si512(odd, high_half), _mm512_srli_epi32(even, 16)));
            out += 2 * kTile;
        }
    }
}

#endif  // ATTN_HAVE_TILES

}  // namespace

void TileWeights::Free::operator()(std::uint16_t* p) const
{
    std::free(p);
}

bool TileWeights::available()
{
#if ATTN_HAVE_TILES
    static const bool usable = detectTiles();
    return usable;
#else
    return false;
#endif
}

std::optional<TileWeights> TileWeights::pack(const ConstBlockRef& w)
{
#if ATTN_HAVE_TILES
    if (!available() || !allBfloat16(w))
        return std::nullopt;
    TileWeights t;
    t.m_rows = w.rows();
    t.m_cols = w.cols();
    t.m_padded_rows = roundUp(std::max<Index>(w.rows(), 1), kTileK);
    t.m_padded_cols = roundUp(std::max<Index>(w.cols(), 1), kPair);
    t.m_data.reset(allocate64<std::uint16_t>(std::size_t(t.m_padded_rows * t.m_padded_cols)));
    if (!t.m_data)
        return std::nullopt;
    interleaveRowPairs(w, t.m_padded_rows, t.m_padded_cols, t.m_data.get());
    return t;
#else
    (void)w;
    return std::nullopt;
#endif
}

float TileWeights::at(Index row, Index col) const
{
    const Index block = col / kTile;
    const std::uint32_t bits = std::uint32_t(columnBlock(block)[((row / 2) * kTile + col % kTile) * 2 + row % 2]) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

void tileProduct(const ConstBlockRef& x, const TileWeights& w, const float* bias, BlockRef out)
{
#if ATTN_HAVE_TILES
    const Index rows = x.rows();
    const Index cols = w.cols();
    if (rows == 0 || cols == 0)
        return;
    const Index padded_rows = roundUp(rows, kTile);
    const Index padded_inner = w.paddedRows();
    const Index part_size = padded_rows * padded_inner;
    thread_local AlignedBuffer<std::uint16_t> parts_buffer;
    std::uint16_t* const parts = parts_buffer.reserve(std::size_t(kParts * part_size));
    // Whole tiles are stored: into out itself when its rows and columns are whole tiles and its rows
    // start on cache lines, otherwise into a padded copy.
    const bool direct = rows == padded_rows && cols == w.paddedCols() &&
                        reinterpret_cast<std::uintptr_t>(out.data()) % 64 == 0 && out.outerStride() % 16 == 0;
    thread_local AlignedBuffer<float> padded_out;  // (padded_rows, padded cols) when not direct
    float* const target = direct ? out.data() : padded_out.reserve(std::size_t(padded_rows * w.paddedCols()));
    const Index target_stride = direct ? out.outerStride() : w.paddedCols();
    const Index pairs = w.paddedCols() / kPair;
    const std::int64_t work = std::int64_t(rows) * w.rows() * cols;

#pragma omp parallel if (work >= kParallelWork)
    {
        const Index threads = omp_get_num_threads();
        const Index thread = omp_get_thread_num();
        const Index row_pairs = padded_rows / kPair;
        if (row_pairs >= threads) {
            // Each thread its own rows, all columns: its parts stay in its own cache.
            const Index first = row_pairs * thread / threads * kPair;
            const Index last = thread + 1 == threads ? padded_rows : row_pairs * (thread + 1) / threads * kPair;
            splitRows(x, first, last, padded_inner, parts, part_size);
            runJob({parts + first * padded_inner, part_size, last - first, &w, target + first * target_stride,
                    target_stride, 0, pairs});
        } else {
            // Too few rows: the columns shared out, every thread reading all rows' parts.
            const Index tiles = padded_rows / kTile;
            splitRows(x, tiles * thread / threads * kTile, tiles * (thread + 1) / threads * kTile, padded_inner, parts,
                      part_size);
#pragma omp barrier
            runJob({parts, part_size, padded_rows, &w, target, target_stride, pairs * thread / threads,
                    pairs * (thread + 1) / threads});
        }
    }
    if (!direct)
        out = Eigen::Map<const Matrix>(target, padded_rows, w.paddedCols()).topLeftCorner(rows, cols);
    if (bias)
        out.rowwise() += Eigen::Map<const RowVector>(bias, cols);
#else
    (void)x;
    (void)w;
    (void)bias;
    (void)out;
#endif
}

}  // namespace attn
