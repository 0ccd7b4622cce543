#!/usr/bin/env python3
"""attention-lab's whole-model forward pass against its PyTorch peer, as a Markdown table.

Runs build/tests/bench/model_bench -csv (Qt Test QBENCHMARK) and scripts/bench_models_torch.py (with
the /usr/bin/python3 that has torch) row by row, alternating, on the same rows with the same
number of threads, and prints:

    | row | attention-lab ms | PyTorch ms | attention-lab / PyTorch |

then the GFLOP/s of the products that are most of the work (model_bench's linear rows, 2 T in out
multiply-adds over the time), and the load average (`uptime`) before and after. Each cell is the
median over --rounds rounds of each benchmark's own median of --median timed batches.
Plain python3, standard library only.

    python3 scripts/bench_models_table.py [--build build] [--rounds 3] [--threads 2] [--only ROW ...]
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
ROWS = ["gpt2 T=16", "gpt2 T=64", "gpt2 T=256", "gpt2 T=1024", "bert T=16", "bert T=64", "bert T=256", "bert T=512",
        "smollm2 T=16", "smollm2 T=64", "smollm2 T=256", "qwen2 T=16", "qwen2 T=64", "qwen2 T=256"]


def qt_csv(text):
    """{row: ms} from Qt Test's -csv lines."""
    times = {}
    for record in csv.reader(io.StringIO(text)):
        if len(record) >= 4 and record[2] == "WalltimeMilliseconds":
            times[record[1]] = float(record[3])  # per iteration
    return times


def torch_csv(text):
    """{row: ms} from bench_models_torch.py's `name,ms` lines."""
    times = {}
    for record in csv.reader(io.StringIO(text)):
        if len(record) == 2 and record[0] != "name":
            times[record[0]] = float(record[1])
    return times


def run(command, env):
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"error: {' '.join(command)} exited with {result.returncode}")
    return result.stdout


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--median", type=int, default=5)
    parser.add_argument("--python", default="/usr/bin/python3", help="an interpreter with torch")
    parser.add_argument("--torch-script", default=os.path.join(HERE, "bench_models_torch.py"))
    parser.add_argument("--only", action="append", default=[], help="one row name (repeatable)")
    parser.add_argument("--no-linear", action="store_true", help="skip the GFLOP/s of the products")
    args = parser.parse_args()

    bench = os.path.join(args.build, "tests", "bench", "model_bench")
    if not os.access(bench, os.X_OK):
        raise SystemExit(f"error: {bench} not found: build the model_bench target first")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    rows = args.only or ROWS
    loads = [load_average()]

    ours, theirs = {}, {}
    for round_index in range(args.rounds):
        for row in rows:
            sys.stderr.write(f"round {round_index + 1}/{args.rounds}: {row} (load {load_average()})\n")
            out = run([bench, "-csv", "-median", str(args.median), f"forward:{row}"], env)
            ours.setdefault(row, []).extend(qt_csv(out).values())
            out = run([args.python, args.torch_script, "--rows", row, "--repeats", str(args.median),
                       "--threads", str(args.threads)], env)
            theirs.setdefault(row, []).extend(torch_csv(out).values())
    loads.append(load_average())

    print("| row | attention-lab ms | PyTorch ms | attention-lab / PyTorch |")
    print("|---|---:|---:|---:|")
    for row in rows:
        a, b = statistics.median(ours[row]), statistics.median(theirs[row])
        print(f"| {row} | {a:.1f} | {b:.1f} | {a / b:.2f} |")

    if not args.no_linear:
        out = run([bench, "-csv", "-median", str(args.median), "linear"], env)
        print("\n| product (rows x in x out) | ms | GFLOP/s |")
        print("|---|---:|---:|")
        for name, ms in qt_csv(out).items():
            t, shape = name.split(" ")[1], name.split(" ")[2]
            rows_, (inner, cols) = int(t[2:]), map(int, shape.split("x"))
            print(f"| {rows_} x {inner} x {cols} | {ms:.3f} | {2 * rows_ * inner * cols / ms / 1e6:.0f} |")
    loads.append(load_average())
    print(f"\nload average (1, 5, 15 min): {loads[0]} at the start, {loads[1]} after the forward rows, "
          f"{loads[2]} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
