#!/usr/bin/python3
"""PyTorch peer of the whole-model benchmark: one forward pass from token ids to the last hidden
state with every attention map kept, on the reference modules of
tests/fixtures/models/reference_models.py (the code that defines the expected values, so both
sides compute the same thing; its attention is batched over heads, no Python loop).

Rows: `gpt2 T=16/64/256/1024` (GPT-2 small: 12 layers, 12 heads, width 768, vocab 50257,
n_positions 1024) and `bert T=16/64/256/512` (BERT-base: 12 layers, 12 heads, 768, intermediate
3072, vocab 30522, 512 positions), `smollm2 T=16/64/256` (SmolLM2-135M: 30 layers, 9 heads / 3
key/value heads, width 576, intermediate 1536, vocab 49152, rope_theta 1e5, tied) and
`qwen2 T=16/64/256` (Qwen2.5-0.5B: 24 layers, 14 heads / 2 key/value heads, width 896,
intermediate 4864, vocab 151936, q/k/v biases, rope_theta 1e6, tied). Random weights (normal, std 0.02; LayerNorm near 1), random
token ids, float32, torch.no_grad(), torch.set_num_threads(2). Each row: warm-up (at least 3 passes
and 0.2 s), then the iteration count doubles until one batch takes at least 50 ms; the row's value
is the median over 5 timed batches of the mean time per pass, the statistic Qt Test's QBENCHMARK
reports with -median 5. Output: CSV `name,ms` on standard output, notes on standard error.

Run with Debian's interpreter (the one with torch: apt-get install python3-torch
libopenblas0-openmp):

    /usr/bin/python3 scripts/bench_models_torch.py                     # all rows, environment as is
    /usr/bin/python3 scripts/bench_models_torch.py --openblas unset    # OPENBLAS_CORETYPE and
                                                                      # OPENBLAS_L2_SIZE removed
    /usr/bin/python3 scripts/bench_models_torch.py --openblas SkylakeX --rows "gpt2 T=64"
    /usr/bin/python3 scripts/bench_models_torch.py --openblas unset --check --verbose-blas

PyTorch 1.13 from Debian multiplies float32 matrices through the system's libblas.so.3, here
OpenBLAS 0.3.21 (openmp variant), which picks its kernels by CPU when it is loaded. This machine's
environment pins OPENBLAS_CORETYPE=Haswell and OPENBLAS_L2_SIZE (older OpenBLAS builds computed
wrong results or crashed on this CPU otherwise). `--openblas keep|unset|CORE` sets that before
torch is imported (the script re-executes itself with the changed environment); `--verbose-blas`
adds OPENBLAS_VERBOSE=2, so OpenBLAS prints the kernel it chose ("Core: ...") on start-up;
`--check` first compares a float32 product (512 x 768 times 768 x 3072, through torch.matmul) and a
GPT-2 / BERT forward pass at T=64 with float64, to show the chosen kernels compute correctly. Change
neither variable in tests or CI.

Measured on the 2-core build machine (AVX-512 AMD CPU), all rows, 2 threads, ms. The machine was
shared with other builds and benchmarks throughout (1-minute load average 5.3-7.4 on 2 cores), so
every number is an upper bound dominated by OpenMP threads waiting for a core; rerun on a quiet
machine before comparing with the engine. Both configurations pass --check (float32 product
against float64 1.2e-7 relative; GPT-2 / BERT T=64 attention within 4.0e-7 / 2.9e-8, hidden
state within 9.5e-7 / 5.3e-7 relative).

| row         | environment as is: Core: Haswell | unset: Core: Cooperlake |
|-------------|---------------------------------:|------------------------:|
| gpt2 T=16   |  1109 |  397 |
| gpt2 T=64   |  1612 |  403 |
| gpt2 T=256  |  3304 | 1579 |
| gpt2 T=1024 | 12896 | 6700 |
| bert T=16   |  2144 |  502 |
| bert T=64   |  3132 |  905 |
| bert T=256  |  3454 | 2524 |
| bert T=512  |  6960 | 4393 |

Under that load one thread is faster than two (`--threads 1`, same minutes, load 7.0-7.1):
gpt2 T=64 347 / 214 ms, gpt2 T=256 1078 / 648, bert T=64 284 / 200, bert T=256 1001 / 630
(Haswell / Cooperlake): OpenBLAS's own AVX-512 (Cooperlake) kernels are 1.4-1.7x faster than the
pinned Haswell ones, and compute correctly here. Earlier, with the load rising from 0.8 to 4, the pinned
configuration took 189 ms for gpt2 T=16 and 140 ms for bert T=16 on 2 threads.
"""

