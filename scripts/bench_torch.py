#!/usr/bin/python3
"""PyTorch's CPU nn.MultiheadAttention on the rows of tests/attention_bench.cpp.

Run with /usr/bin/python3 (the interpreter that has torch). Prints CSV in the layout of Qt Test's
`-csv` output, one line per row, with the same row names ("T=64 d=512 h=8", "... causal"):

    "forward","T=64 d=512 h=8","WalltimeMilliseconds",<median ms>,<median ms>,1

Each row: nn.MultiheadAttention(d, h, batch_first=True), input (1, T, d) uniform in [-1, 1),
forward(x, x, x, need_weights=True, average_attn_weights=False) so every head's (T, T) weights
are returned like attention-lab's TraceDetail::Weights, a float causal mask (-inf above the
diagonal) on causal rows, under torch.no_grad() with 2 threads; warm-up passes, then the median
of timed repeats.
"""

import argparse
import statistics
import sys
import time

import torch

SEQ_LENS = [8, 16, 32, 64, 128, 256, 512, 1024, 2048]
MODELS = [(64, 4), (512, 8), (768, 12)]


def row_name(seq_len, d_model, num_heads, causal):
    return f"T={seq_len} d={d_model} h={num_heads}" + (" causal" if causal else "")


def rows():
    for d_model, num_heads in MODELS:
        for seq_len in SEQ_LENS:
            for causal in (False, True):
                yield seq_len, d_model, num_heads, causal


def time_row(seq_len, d_model, num_heads, causal, min_seconds, max_repeats):
    torch.manual_seed(7)
    mha = torch.nn.MultiheadAttention(d_model, num_heads, batch_first=True).eval()
    x = torch.rand(1, seq_len, d_model) * 2 - 1  # (batch, seq_len, d_model)
    mask = None
    if causal:
        mask = torch.triu(torch.full((seq_len, seq_len), float("-inf")), diagonal=1)

    def run():
        out, weights = mha(x, x, x, need_weights=True, attn_mask=mask, average_attn_weights=False)
        return out, weights

    with torch.no_grad():
        out, weights = run()
        assert weights.shape == (1, num_heads, seq_len, seq_len)
        # Warm-up: a few passes, at least ~0.1 s for the small rows.
        warm_start = time.perf_counter()
        for _ in range(3):
            run()
        while time.perf_counter() - warm_start < 0.1:
            run()
        samples = []
        start = time.perf_counter()
        while len(samples) < max_repeats and (len(samples) < 5 or time.perf_counter() - start < min_seconds):
            t0 = time.perf_counter()
            run()
            samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=0.5, help="minimum timed seconds per row")
    parser.add_argument("--max-repeats", type=int, default=2000)
    parser.add_argument("--only", action="append", default=[],
                        help="run only the rows with this exact name (repeatable)")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    for seq_len, d_model, num_heads, causal in rows():
        name = row_name(seq_len, d_model, num_heads, causal)
        if args.only and name not in args.only:
            continue
        ms = time_row(seq_len, d_model, num_heads, causal, args.seconds, args.max_repeats)
        print(f'"forward","{name}","WalltimeMilliseconds",{ms:.4f},{ms:.4f},1', flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
