#include "TokenEmbedder.h"

#include "SplitMix64.h"

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

}  // namespace

RowVector TokenEmbedder::embed(const QString& text, std::uint64_t seed, int dim)
{
    SplitMix64 rng(fnv1a(text.toCaseFolded().toUtf8()) ^ (seed * 0x9E3779B97F4A7C15ull));
    RowVector vector(dim);
    for (int i = 0; i < dim; ++i)
        vector[i] = static_cast<float>(rng.normal());
    return vector;
}

Matrix TokenEmbedder::embed(const TokenList& tokens, std::uint64_t seed, int dim)
{
    Matrix x(tokens.size(), dim);  // (seq_len, dim)
    for (qsizetype t = 0; t < tokens.size(); ++t)
        x.row(t) = embed(tokens[t].text, seed, dim);
    return x;
}

}  // namespace attn