import argparse
import os
import statistics
import sys
import time

ROWS = ["gpt2 T=16", "gpt2 T=64", "gpt2 T=256", "gpt2 T=1024",
        "bert T=16", "bert T=64", "bert T=256", "bert T=512",
        "smollm2 T=16", "smollm2 T=64", "smollm2 T=256", "qwen2 T=16", "qwen2 T=64", "qwen2 T=256"]
OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--openblas", default="keep",
                   help="keep: the environment as it is; unset: without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE; "
                        "any other value: OPENBLAS_CORETYPE=VALUE without OPENBLAS_L2_SIZE")
    p.add_argument("--verbose-blas", action="store_true", help="OPENBLAS_VERBOSE=2: OpenBLAS prints its core")
    p.add_argument("--check", action="store_true", help="check float32 results against float64 first")
    p.add_argument("--rows", default=",".join(ROWS), help="comma-separated row names (default: all)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--min-batch-ms", type=float, default=50.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="cpu: the process's CPU time (time.process_time), which other processes' load does "
                        "not inflate; meaningful with --threads 1 (idle OpenMP threads spin)")
    return p.parse_args()


def reexec_with_openblas_env(args):
    """OpenBLAS reads its variables when the library is loaded: set them, then start again."""
    if os.environ.get("_BENCH_MODELS_ENV_SET") == "1":
        return
    env = dict(os.environ, _BENCH_MODELS_ENV_SET="1")
    if args.openblas != "keep":
        for k in OPENBLAS_VARS:
            env.pop(k, None)
        if args.openblas != "unset":
            env["OPENBLAS_CORETYPE"] = args.openblas
    if args.verbose_blas:
        env["OPENBLAS_VERBOSE"] = "2"
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def main():
    args = parse_args()
    reexec_with_openblas_env(args)
    print("OpenBLAS environment: " + ", ".join(f"{k}={os.environ.get(k, '(unset)')}" for k in OPENBLAS_VARS),
          file=sys.stderr, flush=True)
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg(), file=sys.stderr, flush=True)

    import torch  # after the environment is final

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "tests", "fixtures", "models"))
    import reference_models as ref

    torch.set_num_threads(args.threads)
    configs = {
        "gpt2": ref.resolve_config({"model_type": "gpt2"}),  # the defaults are GPT-2 small
        "bert": ref.resolve_config({"model_type": "bert"}),  # the defaults are BERT-base
        "smollm2": ref.resolve_config({"model_type": "llama", "hidden_size": 576, "intermediate_size": 1536,
                                       "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
                                       "vocab_size": 49152, "rms_norm_eps": 1e-5, "rope_theta": 100000.0,
                                       "tie_word_embeddings": True}),
        "qwen2": ref.resolve_config({"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
                                     "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
                                     "vocab_size": 151936, "rope_theta": 1000000.0, "tie_word_embeddings": True}),
    }
    classes = {"gpt2": ref.GPT2Model, "bert": ref.BertModel, "smollm2": ref.LlamaModel, "qwen2": ref.LlamaModel}
    models = {}

    def model(kind, dtype=torch.float32):
        key = (kind, dtype)
        if key not in models:
            cls = classes[kind]
            torch.manual_seed(7)
            m = cls(configs[kind])
            with torch.no_grad():
                for name, p in m.named_parameters():
                    if ".ln" in name or "LayerNorm" in name or name.startswith("ln_f") or "norm" in name:
                        p.copy_(1.0 + 0.1 * torch.randn_like(p) if name.endswith("weight") else 0.05 * torch.randn_like(p))
                    else:
                        p.normal_(0.0, 0.02)
            models[key] = m.to(dtype).eval()
        return models[key]

    def ids_for(kind, seq_len):
        g = torch.Generator().manual_seed(seq_len)
        return torch.randint(0, configs[kind].vocab_size, (1, seq_len), generator=g)

    if args.check:
        check(torch, model, ids_for)
        for key in [k for k in models if k[1] != torch.float32]:
            del models[key]

    print("name,ms", flush=True)
    for row in [r.strip() for r in args.rows.split(",") if r.strip()]:
        kind, t = row.split(" T=")
        seq_len = int(t)
        m, ids = model(kind), ids_for(kind, seq_len)
        num_layers = len(ref.attention_modules(m))

        def run():
            hidden, attentions = m(ids)  # every (1, H, T, T) attention map is kept
            return hidden, attentions

        with torch.no_grad():
            hidden, attentions = run()
            heads = configs[kind].get("num_attention_heads", configs[kind].get("n_head"))
            assert len(attentions) == num_layers and attentions[0].shape == (1, heads, seq_len, seq_len)
            warm = time.perf_counter()
            for _ in range(3):
                run()
            while time.perf_counter() - warm < 0.2:
                run()
            iterations = 1
            while True:
                batch_ms = time_batch(run, iterations, args.clock)
                if batch_ms >= args.min_batch_ms or iterations >= 1 << 16:
                    break
                iterations *= 2
            samples = [batch_ms / iterations]
            for _ in range(args.repeats - 1):
                samples.append(time_batch(run, iterations, args.clock) / iterations)
        print(f"{row},{statistics.median(samples):.3f}", flush=True)
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg(), file=sys.stderr, flush=True)


