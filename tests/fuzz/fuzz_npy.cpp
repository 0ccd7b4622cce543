// libFuzzer target: a .npy, in memory (NpyReader::read and readInteger, as npz members are read)
// and as a file (NpyReader::readMatrixFile, as --input reads one).

#include "core/io/NpyReader.h"
#include "tests/fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attn;
    const QByteArray bytes = fuzz::bytesOf(data, size);
    auto header = NpyReader::parseHeader(bytes);
    auto array = NpyReader::read(bytes);
    if (array) {
        FUZZ_CHECK(header.ok());
        fuzz::checkArray(*array);
    } else {
        fuzz::checkMessage(array.error());
    }
    (void)NpyReader::readInteger(bytes);

    auto matrix = NpyReader::readMatrixFile(fuzz::writeInputFile(bytes, QStringLiteral(".npy")));
    if (matrix) {
        FUZZ_CHECK(array.ok() && matrix->rows() >= 1 && matrix->cols() >= 1);
        FUZZ_CHECK(matrix->allFinite());
    } else {
        fuzz::checkPrintedMessage(matrix.error());
    }
    return 0;
}
