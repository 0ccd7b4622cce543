#!/usr/bin/env python3
"""How fast a pass would have to run to meet a speed goal, against the FMA peak.

Reads a Markdown table printed by bench_table.py (the engine) or bench_models_table.py (whole
models) and prints, for each row, the float32 multiply-adds of the products the pass cannot skip,
the GFLOP/s that attention-lab and PyTorch reached, and the GFLOP/s a pass would need to take
--goal x PyTorch's time, as a share of the machine's two-core FMA peak (attention_bench fmaPeak
gives one core's). A row that needs more than 100 % cannot meet the goal with float32 products
however they are written; one that needs about what the products alone reach (76-90 % of the peak
on the 2-core Zen 4 EPYC) would need every step of the pass to run as fast as the fastest products.

Counted: the four projections (or a model's fused ones and its MLP) and the attention products
Q K^T and weights x V over the key pairs that count (the lower triangle of a causal pass). Not
counted: softmax, norms, activations, embeddings: work a pass must also do, so the real need is
higher than printed.

  python3 scripts/bench_needed_peak.py TABLE.md --peak 230
"""

import argparse
import re

# The shapes of tests/support/RandomModel.cpp: layers, width, heads, key/value heads, MLP width,
# MLP matrices (2: in and out; 3: gate, up, down), causal.
MODELS = {
    "gpt2": (12, 768, 12, 12, 3072, 2, True),
    "bert": (12, 768, 12, 12, 3072, 2, False),
    "smollm2": (30, 576, 9, 3, 1536, 3, True),
    "qwen2": (24, 896, 14, 2, 4864, 3, True),
}


def key_pairs(tokens, causal):
    return tokens * (tokens + 1) / 2 if causal else tokens * tokens


def model_flops(name, tokens):
    layers, width, heads, kv_heads, mlp, mlp_matrices, causal = MODELS[name]
    head_dim = width // heads
    projections = 2 * tokens * (2 * width * width + 2 * width * kv_heads * head_dim + mlp_matrices * width * mlp)
    attention = 2 * 2 * key_pairs(tokens, causal) * head_dim * heads
    return layers * (projections + attention)


def engine_flops(tokens, width, causal):
    return 2 * 4 * tokens * width * width + 2 * 2 * key_pairs(tokens, causal) * width


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table")
    parser.add_argument("--peak", type=float, required=True, help="the two cores' float32 FMA peak, GFLOP/s")
    parser.add_argument("--goal", type=float, default=0.7)
    args = parser.parse_args()

    print(f"| row | GFLOP | attention-lab GFLOP/s | PyTorch GFLOP/s | needed for {args.goal}x | of the peak |")
    print("|---|---:|---:|---:|---:|---:|")
    torch_columns = []
    for line in open(args.table, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "row":  # the header: PyTorch's time columns say "PyTorch ... ms"
            torch_columns = [i for i, c in enumerate(cells) if c.startswith("PyTorch") and "ms" in c]
            continue
        model = re.fullmatch(r"(\w+) T=(\d+)", cells[0])
        engine = re.fullmatch(r"T=(\d+) d=(\d+) h=\d+( causal)?", cells[0])
        if model and model.group(1) in MODELS:
            flops = model_flops(model.group(1), int(model.group(2)))
        elif engine:
            flops = engine_flops(int(engine.group(1)), int(engine.group(2)), bool(engine.group(3)))
        else:
            continue
        ours = float(cells[1])
        best = min(float(cells[i]) for i in torch_columns)  # the faster PyTorch
        needed = flops / (args.goal * best / 1e3) / 1e9
        print(f"| {cells[0]} | {flops / 1e9:.3g} | {flops / ours / 1e6:.0f} | {flops / best / 1e6:.0f} | "
              f"{needed:.0f} | {needed / args.peak:.0%} |")


if __name__ == "__main__":
    main()
