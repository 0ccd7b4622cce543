#include "core/model/ForwardIntervention.h"

#include <QString>

#include <algorithm>

namespace attn {

std::vector<Matrix>& ActivationRecord::at(InterventionSite site)
{
    switch (site) {
        case InterventionSite::Residual:
            return residual;
        case InterventionSite::Attention:
            return attention;
        case InterventionSite::Mlp:
            return mlp;
        case InterventionSite::HeadZ:
            break;
    }
    return head_z;
}

const std::vector<Matrix>& ActivationRecord::at(InterventionSite site) const
{
    return const_cast<ActivationRecord*>(this)->at(site);
}

void ForwardIntervention::ablateHead(int layer, int head, HeadAblation mode)
{
    Replacement r;
    r.site = InterventionSite::HeadZ;
    r.layer = layer;
    r.index = head;
    r.kind = mode == HeadAblation::Zero ? Replacement::Kind::Zero : Replacement::Kind::Mean;
    m_replacements.push_back(std::move(r));
}

void ForwardIntervention::replaceHead(int layer, int head, Matrix z)
{
    Replacement r;
    r.site = InterventionSite::HeadZ;
    r.layer = layer;
    r.index = head;
    r.kind = Replacement::Kind::Given;
    r.values = std::move(z);
    m_replacements.push_back(std::move(r));
}

void ForwardIntervention::replaceRow(InterventionSite site, int layer, int position, RowVector value)
{
    Replacement r;
    r.site = site;
    r.layer = layer;
    r.index = position;
    r.kind = Replacement::Kind::Given;
    r.values = std::move(value);
    m_replacements.push_back(std::move(r));
}

void ForwardIntervention::record(InterventionSite site, ActivationRecord* into)
{
    m_recordings.push_back({site, into});
}

bool ForwardIntervention::isEmpty() const
{
    return m_replacements.empty() && m_recordings.empty() && m_start_layer == 0 && !m_output_only;
}

bool ForwardIntervention::acts(int layer, InterventionSite site) const
{
    return std::any_of(m_recordings.begin(), m_recordings.end(),
                       [site](const Recording& r) { return r.site == site; }) ||
           std::any_of(m_replacements.begin(), m_replacements.end(),
                       [layer, site](const Replacement& r) { return r.layer == layer && r.site == site; });
}

bool ForwardIntervention::acts(int layer) const
{
    return !m_recordings.empty() || std::any_of(m_replacements.begin(), m_replacements.end(),
                                                [layer](const Replacement& r) { return r.layer == layer; });
}

std::vector<int> ForwardIntervention::replacedHeads(int layer) const
{
    std::vector<int> heads;
    for (const Replacement& r : m_replacements)
        if (r.layer == layer && r.site == InterventionSite::HeadZ &&
            std::find(heads.begin(), heads.end(), r.index) == heads.end())
            heads.push_back(r.index);
    return heads;
}

void ForwardIntervention::apply(int layer, InterventionSite site, Matrix& activation, int head_dim) const
{
    for (const Replacement& r : m_replacements) {
        if (r.layer != layer || r.site != site)
            continue;
        if (site == InterventionSite::HeadZ) {
            auto z = activation.middleCols(Eigen::Index(r.index) * head_dim, head_dim);  // (T, D)
            switch (r.kind) {
                case Replacement::Kind::Zero:
                    z.setZero();
                    break;
                case Replacement::Kind::Mean: {
                    const RowVector mean = z.colwise().mean();  // (D): over the T positions
                    z.rowwise() = mean;
                    break;
                }
                case Replacement::Kind::Given:
                    z = r.values;
                    break;
            }
        } else {
            activation.row(r.index) = r.values.row(0);
        }
    }
    for (const Recording& rec : m_recordings) {
        if (rec.site != site || !rec.into)
            continue;
        std::vector<Matrix>& kept = rec.into->at(site);
        if (int(kept.size()) <= layer)
            kept.resize(size_t(layer) + 1);
        kept[size_t(layer)] = activation;
    }
}

std::function<void(Matrix&)> ForwardIntervention::headOutputsHook(int layer, int head_dim) const
{
    if (!acts(layer, InterventionSite::HeadZ))
        return {};
    return [this, layer, head_dim](Matrix& concat) { apply(layer, InterventionSite::HeadZ, concat, head_dim); };
}

bool ForwardIntervention::fits(int num_layers, int num_heads, int head_dim, int hidden_size, int seq_len,
                               QString* why) const
{
    const auto refuse = [why](const QString& text) {
        if (why)
            *why = text;
        return false;
    };
    if (m_start_layer < 0 || m_start_layer >= num_layers)
        return refuse(
            QStringLiteral("start layer %1 is outside layers 0 to %2").arg(m_start_layer).arg(num_layers - 1));
    for (const Replacement& r : m_replacements) {
        if (r.layer < m_start_layer || r.layer >= num_layers)
            return refuse(QStringLiteral("layer %1 is outside layers %2 to %3")
                              .arg(r.layer)
                              .arg(m_start_layer)
                              .arg(num_layers - 1));
        const int count = r.site == InterventionSite::HeadZ ? num_heads : seq_len;
        if (r.index < 0 || r.index >= count)
            return refuse(
                QStringLiteral("%1 %2 is outside %1s 0 to %3")
                    .arg(r.site == InterventionSite::HeadZ ? QStringLiteral("head") : QStringLiteral("position"))
                    .arg(r.index)
                    .arg(count - 1));
        const bool head = r.site == InterventionSite::HeadZ;
        if (r.kind == Replacement::Kind::Given &&
            (r.values.rows() != (head ? seq_len : 1) || r.values.cols() != (head ? head_dim : hidden_size)))
            return refuse(QStringLiteral("the replacement at layer %1 is %2 x %3, the pass needs %4 x %5")
                              .arg(r.layer)
                              .arg(r.values.rows())
                              .arg(r.values.cols())
                              .arg(head ? seq_len : 1)
                              .arg(head ? head_dim : hidden_size));
    }
    return true;
}

}  // namespace attn
