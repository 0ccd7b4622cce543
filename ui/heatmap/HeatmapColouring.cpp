#include "ui/heatmap/HeatmapColouring.h"

#include "core/analysis/AttentionDisplay.h"
#include "ui/heatmap/HeatmapCells.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

void HeatmapColouring::attach(QCPColorMap* map, QCPColorScale* scale)
{
    m_qcp_map = map;
    m_scale = scale;
}

void HeatmapColouring::setMapping(Mapping mapping)
{
    m_mapping = mapping;
    const bool log = mapping == Mapping::Log;
    m_scale->setDataScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);  // the map follows its scale
    if (log)
        m_scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
}

void HeatmapColouring::setMap(ColorMaps::Map map)
{
    m_map = map;
    applyColorMap(m_qcp_map, map);
}

void HeatmapColouring::show(const Matrix& values, const MaskMatrix& mask, const std::vector<float>& row_tops)
{
    update(values, mask, row_tops);
    fill(values, mask);
    applyRange(values, mask);
}

void HeatmapColouring::fill(const Matrix& values, const MaskMatrix& mask)
{
    if (values.size() > 0) {
        const Matrix& colours = colourValues(values);
        const bool reused = m_qcp_map->data() == m_made_data && refillColorMapData(m_qcp_map->data(), colours, mask);
        if (!reused) {
            m_made_data = makeColorMapData(colours, mask);
            m_qcp_map->setData(m_made_data);  // takes ownership
        }
    } else {
        m_qcp_map->data()->clear();
    }
    m_qcp_map->setVisible(values.size() > 0);
}

void HeatmapColouring::applyRange(const Matrix& values, const MaskMatrix& mask)
{
    fitRange(values, mask);
    m_qcp_map->setDataRange(QCPRange(colourLow(), colourHigh()));
}

void HeatmapColouring::setValueRange(double low, double high)
{
    m_auto_range = false;
    m_low = low;
    m_high = high > low ? high : low + 1e-9;
}

void HeatmapColouring::fitRange(const Matrix& values, const MaskMatrix& mask)
{
    if (!m_auto_range || values.size() == 0)
        return;
    double low = std::numeric_limits<double>::infinity();
    double high = -low;
    if (mask.size() == 0 && values.allFinite()) {
        low = values.minCoeff();
        high = values.maxCoeff();
    } else {
        for (int row = 0; row < values.rows(); ++row)
            for (int column = 0; column < values.cols(); ++column)
                if (!mask(row, column)) {
                    low = std::min(low, double(values(row, column)));
                    high = std::max(high, double(values(row, column)));
                }
    }
    if (!std::isfinite(low) || !std::isfinite(high)) {
        low = 0;
        high = 1;
    }
    if (m_map == ColorMaps::Map::Diverging) {
        const double extent = std::max(std::abs(low), std::abs(high));
        low = -extent;
        high = extent;
    }
    m_low = low;
    m_high = high > low ? high : low + 1e-9;
}

void HeatmapColouring::update(const Matrix& values, const MaskMatrix& mask, const std::vector<float>& row_tops)
{
    switch (m_mapping) {
        case Mapping::Linear:
            m_colour_values = Matrix();
            break;
        case Mapping::Log:  // the logarithm of 0 has no colour: the bottom of the range does
            m_colour_values = values.cwiseMax(float(colourLow()));
            break;
        case Mapping::PerRow:
            if (row_tops.size() == size_t(values.rows())) {  // a zoomed window: by its whole rows
                m_colour_values = values;
                for (int row = 0; row < int(values.rows()); ++row) {
                    const float top = row_tops[size_t(row)];
                    if (top > 0.0f)
                        m_colour_values.row(row) /= top;
                    else
                        m_colour_values.row(row).setZero();
                }
            } else {
                m_colour_values = AttentionDisplay::perRowScaled(values, mask);
            }
            break;
    }
}

double HeatmapColouring::colourLow() const
{
    return m_mapping == Mapping::PerRow ? 0.0 : m_low;
}

double HeatmapColouring::colourHigh() const
{
    return m_mapping == Mapping::PerRow ? 1.0 : m_high;
}

double HeatmapColouring::colourPosition(const Matrix& values, int row, int column) const
{
    const double value = colourValues(values)(row, column);
    const double low = colourLow();
    const double high = colourHigh();
    if (m_mapping == Mapping::Log)
        return std::log(std::max(value, low) / low) / std::max(1e-12, std::log(high / low));
    return (value - low) / std::max(1e-12, high - low);
}

bool HeatmapColouring::setTopMass(double fraction)
{
    fraction = std::clamp(fraction, 0.01, 1.0);
    if (fraction == m_top_mass)
        return false;
    m_top_mass = fraction;
    return true;
}

void HeatmapColouring::dimFor(const Matrix& values, bool whole, MaskMatrix reduced)
{
    if (m_top_mass < 1.0)
        m_dimmed = whole ? MaskMatrix(!AttentionDisplay::topMass(values, m_top_mass).array()) : std::move(reduced);
    if (m_dimmed.rows() != values.rows() || m_dimmed.cols() != values.cols() || !m_dimmed.any())
        m_dimmed = MaskMatrix();
}

void HeatmapColouring::dimWhole(const Matrix& values)
{
    setDimmed(values,
              m_top_mass < 1.0 ? MaskMatrix(!AttentionDisplay::topMass(values, m_top_mass).array()) : MaskMatrix());
}

void HeatmapColouring::setDimmed(const Matrix& values, const MaskMatrix& dimmed)
{
    const bool fits = dimmed.rows() == values.rows() && dimmed.cols() == values.cols() && dimmed.any();
    m_dimmed = fits ? dimmed : MaskMatrix();
}

}  // namespace attn
