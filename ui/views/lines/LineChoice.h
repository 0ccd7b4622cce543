#pragma once

#include <vector>

namespace attn {

struct AttentionResult;

// Which lines the Lines view draws (LinesCanvas): weak weights left out, and for long inputs
// each query's strongest keys only, at most a given number of lines spread over the input.
class LineChoice {
public:
    struct Line {
        float weight;
        int head, query, key;
        // The line's strength as drawn (opacity and width), 0..1: the weight over the strongest
        // weight shown, or with keys per query over its query's strongest.
        float shade = 1.0f;
    };
    // Lines below this fraction of the strongest weight (opacity < 0.02) are not drawn.
    static constexpr float kMinRelativeWeight = 0.075f;
    static constexpr int kLinesPerBlock = 8;  // of max_lines: the blocks are this many lines each

    // The lines to draw for `heads` of `result`, weakest shade first. All keys (keys_per_query
    // 0): the weights above the threshold of the strongest weight shown. Else each query's
    // `keys_per_query` strongest, above the threshold of that query's strongest. At most
    // `max_lines`, spread over the input: the strongest of each block of queriesPerBlock queries,
    // an equal share each. With top_mass < 1 only the keys of each row that
    // AttentionDisplay::topMass keeps. Reads each weight once; allocates only the lines (and the
    // top-mass flags of one head at a time).
    static std::vector<Line> choose(const AttentionResult& result, const std::vector<int>& heads, int keys_per_query,
                                    int max_lines, double top_mass = 1.0);
    static int queriesPerBlock(int queries, int max_lines);

private:
    static std::vector<Line> spreadOverQueries(std::vector<Line> lines, int queries, int max_lines);
};

}  // namespace attn
