#!/usr/bin/python3
"""PyTorch peer of tests/bench/lens_bench.cpp's "lens" rows: the logit lens of a GPT-2-small-shaped
model (12 layers, width 768, vocab 50257) at every layer and position, from hidden states already
computed: for each of the L + 1 = 13 hidden states (T, 768), ln_f (all but the last, which is
already normed), the unembedding against W_U (50257, 768), softmax, and torch.topk(5). Random
weights (normal, std 0.02; ln_f weight near 1) and random hidden states: the products are the same
whatever the values.

Rows `lens gpt2 T=16/64/256 top5`, float32, torch.no_grad(), torch.set_num_threads(2) (as
attention-lab's OpenMP team on the 2-core build machine). Each row: warm-up (3 runs and 0.2 s),
then the iteration count doubles until one batch takes at least 50 ms; the value is the median
over 5 timed batches of the mean time per run, the statistic QBENCHMARK reports with -median 5.
Output: CSV `name,ms` on standard output. With --clock cpu the times are the process's CPU time
(time.process_time, every thread's) instead of wall-clock time: not inflated by other processes'
load; use it with --threads 1.

    /usr/bin/python3 scripts/bench_lens_torch.py [--threads 2] [--clock wall|cpu] [--rows "lens gpt2 T=64 top5"]
"""

import argparse
import statistics
import time

import torch

L, C, V = 12, 768, 50257


def lens_once(hidden, ln_f, w_u, k):
    for l in range(hidden.shape[0]):
        h = hidden[l] if l == hidden.shape[0] - 1 else ln_f(hidden[l])
        p = torch.softmax(h @ w_u.t(), dim=-1)  # (T, V)
        torch.topk(p, k, dim=-1)


def time_row(seq_len, k, clock):
    torch.manual_seed(7)
    ln_f = torch.nn.LayerNorm(C)
    with torch.no_grad():
        ln_f.weight.normal_(1.0, 0.02)
        ln_f.bias.normal_(0.0, 0.02)
    w_u = torch.randn(V, C) * 0.02
    hidden = torch.randn(L + 1, seq_len, C)
    with torch.no_grad():
        start = clock()
        runs = 0
        while runs < 3 or clock() - start < 0.2:
            lens_once(hidden, ln_f, w_u, k)
            runs += 1
        iterations = 1
        while True:
            t0 = clock()
            for _ in range(iterations):
                lens_once(hidden, ln_f, w_u, k)
            if (clock() - t0) * 1e3 >= 50 or iterations >= 1 << 16:
                break
            iterations *= 2
        batches = []
        for _ in range(5):
            t0 = clock()
            for _ in range(iterations):
                lens_once(hidden, ln_f, w_u, k)
            batches.append((clock() - t0) * 1e3 / iterations)
    return statistics.median(batches)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rows", default="", help="comma-separated row names (default: all)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    wanted = {r.strip() for r in args.rows.split(",") if r.strip()}
    for seq_len in (16, 64, 256):
        name = f"lens gpt2 T={seq_len} top5"
        if wanted and name not in wanted:
            continue
        clock = time.process_time if args.clock == "cpu" else time.perf_counter
        print(f"{name},{time_row(seq_len, 5, clock):.3f}", flush=True)


if __name__ == "__main__":
    main()
