#!/usr/bin/env python3
"""attention-lab's engine against PyTorch's nn.MultiheadAttention, as a Markdown table.

Runs build/tests/bench/attention_bench -csv (Qt Test QBENCHMARK) and scripts/bench_torch.py (with the
/usr/bin/python3 that has torch) in the same run, on the same rows, with the same number of
threads, and prints:

    | row | attention-lab ms | PyTorch ms | speed-up |

Plain python3, standard library only. With --rounds N both benchmarks run N times, alternating,
and each cell is the median over the rounds (the machine is shared: this tames the noise).

    python3 scripts/bench_table.py [--build build] [--rounds 3] [--threads 2] [--only ROW ...]

PyTorch multiplies with the system's libblas.so.3 (OpenBLAS here). OpenBLAS 0.3.21 does not
recognise every CPU and then falls back to generic kernels: `OPENBLAS_CORETYPE=SkylakeX python3
scripts/bench_table.py` compares against PyTorch with OpenBLAS's AVX-512 kernels forced.
"""

import argparse
import csv
import io
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse_csv(text):
    """{row name: milliseconds} from Qt Test's -csv lines (bench_torch.py prints the same)."""
    times = {}
    for record in csv.reader(io.StringIO(text)):
        if len(record) >= 4 and record[2] == "WalltimeMilliseconds":
            times[record[1]] = float(record[3])
    return times


def run(command, env):
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"error: {' '.join(command)} exited with {result.returncode}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the CMake build directory")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--median", type=int, default=5,
                        help="each row is timed this many times (batches of at least 50 ms) and the "
                             "median kept, by both benchmarks: one slow batch on a busy machine then "
                             "does not decide the row")
    parser.add_argument("--python", default="/usr/bin/python3", help="an interpreter with torch")
    parser.add_argument("--only", action="append", default=[], help="one row name (repeatable)")
    args = parser.parse_args()

    bench = os.path.join(args.build, "tests", "bench", "attention_bench")
    if not os.access(bench, os.X_OK):
        raise SystemExit(f"error: {bench} not found: build the attention_bench target first")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), QT_QPA_PLATFORM="offscreen")

    ours_command = [bench, "-csv", "-median", str(args.median)] + [f"forward:{row}" for row in args.only]
    torch_command = [args.python, os.path.join(HERE, "bench_torch.py"), "--threads", str(args.threads),
                     "--median", str(args.median)]
    for row in args.only:
        torch_command += ["--only", row]

    ours, theirs = {}, {}
    order = []
    for round_index in range(args.rounds):
        sys.stderr.write(f"round {round_index + 1}/{args.rounds}: attention-lab\n")
        for row, ms in parse_csv(run(ours_command, env)).items():
            ours.setdefault(row, []).append(ms)
            if row not in order:
                order.append(row)
        sys.stderr.write(f"round {round_index + 1}/{args.rounds}: PyTorch\n")
        for row, ms in parse_csv(run(torch_command, env)).items():
            theirs.setdefault(row, []).append(ms)

    print(f"| row | attention-lab ms | PyTorch ms | speed-up |")
    print("|---|---:|---:|---:|")
    slower = []
    for row in order:
        a = statistics.median(ours[row])
        if row not in theirs:
            print(f"| {row} | {a:.3f} | n/a | n/a |")
            continue
        b = statistics.median(theirs[row])
        speedup = b / a if a > 0 else float("inf")
        if speedup < 1:
            slower.append(row)
        print(f"| {row} | {a:.3f} | {b:.3f} | {speedup:.2f}x |")
    if slower:
        sys.stderr.write("slower than PyTorch: " + ", ".join(slower) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
