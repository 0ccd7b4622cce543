#!/usr/bin/python3
"""PyTorch's CPU nn.MultiheadAttention on the rows of tests/bench/attention_bench.cpp.

Run with /usr/bin/python3 (the interpreter that has torch). Prints CSV in the layout of Qt Test's
`-csv` output, one line per row, with the same row names ("T=64 d=512 h=8", "... causal"):

    "forward","T=64 d=512 h=8","WalltimeMilliseconds",<median ms>,<median ms>,1

Each row: nn.MultiheadAttention(d, h, batch_first=True), input (1, T, d) uniform in [-1, 1),
forward(x, x, x, need_weights=True, average_attn_weights=False) so every head's (T, T) weights
are returned like attention-lab's TraceDetail::Probabilities, a float causal mask (-inf above the
diagonal) on causal rows, under torch.no_grad() with 2 threads; warm-up passes, then the median
of timed repeats, each repeat the mean of a batch of at least 50 ms: the statistic that Qt
Test's QBENCHMARK reports with -median 5, as scripts/bench_table.py runs attention_bench.

PyTorch multiplies with whatever libblas.so.3 the system selects (see `update-alternatives
--display libblas.so.3-x86_64-linux-gnu`); OpenBLAS picks its kernels by CPU, which
OPENBLAS_CORETYPE overrides.
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


# Wall-clock time by default; --cpu makes it the process's CPU time (which the machine's other
# processes do not inflate; with one thread, the time of that thread).
clock = time.perf_counter


def time_batch(run, iterations):
    start = clock()
    for _ in range(iterations):
        run()
    return (clock() - start) * 1e3


def time_row(seq_len, d_model, num_heads, causal, repeats, min_batch_ms):
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
        # Warm-up: at least 3 passes and 0.1 s.
        warm_start = time.perf_counter()
        for _ in range(3):
            run()
        while time.perf_counter() - warm_start < 0.1:
            run()
        # The statistic of Qt Test's QBENCHMARK with -median N, so both columns of the table
        # mean the same thing: the iteration count doubles until one batch takes at least
        # min_batch_ms; each repeat is the mean time of one such batch; the median of the repeats.
        iterations = 1
        while True:
            batch_ms = time_batch(run, iterations)
            if batch_ms >= min_batch_ms or iterations >= 1 << 16:
                break
            iterations *= 2
        samples = [batch_ms / iterations]
        while len(samples) < repeats:
            samples.append(time_batch(run, iterations) / iterations)
    return statistics.median(samples)


def check_blas_against_float64():
    """Refuses a BLAS whose float32 products are wrong: a (256, 300) x (300, 200) product against float64."""
    generator = torch.Generator().manual_seed(3)
    a = torch.rand(256, 300, generator=generator) * 2 - 1
    b = torch.rand(300, 200, generator=generator) * 2 - 1
    error = ((a @ b).double() - a.double() @ b.double()).abs().max().item()
    sys.stderr.write(f"float32 product against float64: largest difference {error:.2e}\n")
    if error > 1e-4:  # float32 sums of 300 products of O(1) terms differ from float64 by ~1e-5
        raise SystemExit(f"error: this BLAS's float32 product is off by {error:.2e} from float64")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--median", type=int, default=5, help="repeats per row, the median is printed")
    parser.add_argument("--min-batch-ms", type=float, default=50.0,
                        help="the timed batch of one repeat lasts at least this long (as in QBENCHMARK)")
    parser.add_argument("--only", action="append", default=[],
                        help="run only the rows with this exact name (repeatable)")
    parser.add_argument("--cpu", action="store_true", help="time in CPU time of the process, not wall-clock time")
    parser.add_argument("--serve", action="store_true",
                        help="read row names from standard input, one a line, and time each as it comes "
                             "(scripts/bench_table.py interleaves the two programs row by row this way)")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    if args.cpu:
        global clock
        clock = time.process_time
    if args.serve:
        check_blas_against_float64()
        by_name = {row_name(*row): row for row in rows()}
        for line in sys.stdin:
            name = line.strip()
            if name not in by_name:
                print(f"error: no row named {name!r}", flush=True)
                continue
            ms = time_row(*by_name[name], args.median, args.min_batch_ms)
            print(f'"forward","{name}","WalltimeMilliseconds",{ms:.4f},{ms:.4f},1', flush=True)
        return 0
    for seq_len, d_model, num_heads, causal in rows():
        name = row_name(seq_len, d_model, num_heads, causal)
        if args.only and name not in args.only:
            continue
        ms = time_row(seq_len, d_model, num_heads, causal, args.median, args.min_batch_ms)
        print(f'"forward","{name}","WalltimeMilliseconds",{ms:.4f},{ms:.4f},1', flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
