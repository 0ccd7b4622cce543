#!/usr/bin/python3
"""PyTorch peer of tests/bench/generation_bench.cpp: greedy generation of 64 tokens on a
GPT-2-small-shaped model (12 layers, 12 heads, width 768, vocab 50257, 1024 positions) with a
key/value cache of its own, from a 16- (256-, 768-) token prompt.

What one run does, as the engine's TokenGeneration does it: one causal pass over the prompt that
fills a preallocated key/value cache (12 x (H, 1024, D) keys and values, written in place: no
torch.cat per step), then 64 steps of: the last row's logits through the tied head (h @ wte^T),
argmax, and that one token through every layer against the cache (ln_1, c_attn, its key and value
written at its position, scores over every key / sqrt(D), softmax, @ V, c_proj, ln_2, MLP with
gelu_new, ln_f). Every step's attention rows (12 x (H, 1, t + 1)) are kept, as the engine keeps
them. The operations are reference_models.py's GPT-2 (transformers' modeling_gpt2) written for
one new row at a time.

Rows `generate gpt2 T=16 N=64` (and T=256, T=768), float32, torch.no_grad(),
torch.set_num_threads(2) (as attention-lab's OpenMP team on the 2-core build machine). Random
weights (normal, std 0.02; LayerNorm weights near 1) and random prompt ids. Each row: one warm-up
run, then the median over 5 timed runs of the whole run (ms); divide by 64 for the time per token.
Output: CSV `name,ms` on standard output, notes on standard error.

    /usr/bin/python3 scripts/bench_generation_torch.py [--threads 2] [--openblas keep|unset|CORE]
    /usr/bin/python3 scripts/bench_generation_torch.py --threads 1 --clock cpu --prompts 16   # busy machine

`--openblas` as in scripts/bench_models_torch.py: keep the environment (OPENBLAS_CORETYPE pinned
to Haswell on the build machine), unset it (OpenBLAS picks its own, faster AVX-512 kernels, which
compute correctly here), or name a core; the script re-executes itself with the changed
environment, since OpenBLAS reads it when it is loaded.
"""

import argparse
import math
import os
import statistics
import sys
import time

L, H, C, V, P = 12, 12, 768, 50257, 1024
D = C // H
OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--openblas", default="keep")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--prompts", default="16,256,768")
    p.add_argument("--new-tokens", type=int, default=64)
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="cpu: the process's CPU time (time.process_time), which other processes' load does not "
                        "inflate; meaningful with --threads 1 (idle OpenMP threads spin)")
    return p.parse_args()


def reexec_with_openblas_env(args):
    if os.environ.get("_BENCH_GENERATION_ENV_SET") == "1":
        return
    env = dict(os.environ, _BENCH_GENERATION_ENV_SET="1")
    if args.openblas != "keep":
        for k in OPENBLAS_VARS:
            env.pop(k, None)
        if args.openblas != "unset":
            env["OPENBLAS_CORETYPE"] = args.openblas
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def main():
    args = parse_args()
    reexec_with_openblas_env(args)
    print("OpenBLAS environment: " + ", ".join(f"{k}={os.environ.get(k, '(unset)')}" for k in OPENBLAS_VARS),
          file=sys.stderr, flush=True)
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg(), file=sys.stderr, flush=True)
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(7)

    def normal(*shape):
        return torch.randn(*shape, generator=g) * 0.02

    def ln():
        return 1.0 + 0.1 * torch.randn(C, generator=g), 0.05 * torch.randn(C, generator=g)

    wte, wpe = normal(V, C), normal(P, C)
    layers = []
    for _ in range(L):
        layers.append({"ln_1": ln(), "c_attn": (normal(C, 3 * C), normal(3 * C)), "c_proj": (normal(C, C), normal(C)),
                       "ln_2": ln(), "c_fc": (normal(C, 4 * C), normal(4 * C)), "mlp_proj": (normal(4 * C, C), normal(C))})
    ln_f = ln()
    scale = 1.0 / math.sqrt(D)

    def gelu_new(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    def layer_norm(x, wb):
        return F.layer_norm(x, (C,), wb[0], wb[1], 1e-5)

    def forward(ids, start, keys, values, kept):
        """Rows start..start+n-1 (ids: their n ids) against the cache, which holds 0..start-1."""
        n = len(ids)
        x = wte[ids] + wpe[start:start + n]  # (n, C)
        end = start + n
        causal = torch.ones(n, end, dtype=torch.bool).tril(diagonal=start)
        for l, w in enumerate(layers):
            a = layer_norm(x, w["ln_1"])
            qkv = torch.addmm(w["c_attn"][1], a, w["c_attn"][0])  # (n, 3C)
            q, k, v = (qkv[:, i * C:(i + 1) * C].view(n, H, D).transpose(0, 1) for i in range(3))  # (H, n, D)
            keys[l][:, start:end] = k
            values[l][:, start:end] = v
            s = torch.matmul(q, keys[l][:, :end].transpose(1, 2)) * scale  # (H, n, end)
            if n > 1:
                s = s.masked_fill(~causal, torch.finfo(s.dtype).min)
            p = torch.softmax(s, dim=-1)
            kept.append(p)
            o = torch.matmul(p, values[l][:, :end]).transpose(0, 1).reshape(n, C)
            x = x + torch.addmm(w["c_proj"][1], o, w["c_proj"][0])
            m = layer_norm(x, w["ln_2"])
            x = x + torch.addmm(w["mlp_proj"][1], gelu_new(torch.addmm(w["c_fc"][1], m, w["c_fc"][0])), w["mlp_proj"][0])
        return layer_norm(x, ln_f)

    def generate(prompt, new_tokens):
        keys = [torch.empty(H, P, D) for _ in range(L)]
        values = [torch.empty(H, P, D) for _ in range(L)]
        kept = []
        h = forward(prompt, 0, keys, values, kept)
        ids = list(prompt)
        for _ in range(new_tokens):
            logits = h[-1] @ wte.t()  # (V)
            best = int(torch.argmax(logits))
            ids.append(best)
            h = forward([best], len(ids) - 1, keys, values, kept)
        return ids, kept

    print("name,ms", flush=True)
    with torch.no_grad():
        for prompt_length in [int(t) for t in args.prompts.split(",")]:
            prompt = torch.randint(0, V, (prompt_length,), generator=torch.Generator().manual_seed(11)).tolist()
            ids, kept = generate(prompt, args.new_tokens)
            assert len(ids) == prompt_length + args.new_tokens and len(kept) == L * (args.new_tokens + 1)
            now = time.process_time if args.clock == "cpu" else time.perf_counter
            samples = []
            for _ in range(args.repeats):
                t0 = now()
                generate(prompt, args.new_tokens)
                samples.append((now() - t0) * 1e3)
            print(f"generate gpt2 T={prompt_length} N={args.new_tokens},{statistics.median(samples):.3f}", flush=True)
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg(), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
