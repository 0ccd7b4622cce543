#include "core/ops/HashEmbedder.h"

#include "core/base/SplitMix64.h"

#include <QCache>
#include <QHash>
#include <QMutex>
#include <QMutexLocker>

namespace attn {
namespace {

// FNV-1a over the UTF-8 bytes: stable across runs, unlike qHash, which is salted per process.
std::uint64_t fnv1a(const QByteArray& bytes)
{
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (char c : bytes) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ull;
    }
    return hash;
}

RowVector generateFolded(const QString& folded, std::uint64_t seed, int dim)
{
    SplitMix64 rng(fnv1a(folded.toUtf8()) ^ (seed * 0x9E3779B97F4A7C15ull));
    RowVector vector(dim);  // (dim)
    for (int i = 0; i < dim; ++i)
        vector[i] = static_cast<float>(rng.normal());
    return vector;
}

struct CacheKey {
    QString folded;  // case-folded token text
    std::uint64_t seed = 0;
    int dim = 0;
    bool operator==(const CacheKey&) const = default;
};

size_t qHash(const CacheKey& key, size_t salt = 0)
{
    return qHashMulti(salt, key.folded, key.seed, key.dim);
}

// One LRU for the process (the GUI thread, the worker and the command line all embed through
// it); the cost of a vector is its number of floats.
struct VectorCache {
    QMutex mutex;
    QCache<CacheKey, RowVector> vectors{HashEmbedder::kCacheFloats};
};

VectorCache& vectorCache()
{
    static VectorCache cache;
    return cache;
}

// The cached vector of one token, generating it on a miss. The caller holds the cache's mutex;
// the returned pointer is valid until the next insertion.
const RowVector* lookup(VectorCache& cache, const QString& text, std::uint64_t seed, int dim)
{
    CacheKey key{text.toCaseFolded(), seed, dim};
    if (const RowVector* hit = cache.vectors.object(key))
        return hit;
    auto* vector = new RowVector(generateFolded(key.folded, seed, dim));
    if (cache.vectors.insert(key, vector, dim))
        return cache.vectors.object(key);
    return nullptr;  // larger than the whole cache: QCache deleted it
}

}  // namespace

RowVector HashEmbedder::generate(const QString& text, std::uint64_t seed, int dim)
{
    return generateFolded(text.toCaseFolded(), seed, dim);
}

RowVector HashEmbedder::embed(const QString& text, std::uint64_t seed, int dim)
{
    VectorCache& cache = vectorCache();
    QMutexLocker lock(&cache.mutex);
    if (const RowVector* vector = lookup(cache, text, seed, dim))
        return *vector;
    lock.unlock();
    return generate(text, seed, dim);
}

Matrix HashEmbedder::embed(const TokenList& tokens, std::uint64_t seed, int dim)
{
    Matrix x(tokens.size(), dim);  // (seq_len, dim)
    VectorCache& cache = vectorCache();
    QMutexLocker lock(&cache.mutex);
    for (qsizetype t = 0; t < tokens.size(); ++t) {
        if (const RowVector* vector = lookup(cache, tokens[t].text, seed, dim))
            x.row(t) = *vector;
        else
            x.row(t) = generate(tokens[t].text, seed, dim);
    }
    return x;
}

qsizetype HashEmbedder::cachedVectorCount()
{
    VectorCache& cache = vectorCache();
    QMutexLocker lock(&cache.mutex);
    return cache.vectors.count();
}

}  // namespace attn
