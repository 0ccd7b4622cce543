#!/usr/bin/env python3
"""attention-lab's logit lens against its PyTorch peer, as a Markdown table.

Runs build/tests/bench/lens_bench -csv (Qt Test QBENCHMARK, the "lens" rows: a GPT-2-small-shaped
model, every layer and position, top 5) and scripts/bench_lens_torch.py (with the /usr/bin/python3
that has torch: ln_f + unembedding per layer, softmax, torch.topk) row by row, alternating, on the
same rows with the same number of threads, and prints:

    | row | attention-lab ms | PyTorch ms | attention-lab / PyTorch | <= 1.0 |

With --before BENCH (a lens_bench built from an earlier commit) that build is timed in the same
rounds too, between the two, and gets a column of its own: before and after measured in the same
hour on the same machine. Each cell is the median over --rounds rounds of each benchmark's own
median; the load average (`uptime`) is printed before and after. PyTorch runs with OpenBLAS as the
environment sets it (OPENBLAS_CORETYPE removed unless --keep-openblas: the kernels OpenBLAS
detects). The current table goes in docs/speed.md (with its machine and the peer's
configuration, without the hour or the load); the one it replaces, with both, goes to
docs/speed-log.md. Plain python3, standard library only.

    python3 scripts/bench_lens_table.py [--build build] [--rounds 3] [--threads 2] [--before BENCH]
                                        [--cpu-time] [--only "lens gpt2 T=64 top5" ...]

--cpu-time compares CPU time instead of wall-clock time (lens_bench -perf -perfcounter task-clock,
bench_lens_torch.py --clock cpu): on a machine shared with other work, use it with --threads 1,
where no thread waits at a barrier for another that was pushed off its core.
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
ROWS = ["lens gpt2 T=16 top5", "lens gpt2 T=64 top5", "lens gpt2 T=256 top5"]
GOAL = 1.0


def qt_csv(text):
    """{row: ms} from Qt Test's -csv lines."""
    times = {}
    for record in csv.reader(io.StringIO(text)):
        if len(record) >= 4 and record[2] == "WalltimeMilliseconds":
            times[record[1]] = float(record[3])
        elif len(record) >= 4 and record[2] == "WalltimeNanoseconds":  # the task-clock counter (-perf)
            times[record[1]] = float(record[3]) / 1e6
    return times


def torch_csv(text):
    """{row: ms} from bench_lens_torch.py's `name,ms` lines."""
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
    parser.add_argument("--before", help="a lens_bench of an earlier commit, timed in the same rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--median", type=int, default=3)
    parser.add_argument("--python", default="/usr/bin/python3", help="an interpreter with torch")
    parser.add_argument("--keep-openblas", action="store_true",
                        help="keep OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE from the environment for PyTorch")
    parser.add_argument("--only", action="append", default=[], help="one row name (repeatable)")
    parser.add_argument("--cpu-time", action="store_true", help="CPU time instead of wall clock (see above)")
    args = parser.parse_args()
    clock = ["-perf", "-perfcounter", "task-clock"] if args.cpu_time else []

    bench = os.path.join(args.build, "tests", "bench", "lens_bench")
    for program in [bench] + ([args.before] if args.before else []):
        if not os.access(program, os.X_OK):
            raise SystemExit(f"error: {program} not found: build the lens_bench target first")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    torch_env = dict(env)
    if not args.keep_openblas:
        for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
            torch_env.pop(name, None)
    rows = args.only or ROWS
    loads = [load_average()]

    ours, before, theirs = {}, {}, {}
    for round_index in range(args.rounds):
        for row in rows:
            sys.stderr.write(f"round {round_index + 1}/{args.rounds}: {row} (load {load_average()})\n")
            out = run([bench, "-csv", "-median", str(args.median), *clock, f"lens:{row}"], env)
            ours.setdefault(row, []).extend(qt_csv(out).values())
            if args.before:
                out = run([args.before, "-csv", "-median", str(args.median), *clock, f"lens:{row}"], env)
                before.setdefault(row, []).extend(qt_csv(out).values())
            out = run([args.python, os.path.join(HERE, "bench_lens_torch.py"), "--rows", row,
                       "--threads", str(args.threads), "--clock", "cpu" if args.cpu_time else "wall"], torch_env)
            theirs.setdefault(row, []).extend(torch_csv(out).values())
    loads.append(load_average())

    before_column = " attention-lab before ms | before / PyTorch |" if args.before else ""
    print(f"| row | attention-lab ms | PyTorch ms | attention-lab / PyTorch | <= {GOAL} |{before_column}")
    print("|---|---:|---:|---:|:---:|" + ("---:|---:|" if args.before else ""))
    for row in rows:
        a = statistics.median(ours[row])
        b = statistics.median(theirs[row])
        cells = f"| {row} | {a:.1f} | {b:.1f} | {a / b:.2f} | {'yes' if a / b <= GOAL else 'no'} |"
        if args.before:
            was = statistics.median(before[row])
            cells += f" {was:.1f} | {was / b:.2f} |"
        print(cells)
    print(f"\n{'CPU time of the process' if args.cpu_time else 'wall clock'}, {args.threads} thread(s), median of {args.rounds} round(s); every round's ms:")
    for row in rows:
        line = f"  {row}: attention-lab {ours[row]}, PyTorch {theirs[row]}"
        print(line + (f", before {before[row]}" if args.before else ""))
    print(f"load average (1, 5, 15 min): {loads[0]} at the start, {loads[1]} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
