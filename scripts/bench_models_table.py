#!/usr/bin/env python3
"""attention-lab's whole-model forward pass against its PyTorch peer, as a Markdown table.

Runs build/tests/bench/model_bench -csv (Qt Test QBENCHMARK) and scripts/bench_models_torch.py (with
the /usr/bin/python3 that has torch) row by row, alternating, on the same rows with the same
number of threads, and prints:

    | row | attention-lab ms | PyTorch ms (OpenBLAS unset) | PyTorch ms (keep) | attention-lab / best PyTorch | <= 0.7 |

one PyTorch column per --openblas configuration of bench_models_torch.py (default: `unset`, the
kernel OpenBLAS detects, and `keep`, the environment's pinned OPENBLAS_CORETYPE), each measured
in the same rounds; the ratio is against the faster of them, and the last column says whether the
row meets the goal of at most 0.7.

then the GFLOP/s of the products that are most of the work (model_bench's linear rows, 2 T in out
multiply-adds over the time), and the load average (`uptime`) before and after. Each cell is the
median over --rounds rounds of each benchmark's own median of --median timed batches.
The current table goes in docs/speed.md (with its machine and the peer's configuration, without
the hour or the load); the one it replaces, with both, goes to docs/speed-log.md.
Plain python3, standard library only.

    python3 scripts/bench_models_table.py [--build build] [--rounds 3] [--threads 2] [--only ROW ...]
                                          [--openblas unset --openblas keep]
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
    """{row: ms} from Qt Test's -csv lines (with -perfcounter task-clock the event is in ns)."""
    times = {}
    for record in csv.reader(io.StringIO(text)):
        if len(record) >= 4 and record[2] == "WalltimeMilliseconds":
            times[record[1]] = float(record[3])  # per iteration
        elif len(record) >= 4 and record[2] == "WalltimeNanoseconds":
            times[record[1]] = float(record[3]) / 1e6
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
    parser.add_argument("--openblas", action="append", default=[],
                        help="a bench_models_torch.py --openblas value, one PyTorch column each "
                             "(repeatable; default: unset and keep)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="compare CPU time instead of wall time (model_bench -perf -perfcounter task-clock, "
                             "bench_models_torch.py --clock cpu): not inflated by other processes' load; use "
                             "with --threads 1")
    args = parser.parse_args()
    peers = args.openblas or ["unset", "keep"]
    clock = ["-perf", "-perfcounter", "task-clock"] if args.cpu_time else []

    bench = os.path.join(args.build, "tests", "bench", "model_bench")
    if not os.access(bench, os.X_OK):
        raise SystemExit(f"error: {bench} not found: build the model_bench target first")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    rows = args.only or ROWS
    loads = [load_average()]

    ours = {}
    theirs = {peer: {} for peer in peers}
    for round_index in range(args.rounds):
        for row in rows:
            sys.stderr.write(f"round {round_index + 1}/{args.rounds}: {row} (load {load_average()})\n")
            out = run([bench, "-csv", "-median", str(args.median), *clock, f"forward:{row}"], env)
            ours.setdefault(row, []).extend(qt_csv(out).values())
            for peer in peers:
                out = run([args.python, args.torch_script, "--rows", row, "--repeats", str(args.median),
                           "--threads", str(args.threads), "--openblas", peer,
                           "--clock", "cpu" if args.cpu_time else "wall"], env)
                theirs[peer].setdefault(row, []).extend(torch_csv(out).values())
    loads.append(load_average())

    peer_columns = " | ".join(f"PyTorch ms (OpenBLAS {peer})" for peer in peers)
    print(f"| row | attention-lab ms | {peer_columns} | attention-lab / best PyTorch | <= 0.7 |")
    print("|---|---:|" + "---:|" * len(peers) + "---:|:---:|")
    for row in rows:
        a = statistics.median(ours[row])
        bs = [statistics.median(theirs[peer][row]) for peer in peers]
        ratio = a / min(bs)
        cells = " | ".join(f"{b:.1f}" for b in bs)
        print(f"| {row} | {a:.1f} | {cells} | {ratio:.2f} | {'yes' if ratio <= 0.7 else 'no'} |")

    if not args.no_linear:
        out = run([bench, "-csv", "-median", str(args.median), *clock, "linear"], env)
        print("\n| product (rows x in x out) | ms | GFLOP/s |")
        print("|---|---:|---:|")
        for name, ms in qt_csv(out).items():
            t, shape = name.split(" ")[1], name.split(" ")[2]
            rows_, (inner, cols) = int(t[2:]), map(int, shape.split("x"))
            print(f"| {rows_} x {inner} x {cols} | {ms:.3f} | {2 * rows_ * inner * cols / ms / 1e6:.0f} |")
    loads.append(load_average())
    print(f"\ntimes: {'CPU time of the process' if args.cpu_time else 'wall clock'}, {args.threads} thread(s)")
    print(f"load average (1, 5, 15 min): {loads[0]} at the start, {loads[1]} after the forward rows, "
          f"{loads[2]} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
