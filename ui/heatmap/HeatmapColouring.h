#pragma once

#include "core/base/MaskMatrix.h"
#include "core/base/Tensor.h"
#include "ui/heatmap/ColorMaps.h"

#include <vector>

class QCPColorMap;
class QCPColorMapData;
class QCPColorScale;

namespace attn {

// How a heatmap's drawn values become colours: the colour map, the value range (fixed, or the
// data's, symmetric around 0 for a diverging map), the mapping over it (linear, logarithmic, or
// each row divided by its largest value first) and the cells dimmed (exBERT's top X % per row).
// Works on the drawn cells it is given (knows nothing of reductions or zoom) and puts their
// colours on a QCustomPlot colour map and its colour scale.
class HeatmapColouring {
public:
    enum class Mapping { Linear, Log, PerRow };

    void attach(QCPColorMap* map, QCPColorScale* scale);  // the map takes the scale's gradient and range

    Mapping mapping() const { return m_mapping; }
    void setMapping(Mapping mapping);  // and the scale's type
    ColorMaps::Map map() const { return m_map; }
    void setMap(ColorMaps::Map map);

    // The drawn cells' colours on the map: their colour values (update), the map's cells (fill)
    // and its range (applyRange).
    void show(const Matrix& values, const MaskMatrix& mask, const std::vector<float>& row_tops);
    void fill(const Matrix& values, const MaskMatrix& mask);
    void applyRange(const Matrix& values, const MaskMatrix& mask);

    void setValueRange(double low, double high);  // fixed
    void setAutoValueRange() { m_auto_range = true; }
    // The range of `values` outside `mask` when it is the data's (else the fixed one stays).
    void fitRange(const Matrix& values, const MaskMatrix& mask);
    double valueLow() const { return m_low; }
    double valueHigh() const { return m_high; }

    // What the colours are computed from (colourValues): the values (Linear), clamped to the low
    // end (Log), or each row over its largest unmasked value, or over `row_tops` (a zoomed
    // window's whole rows) when there is one per row.
    void update(const Matrix& values, const MaskMatrix& mask, const std::vector<float>& row_tops);
    const Matrix& colourValues(const Matrix& values) const
    {
        return m_mapping == Mapping::Linear ? values : m_colour_values;
    }
    double colourLow() const;
    double colourHigh() const;
    // The gradient position 0 .. 1 of the value at (row, column), as the cell is coloured.
    double colourPosition(const Matrix& values, int row, int column) const;

    // Top mass: per row, the keys outside the strongest that reach this share of the row's weight
    // are dimmed; 1: none. false when unchanged.
    bool setTopMass(double fraction);
    double topMass() const { return m_top_mass; }
    // The cells dimmed for the drawn `values`: computed from them when they are the whole matrix,
    // else the reduction's blocks (`reduced`); none without a top mass.
    void dimFor(const Matrix& values, bool whole, MaskMatrix reduced);
    void dimWhole(const Matrix& values);                             // a matrix drawn whole, after setTopMass
    void setDimmed(const Matrix& values, const MaskMatrix& dimmed);  // empty or of another shape: none
    bool isDimmed(int row, int column) const { return m_dimmed.size() > 0 && m_dimmed(row, column); }
    bool hasDimmed() const { return m_dimmed.size() > 0; }

private:
    QCPColorMap* m_qcp_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QCPColorMapData* m_made_data = nullptr;  // the map's data while it is makeColorMapData's
    Mapping m_mapping = Mapping::Linear;
    ColorMaps::Map m_map = ColorMaps::Map::Viridis;
    bool m_auto_range = true;
    double m_low = 0.0;
    double m_high = 1.0;
    Matrix m_colour_values;  // (rows, columns) with Log and PerRow; else empty
    double m_top_mass = 1.0;
    MaskMatrix m_dimmed;  // (rows, columns), or empty
};

}  // namespace attn
