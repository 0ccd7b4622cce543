#!/usr/bin/env python3
"""attention-lab's engine against PyTorch's nn.MultiheadAttention, as a Markdown table.

Runs build/tests/bench/attention_bench (Qt Test QBENCHMARK, -csv) and scripts/bench_torch.py (with the
/usr/bin/python3 that has torch) row by row, interleaved: for each row attention-lab, then PyTorch with
OpenBLAS's kernels as the environment pins them (OPENBLAS_CORETYPE, Haswell here), then PyTorch with
OpenBLAS choosing for itself (OPENBLAS_CORETYPE unset: Cooperlake, AVX-512, on this machine), all with
the same number of threads. Each PyTorch configuration is one process that serves every row
(bench_torch.py --serve), which checks its float32 product against float64 before it times anything.
Prints:

    | row | attention-lab ms | PyTorch Cooperlake ms | ratio | PyTorch Haswell ms | ratio |

where ratio = attention-lab / PyTorch, and ** marks a row over 0.7 of the faster PyTorch of that row, then the load
average (`uptime`) seen during the run. The current table goes in docs/speed.md (with its machine
and the peer's configuration, without the hour or the load); the one it replaces, with both, goes
to docs/speed-log.md. Plain python3, standard library only. With --rounds N every
row is timed N times by each program, alternating, and each cell is the median over the rounds.

    python3 scripts/bench_table.py [--build build] [--rounds 1] [--threads 2] [--cpu] [--only ROW ...]

--cpu times CPU time instead of wall-clock time (attention_bench with -perf -perfcounter task-clock,
bench_torch.py with time.process_time): on a machine shared with other work, use it with --threads 1,
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

SEQ_LENS = [8, 16, 32, 64, 128, 256, 512, 1024, 2048]
MODELS = [(64, 4), (512, 8), (768, 12)]
GOAL = 0.7


def row_names():
    """The rows of tests/bench/attention_bench.cpp, in its order."""
    for d_model, num_heads in MODELS:
        for seq_len in SEQ_LENS:
            for causal in (False, True):
                yield f"T={seq_len} d={d_model} h={num_heads}" + (" causal" if causal else "")


def parse_csv(text):
    """{row name: milliseconds} from Qt Test's -csv lines (bench_torch.py prints the same)."""
    times = {}
    for record in csv.reader(io.StringIO(text)):
        if len(record) >= 4 and record[2] == "WalltimeMilliseconds":
            times[record[1]] = float(record[3])
        elif len(record) >= 4 and record[2] == "WalltimeNanoseconds":  # the task-clock counter (-perf)
            times[record[1]] = float(record[3]) * 1e-6
    return times


class TorchServer:
    """One bench_torch.py --serve process under a given OpenBLAS configuration."""

    def __init__(self, python, threads, median, coretype, cpu):
        env = dict(os.environ, OPENBLAS_VERBOSE="2")
        env.pop("OPENBLAS_CORETYPE", None)
        if coretype:
            env["OPENBLAS_CORETYPE"] = coretype
        self.process = subprocess.Popen(
            [python, os.path.join(HERE, "bench_torch.py"), "--serve", "--threads", str(threads), "--median",
             str(median)] + (["--cpu"] if cpu else []),
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def time(self, row):
        self.process.stdin.write(row + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        times = parse_csv(line)
        if row not in times:
            raise SystemExit(f"error: bench_torch.py answered {line.strip()!r} for {row!r}")
        return times[row]

    def close(self):
        """Ends the server; returns what it wrote on standard error (OpenBLAS's core, the float64 check)."""
        self.process.stdin.close()
        self.process.wait()
        return self.process.stderr.read()


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
    parser.add_argument("--pinned-coretype", default="Haswell",
                        help="the OpenBLAS kernels of the second PyTorch column (the environment's pin)")
    parser.add_argument("--cpu", action="store_true", help="CPU time instead of wall-clock time")
    parser.add_argument("--only", action="append", default=[], help="one row name (repeatable)")
    args = parser.parse_args()

    bench = os.path.join(args.build, "tests", "bench", "attention_bench")
    if not os.access(bench, os.X_OK):
        raise SystemExit(f"error: {bench} not found: build the attention_bench target first")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), QT_QPA_PLATFORM="offscreen")

    rows = args.only or list(row_names())
    own = TorchServer(args.python, args.threads, args.median, None, args.cpu)
    pinned = TorchServer(args.python, args.threads, args.median, args.pinned_coretype, args.cpu)
    counter = ["-perf", "-perfcounter", "task-clock"] if args.cpu else []
    ours, tuned, slow = {}, {}, {}
    loads = []
    for round_index in range(args.rounds):
        for row in rows:
            sys.stderr.write(f"round {round_index + 1}/{args.rounds}: {row}\n")
            loads.append(os.getloadavg()[0])
            result = subprocess.run([bench, "-csv", "-median", str(args.median)] + counter + [f"forward:{row}"], env=env,
                                    capture_output=True, text=True)
            if result.returncode != 0:
                sys.stderr.write(result.stdout + result.stderr)
                raise SystemExit(f"error: attention_bench exited with {result.returncode} on {row!r}")
            ours.setdefault(row, []).append(parse_csv(result.stdout)[row])
            tuned.setdefault(row, []).append(own.time(row))
            slow.setdefault(row, []).append(pinned.time(row))
    loads.append(os.getloadavg()[0])
    own_log, pinned_log = own.close(), pinned.close()

    def core(log):
        cores = [line.split(":", 1)[1].strip() for line in log.splitlines() if line.startswith("Core:")]
        return cores[0] if cores else "unknown"

    tuned_core, slow_core = core(own_log), core(pinned_log)
    print(f"| row | attention-lab ms | PyTorch {tuned_core} ms | ratio | PyTorch {slow_core} ms | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    missed = []
    for row in rows:
        a, b, c = (statistics.median(times[row]) for times in (ours, tuned, slow))
        ratio = a / min(b, c)  # the goal is against the faster PyTorch, whichever configuration that is
        if ratio > GOAL:
            missed.append(row)
        mark = "" if ratio <= GOAL else " **"
        mark_b, mark_c = (mark, "") if b <= c else ("", mark)
        print(f"| {row} | {a:.3f} | {b:.3f} | {a / b:.2f}{mark_b} | {c:.3f} | {a / c:.2f}{mark_c} |")
    print()
    clock = "CPU time" if args.cpu else "wall-clock time"
    print(f"{args.threads} thread(s), {clock}, median of {args.median} timed batches per row and program"
          f"{f', median over {args.rounds} rounds' if args.rounds > 1 else ''}. "
          f"Load average (1 min) during the run: {min(loads):.1f} to {max(loads):.1f}; "
          f"rows over {GOAL} of the faster PyTorch (marked **): {len(missed)} of {len(rows)}.")
    for log in (own_log, pinned_log):
        for line in log.splitlines():
            if line.startswith("float32 product"):
                sys.stderr.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