def time_batch(run, iterations, clock="wall"):
    now = time.process_time if clock == "cpu" else time.perf_counter
    start = now()
    for _ in range(iterations):
        run()
    return (now() - start) * 1e3


def check(torch, model, ids_for):
    """float32 against float64: one large product, then each model at T=64."""
    g = torch.Generator().manual_seed(1)
    a = torch.randn(512, 768, generator=g, dtype=torch.float64)
    b = torch.randn(768, 3072, generator=g, dtype=torch.float64)
    exact = a @ b
    got = (a.float() @ b.float()).double()
    scale = (a.abs() @ b.abs()).max()
    rel = float((got - exact).abs().max() / scale)
    print(f"check: float32 matmul 512x768 @ 768x3072 against float64: max |diff| / max(|A||B|) = {rel:.1e}"
          f" ({'ok' if rel < 1e-6 else 'WRONG'})", file=sys.stderr, flush=True)
    if rel >= 1e-6:
        raise SystemExit("the float32 product is wrong in this OpenBLAS configuration")
    for kind in ("gpt2", "bert"):
        ids = ids_for(kind, 64)
        with torch.no_grad():
            h32, a32 = model(kind, torch.float32)(ids)
            h64, a64 = model(kind, torch.float64)(ids)
        d_att = max(float((x.double() - y).abs().max()) for x, y in zip(a32, a64))
        d_hid = float((h32.double() - h64).abs().max() / h64.abs().max())
        ok = d_att < 2e-5 and d_hid < 2e-5
        print(f"check: {kind} T=64 float32 against float64: attention max abs {d_att:.1e}, "
              f"hidden max rel {d_hid:.1e} ({'ok' if ok else 'WRONG'})", file=sys.stderr, flush=True)
        if not ok:
            raise SystemExit(f"{kind}: float32 differs from float64 beyond 2e-5 in this OpenBLAS configuration")


if __name__ == "__main__":
    main()
