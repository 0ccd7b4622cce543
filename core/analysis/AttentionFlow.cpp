#include "core/analysis/AttentionFlow.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <vector>

namespace attn {
namespace {

// Dinic's maximum flow on a small directed graph with double capacities (an edge and its
// residual twin are stored side by side: edge e's twin is e ^ 1).
class MaxFlow {
public:
    explicit MaxFlow(int nodes) : m_first(size_t(nodes), -1), m_level(size_t(nodes)), m_next_edge(size_t(nodes)) {}

    void addEdge(int from, int to, double capacity)
    {
        m_edges.push_back({to, m_first[size_t(from)], capacity});
        m_first[size_t(from)] = int(m_edges.size()) - 1;
        m_edges.push_back({from, m_first[size_t(to)], 0.0});
        m_first[size_t(to)] = int(m_edges.size()) - 1;
        m_capacity.push_back(capacity);
        m_capacity.push_back(0.0);
    }

    double run(int source, int sink)
    {
        for (size_t e = 0; e < m_edges.size(); ++e)
            m_edges[e].residual = m_capacity[e];
        double flow = 0.0;
        while (levels(source, sink)) {
            std::copy(m_first.begin(), m_first.end(), m_next_edge.begin());
            while (const double pushed = push(source, sink, std::numeric_limits<double>::infinity()))
                flow += pushed;
        }
        return flow;
    }

private:
    struct Edge {
        int to;
        int next;  // the next edge out of the same node, -1 at the end
        double residual;
    };
    static constexpr double kEpsilon = 1e-15;  // residuals below this are used up (sums of doubles)

    bool levels(int source, int sink)
    {
        std::fill(m_level.begin(), m_level.end(), -1);
        std::queue<int> queue;
        m_level[size_t(source)] = 0;
        queue.push(source);
        while (!queue.empty()) {
            const int node = queue.front();
            queue.pop();
            for (int e = m_first[size_t(node)]; e >= 0; e = m_edges[size_t(e)].next)
                if (m_edges[size_t(e)].residual > kEpsilon && m_level[size_t(m_edges[size_t(e)].to)] < 0) {
                    m_level[size_t(m_edges[size_t(e)].to)] = m_level[size_t(node)] + 1;
                    queue.push(m_edges[size_t(e)].to);
                }
        }
        return m_level[size_t(sink)] >= 0;
    }

    double push(int node, int sink, double limit)
    {
        if (node == sink)
            return limit;
        for (int& e = m_next_edge[size_t(node)]; e >= 0; e = m_edges[size_t(e)].next) {
            Edge& edge = m_edges[size_t(e)];
            if (edge.residual <= kEpsilon || m_level[size_t(edge.to)] != m_level[size_t(node)] + 1)
                continue;
            const double pushed = push(edge.to, sink, std::min(limit, edge.residual));
            if (pushed > 0.0) {
                edge.residual -= pushed;
                m_edges[size_t(e ^ 1)].residual += pushed;
                return pushed;
            }
        }
        return 0.0;
    }

    std::vector<Edge> m_edges;
    std::vector<double> m_capacity;
    std::vector<int> m_first;
    std::vector<int> m_level;
    std::vector<int> m_next_edge;
};

}  // namespace

Result<MatrixD> AttentionFlow::compute(const AttentionMaps& maps, const AttentionRollout::Options& options)
{
    const int seq_len = maps.seqLen();
    const int layers = maps.numLayers();
    if (!(options.residual_weight >= 0.0 && options.residual_weight <= 1.0))
        return Error{QStringLiteral("the residual weight must be between 0 and 1, got %1").arg(options.residual_weight)};
    if (layers == 0 || seq_len == 0)
        return Error{QStringLiteral("there is no attention to follow")};
    if (seq_len > kMaxTokens)
        return Error{QStringLiteral("attention flow is computed for at most %1 tokens (this input has %2): it needs "
                                    "a maximum flow for every pair of tokens; use the rollout")
                         .arg(kMaxTokens)
                         .arg(seq_len)};
    // Node (l, i) is l * T + i: l = 0 the inputs, l = L the last layer's tokens.
    MaxFlow graph((layers + 1) * seq_len);
    for (int l = 0; l < layers; ++l) {
        const MatrixD layer_map = AttentionRollout::layerMap(maps, l, options);  // (T, T)
        for (int i = 0; i < seq_len; ++i)
            for (int j = 0; j < seq_len; ++j)
                if (layer_map(i, j) > 0.0)
                    graph.addEdge((l + 1) * seq_len + i, l * seq_len + j, layer_map(i, j));
    }
    MatrixD flow = MatrixD::Zero(seq_len, seq_len);  // (T, T)
    for (int i = 0; i < seq_len; ++i) {
        for (int j = 0; j < seq_len; ++j)
            flow(i, j) = graph.run(layers * seq_len + i, j);
        const double sum = flow.row(i).sum();
        if (sum > 0.0)
            flow.row(i) /= sum;
    }
    return flow;
}

}  // namespace attn
