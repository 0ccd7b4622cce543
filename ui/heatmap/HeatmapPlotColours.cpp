// HeatmapPlot: how values become colours (linear, log, per row), over which range, and the
// cells dimmed.
#include "ui/heatmap/HeatmapPlot.h"

#include "ui/heatmap/HeatmapPlotPrivate.h"

#include "core/analysis/AttentionDisplay.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

void HeatmapPlot::fillMap()
{
    if (m_values.size() > 0) {
        const Matrix& colours = colourValues();
        const bool reused = d->map->data() == d->made_data && refillColorMapData(d->map->data(), colours, m_mask);
        if (!reused) {
            d->made_data = makeColorMapData(colours, m_mask);
            d->map->setData(d->made_data);  // takes ownership
        }
    } else {
        d->map->data()->clear();
    }
    d->map->setVisible(m_values.size() > 0);
}

void HeatmapPlot::updateColourValues()
{
    switch (m_mapping) {
        case ColorMapping::Linear:
            m_colour_values = Matrix();
            break;
        case ColorMapping::Log:  // the logarithm of 0 has no colour: the bottom of the range does
            m_colour_values = m_values.cwiseMax(float(colourLow()));
            break;
        case ColorMapping::PerRow:
            if (m_row_tops.size() == size_t(m_values.rows())) {  // a zoomed window: by its whole rows
                m_colour_values = m_values;
                for (int row = 0; row < int(m_values.rows()); ++row) {
                    const float top = m_row_tops[size_t(row)];
                    if (top > 0.0f)
                        m_colour_values.row(row) /= top;
                    else
                        m_colour_values.row(row).setZero();
                }
            } else {
                m_colour_values = AttentionDisplay::perRowScaled(m_values, m_mask);
            }
            break;
    }
}

void HeatmapPlot::setColorMapping(ColorMapping mapping)
{
    if (mapping == m_mapping)
        return;
    m_mapping = mapping;
    const bool log = mapping == ColorMapping::Log;
    d->scale->setDataScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);  // the map follows its scale
    if (log)
        d->scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        d->scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
    updateColourValues();
    fillMap();
    updateRange();
    scheduleReplot();
    // Each row to its max in a window narrower than the matrix needs its whole rows' maxima.
    if (mapping == ColorMapping::PerRow && m_drawn.columns < m_full_columns)
        requestReduction(true);
}

void HeatmapPlot::setDimmed(const MaskMatrix& dimmed)
{
    const bool fits = dimmed.rows() == m_values.rows() && dimmed.cols() == m_values.cols() && dimmed.any();
    m_dimmed = fits ? dimmed : MaskMatrix();
    scheduleReplot();
}

void HeatmapPlot::setTopMass(double fraction)
{
    fraction = std::clamp(fraction, 0.01, 1.0);
    if (fraction == m_top_mass)
        return;
    m_top_mass = fraction;
    if (m_factor > 1 || m_drawn != CellWindow{0, 0, m_full_rows, m_full_columns})
        return;  // reduced (or a window of a reduced matrix): dimmed by block with the next setMatrix
    setDimmed(m_top_mass < 1.0 ? MaskMatrix(!AttentionDisplay::topMass(m_values, m_top_mass).array()) : MaskMatrix());
}

bool HeatmapPlot::isDimmed(int row, int column) const
{
    return m_dimmed.size() > 0 && m_dimmed(row, column);
}

double HeatmapPlot::colourLow() const
{
    return m_mapping == ColorMapping::PerRow ? 0.0 : m_low;
}

double HeatmapPlot::colourHigh() const
{
    return m_mapping == ColorMapping::PerRow ? 1.0 : m_high;
}

double HeatmapPlot::colourPosition(int row, int column) const
{
    const double value = colourValues()(row, column);
    const double low = colourLow();
    const double high = colourHigh();
    if (m_mapping == ColorMapping::Log)
        return std::log(std::max(value, low) / low) / std::max(1e-12, std::log(high / low));
    return (value - low) / std::max(1e-12, high - low);
}

void HeatmapPlot::setColorMap(ColorMaps::Map map)
{
    m_map = map;
    applyColorMap(d->map, map);
    updateRange();
    scheduleReplot();
}

void HeatmapPlot::setValueRange(double low, double high)
{
    m_auto_range = false;
    m_low = low;
    m_high = high > low ? high : low + 1e-9;
    if (m_mapping == ColorMapping::Log) {  // the values are clamped to the new low end
        updateColourValues();
        fillMap();
    }
    updateRange();
    scheduleReplot();
}

void HeatmapPlot::setAutoValueRange()
{
    m_auto_range = true;
    updateRange();
    scheduleReplot();
}

void HeatmapPlot::updateRange()
{
    if (m_auto_range && m_values.size() > 0) {
        double low = std::numeric_limits<double>::infinity();
        double high = -low;
        if (!hasMask() && m_values.allFinite()) {
            low = m_values.minCoeff();
            high = m_values.maxCoeff();
        } else {
            for (int row = 0; row < m_values.rows(); ++row)
                for (int column = 0; column < m_values.cols(); ++column)
                    if (!m_mask(row, column)) {
                        low = std::min(low, double(m_values(row, column)));
                        high = std::max(high, double(m_values(row, column)));
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
    d->map->setDataRange(QCPRange(colourLow(), colourHigh()));
}

}  // namespace attn
