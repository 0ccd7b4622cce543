#include "WeightFile.h"

namespace attn {

Result<LoadedWeights> WeightFile::load(const QString& path, const WeightFileOptions&)
{
    return Error{QStringLiteral("%1: weight files are not readable yet").arg(path)};
}

}  // namespace attn
