#pragma once

#include "core/analysis/ShapeData.h"
#include "ui/views/shapes/TensorGlyph.h"

#include <QString>

#include <vector>

namespace attn {

// What the shape diagram puts in each cell, and how a step becomes a box. Kept apart from the
// drawing so the layout reads on its own.

// One cell of the diagram: a step of the computation with one to three boxes.
struct DiagramStage {
    QString title;
    std::vector<int> steps;  // indices into the model's steps
    QString shape_line;      // "(32, 10, 512)", "(512, 512) each"
    QString names_line;      // "(B, T, d_in)"
    QString caption;         // the formula
};

// Rows read left to right: the projections; the heads; [rotary positions, repeat_kv: a row of
// their own]; scores, [mask], softmax; the output.
std::vector<std::vector<DiagramStage>> diagramStages(const ShapeData& model);

// Box sides are log-scaled so that 1 and 2,048 both fit: logSide(n) = unit (1 + log2 n).
double logSide(std::int64_t n, double unit);

// The box of one step at a given unit; every size in it is proportional to the unit.
TensorGlyph glyphForStep(const ShapeStep& step, const ShapeConfig& config, double unit, int selected_head);

// The name written over a box when a cell holds several: "Q", "Wk", "V_h".
QString boxLabel(const ShapeStep& step);

}  // namespace attn
