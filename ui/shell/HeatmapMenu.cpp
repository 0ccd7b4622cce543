#include "ui/shell/HeatmapMenu.h"

#include <QActionGroup>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace attn {

HeatmapMenu::HeatmapMenu(QWidget* parent) : QMenu(tr("&Heatmaps"), parent)
{
    setToolTipsVisible(true);
    m_scales = new QActionGroup(this);
    for (ColorScale scale : ColorScales::all()) {
        QAction* action = addAction(ColorScales::title(scale));
        action->setCheckable(true);
        action->setChecked(scale == m_scale);
        action->setToolTip(ColorScales::toolTip(scale));
        action->setData(int(scale));
        m_scales->addAction(action);
        connect(action, &QAction::triggered, this, [this, scale] { setColorScale(scale); });
    }
    addSeparator();
    m_aggregates = new QActionGroup(this);
    const std::pair<HeadAggregate, QString> aggregates[] = {{HeadAggregate::None, tr("No extra head")},
                                                            {HeadAggregate::Mean, tr("Extra head: mean of the heads")},
                                                            {HeadAggregate::Max, tr("Extra head: max of the heads")}};
    for (const auto& [aggregate, title] : aggregates) {
        QAction* action = addAction(title);
        action->setCheckable(true);
        action->setChecked(aggregate == m_aggregate);
        action->setToolTip(tr("All heads: one more heatmap after the last head; in the Model tab also each head "
                              "across the layers, and every head of every layer"));
        m_aggregates->addAction(action);
        action->setData(int(aggregate));
        connect(action, &QAction::triggered, this, [this, aggregate] { setAggregate(aggregate); });
    }
    addSeparator();
    m_masses = new QActionGroup(this);
    for (double fraction : kTopMassChoices) {
        QAction* action = addAction(fraction >= 1.0 ? tr("Every key of a row")
                                                    : tr("Top %1% of each row").arg(std::lround(fraction * 100)));
        action->setCheckable(true);
        action->setChecked(fraction == m_top_mass);
        action->setToolTip(
            tr("Per query row, the strongest keys that together hold this share of the row's weight "
               "are drawn; the others are dimmed (exBERT's top X %)"));
        m_masses->addAction(action);
        connect(action, &QAction::triggered, this, [this, fraction] { setTopMass(fraction); });
    }
    addSeparator();
    m_reductions = new QActionGroup(this);
    for (CellReduction how : {CellReduction::Max, CellReduction::Mean}) {
        QAction* action = addAction(how == CellReduction::Max ? tr("Reduced pixels: the &largest cell")
                                                              : tr("Reduced pixels: the m&ean of the cells"));
        action->setCheckable(true);
        action->setChecked(how == m_reduction);
        action->setToolTip(
            tr("A matrix with more cells than the plot has pixels draws each pixel from the "
               "cells under it"));
        action->setData(int(how));
        m_reductions->addAction(action);
        connect(action, &QAction::triggered, this, [this, how] { setReduction(how); });
    }
    addSeparator();
    m_show_all = addAction(tr("Show every &token"));
    m_show_all->setToolTip(tr("Hidden tokens: right-click a token chip to hide it in the heatmaps"));
    m_show_all->setEnabled(false);
    connect(m_show_all, &QAction::triggered, this, [this] { setHiddenKeys({}); });
}

QAction* HeatmapMenu::scaleAction(ColorScale scale) const
{
    for (QAction* action : m_scales->actions())
        if (action->data().toInt() == int(scale))
            return action;
    return nullptr;
}

void HeatmapMenu::setColorScale(ColorScale scale)
{
    if (QAction* action = scaleAction(scale))
        action->setChecked(true);
    if (scale == m_scale)
        return;
    m_scale = scale;
    emit colorScaleChanged(scale);
}

void HeatmapMenu::setTopMass(double fraction)
{
    for (int i = 0; i < int(std::size(kTopMassChoices)); ++i)
        m_masses->actions()[i]->setChecked(kTopMassChoices[i] == fraction);
    if (fraction == m_top_mass)
        return;
    m_top_mass = fraction;
    emit topMassChanged(fraction);
}

void HeatmapMenu::setAggregate(HeadAggregate aggregate)
{
    for (QAction* action : m_aggregates->actions())
        action->setChecked(action->data().toInt() == int(aggregate));
    if (aggregate == m_aggregate)
        return;
    m_aggregate = aggregate;
    emit aggregateChanged(aggregate);
}

void HeatmapMenu::setReduction(CellReduction how)
{
    for (QAction* action : m_reductions->actions())
        action->setChecked(action->data().toInt() == int(how));
    if (how == m_reduction)
        return;
    m_reduction = how;
    emit reductionChanged(how);
}

void HeatmapMenu::setHiddenKeys(const QList<int>& keys)
{
    QList<int> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    m_show_all->setEnabled(!sorted.isEmpty());
    if (sorted == m_hidden)
        return;
    m_hidden = sorted;
    emit hiddenKeysChanged(sorted);
}

}  // namespace attn
