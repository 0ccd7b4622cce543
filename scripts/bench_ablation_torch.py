#!/usr/bin/python3
"""PyTorch peer of tests/bench/ablation_bench.cpp: the ablation scan of a GPT-2-small-shaped model
(12 layers x 12 heads, width 768, MLP 3072, vocab 50257) at T = 16. The plain run's residual
entering each block is computed once (cached activations); then for each layer l and head h one
pass starts at block l from that residual with head h's z (A V, before c_proj) replaced by zeros
or by its mean over the T positions, runs the blocks l..11 and ln_f, and the metric
logit(464) - logit(262) at the last position is read from the row of the unembedding alone.
144 passes, one head each, as attention-lab's AblationScan does them.

Random weights (normal, std 0.02; LayerNorm weights near 1) and random ids: the products are the
same whatever the values. Float32, torch.no_grad(), torch.set_num_threads(2) (as attention-lab's
OpenMP team on the 2-core build machine). Each row: warm-up (1 scan), then the median over 3 timed
scans, the statistic QBENCHMARK reports with -median 3. Output: CSV `name,ms`.

    /usr/bin/python3 scripts/bench_ablation_torch.py [--threads 2] [--repeats 3]
"""

import argparse
import math
import statistics
import time

import torch

L, H, C, I, V, T = 12, 12, 768, 3072, 50257, 16
D = C // H


def make_weights(seed=7):
    g = torch.Generator().manual_seed(seed)
    n = lambda *shape: torch.randn(*shape, generator=g) * 0.02  # noqa: E731
    blocks = []
    for _ in range(L):
        blocks.append({
            "ln1_w": 1 + n(C), "ln1_b": n(C), "attn_w": n(C, 3 * C), "attn_b": n(3 * C),
            "proj_w": n(C, C), "proj_b": n(C), "ln2_w": 1 + n(C), "ln2_b": n(C),
            "fc_w": n(C, I), "fc_b": n(I), "out_w": n(I, C), "out_b": n(C)})
    return {"wte": n(V, C), "wpe": n(1024, C), "blocks": blocks, "lnf_w": 1 + n(C), "lnf_b": n(C)}


def block(x, w, ablate=None, mode="zero"):
    """GPT2Block (pre-LN) on x (T, C); ablate: a head whose z is replaced."""
    a = torch.nn.functional.layer_norm(x, (C,), w["ln1_w"], w["ln1_b"], 1e-5)
    qkv = torch.addmm(w["attn_b"], a, w["attn_w"])
    q, k, v = (qkv[:, i * C:(i + 1) * C].view(T, H, D).transpose(0, 1) for i in range(3))
    s = (q @ k.transpose(-1, -2)) / math.sqrt(D)
    s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    z = torch.softmax(s, dim=-1) @ v  # (H, T, D)
    if ablate is not None:
        z = z.clone()
        z[ablate] = 0.0 if mode == "zero" else z[ablate].mean(dim=0, keepdim=True)
    z = z.transpose(0, 1).reshape(T, C)
    x = x + torch.addmm(w["proj_b"], z, w["proj_w"])
    m = torch.nn.functional.layer_norm(x, (C,), w["ln2_w"], w["ln2_b"], 1e-5)
    h = torch.nn.functional.gelu(torch.addmm(w["fc_b"], m, w["fc_w"]), approximate="tanh")
    return x + torch.addmm(w["out_b"], h, w["out_w"])


def metric(x, w, u):
    last = torch.nn.functional.layer_norm(x[-1], (C,), w["lnf_w"], w["lnf_b"], 1e-5)
    return float(last @ u)


def scan(w, residuals, u, mode):
    plain = residuals[L]
    base = metric(plain, w, u)
    effects = torch.empty(L, H, dtype=torch.float64)
    for l in range(L):
        for h in range(H):
            x = block(residuals[l], w["blocks"][l], h, mode)
            for later in range(l + 1, L):
                x = block(x, w["blocks"][later])
            effects[l, h] = metric(x, w, u) - base
    return effects


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    with torch.no_grad():
        w = make_weights()
        ids = torch.randint(0, V, (T,), generator=torch.Generator().manual_seed(16))
        x = w["wte"][ids] + w["wpe"][:T]
        residuals = [x]  # the residual entering each block, and the last block's output
        for b in w["blocks"]:
            x = block(x, b)
            residuals.append(x)
        u = w["wte"][464] - w["wte"][262]
        for mode in ("zero", "mean"):
            scan(w, residuals, u, mode)  # warm-up
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                scan(w, residuals, u, mode)
                times.append((time.perf_counter() - t0) * 1e3)
            print(f"ablation scan gpt2 T=16 {mode},{statistics.median(times):.1f}", flush=True)


if __name__ == "__main__":
    main()
