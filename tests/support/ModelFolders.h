#pragma once

// Model folders for the --model tests, made from the fixtures in tests/fixtures/models/: copied
// into a temporary folder, then changed one thing at a time (a config key, a tensor renamed,
// reshaped, re-typed or left out, the weights split into shards).

#include "tests/support/WeightFileWriters.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <vector>

namespace attn::testing {

QString modelFixture(const QString& name);  // tests/fixtures/models/<name>

// The tensors of a safetensors file exactly as stored (dtype, shape, bytes).
std::vector<StTensor> storedTensors(const QString& path);

// Copies every file of a folder (not recursively).
bool copyFolder(const QString& from, const QString& to);

QJsonObject readJsonObject(const QString& path);
bool writeJsonObject(const QString& path, const QJsonObject& object);

// config.json of `dir` changed by `edit`.
bool editConfig(const QString& dir, const std::function<void(QJsonObject&)>& edit);
// model.safetensors of `dir` rewritten from its tensors changed by `edit`.
bool editTensors(const QString& dir, const std::function<void(std::vector<StTensor>&)>& edit);
// model.safetensors of `dir` replaced by `shards` files model-0000i-of-0000n.safetensors and
// model.safetensors.index.json (tensors dealt out in turn).
bool splitIntoShards(const QString& dir, int shards);

// Every F32 tensor of the list rounded to the values F16 and BF16 both hold exactly (8
// significant bits, nothing below 2^-17), so one set of numbers can be stored in all three dtypes.
void roundToHalfPrecision(std::vector<StTensor>& tensors);
// The same numbers stored as F16 or BF16 (F32 tensors only; the values must be exact in the
// target, see roundToHalfPrecision).
void storeAs(std::vector<StTensor>& tensors, const QString& dtype);

// A copy of mistral-tiny in dir/no-head without lm_head.weight: a folder without a prediction
// head. Empty if it could not be made.
QString folderWithoutPredictionHead(const QString& dir);
// The arguments naming a refusal case's model: {"--model", the fixture's folder} for a fixture's
// name, folderWithoutPredictionHead(dir) for "no-head", nothing for "" (no --model). Empty for a
// "no-head" that could not be made.
QStringList modelArguments(const QString& fixture, const QString& dir);

}  // namespace attn::testing
