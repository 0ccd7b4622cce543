#!/usr/bin/python3
"""PyTorch peer of tests/bench/patching_bench.cpp: the residual patching scan of a GPT-2-small-shaped
model (12 layers, 12 heads, width 768, vocab 50257) at T = 16, on the reference modules of
tests/fixtures/models/reference_models.py. The same computation as the engine's
ActivationPatching::run at the resid site: one pass over the clean ids and one over the corrupted
ids, each keeping every block's input (the cached activations), then for every layer l and position
i the corrupted run's input of block l with row i taken from the clean run, blocks l .. L-1
recomputed from there (the blocks before l are not), ln_f and the logit difference at the last
position; value = (m_patched - m_corrupt) / (m_clean - m_corrupt). Random weights (normal, std 0.02;
LayerNorm near 1), random ids differing at every position, float32, torch.no_grad().

Row `patching resid gpt2 T=16`: the 12 x 16 patched passes one at a time (batch 1), as the engine
and TransformerLens's get_act_patch_resid_pre do. With --batched also the row
`patching resid gpt2 T=16 batched`: each layer's 16 patched passes as one batch of 16 sequences
(what a PyTorch user could write instead; the engine has no batch dimension).

Threads: torch.set_num_threads(--threads, default 2), as attention-lab's OpenMP team on the 2-core
build machine. OpenBLAS's kernels: `--openblas keep|unset|CORE` as in scripts/bench_models_torch.py
(unset, OpenBLAS's own choice for this CPU, is the faster correct configuration there). Each row:
warm-up (one scan), then the median over --repeats scans of the time per scan.
Output: CSV `name,ms` on standard output, notes on standard error.

    /usr/bin/python3 scripts/bench_patching_torch.py --openblas unset [--batched] [--threads 2]
"""

import argparse
import os
import statistics
import sys
import time

OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
T, TARGET, FOIL = 16, 464, 262


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--openblas", default="keep")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--batched", action="store_true")
    return p.parse_args()


def reexec_with_openblas_env(args):
    """OpenBLAS reads its variables when the library is loaded: set them, then start again."""
    if os.environ.get("_BENCH_PATCHING_ENV_SET") == "1":
        return
    env = dict(os.environ, _BENCH_PATCHING_ENV_SET="1")
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

    import torch  # after the environment is final

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "tests", "fixtures", "models"))
    import reference_models as ref

    torch.set_num_threads(args.threads)
    torch.manual_seed(7)
    m = ref.GPT2Model(ref.resolve_config({"model_type": "gpt2"}))  # the defaults are GPT-2 small
    with torch.no_grad():
        for name, p in m.named_parameters():
            if ".ln" in name or name.startswith("ln_f"):
                p.copy_(1.0 + 0.1 * torch.randn_like(p) if name.endswith("weight") else 0.05 * torch.randn_like(p))
            else:
                p.normal_(0.0, 0.02)
    m.eval()
    u = m.wte.weight[TARGET] - m.wte.weight[FOIL]  # the tied head: logit(TARGET) - logit(FOIL)
    g = torch.Generator().manual_seed(16)
    corrupt_ids = torch.randint(0, 50257, (1, T), generator=g)
    clean_ids = (corrupt_ids + 1 + torch.randint(0, 50256, (1, T), generator=g)) % 50257

    def block_inputs(ids):
        x = m.wte(ids) + m.wpe(torch.arange(T).unsqueeze(0))
        inputs = []
        for block in m.h:
            inputs.append(x)
            x = block(x)[0]
        return inputs, float(m.ln_f(x)[0, -1] @ u)

    def from_layer(x, layer):  # x (batch, T, C): blocks layer .. L-1, ln_f, the metric at the last position
        for block in m.h[layer:]:
            x = block(x)[0]
        return m.ln_f(x[:, -1]) @ u

    def scan(batched):
        clean, m_clean = block_inputs(clean_ids)
        corrupt, m_corrupt = block_inputs(corrupt_ids)
        values = torch.empty(len(m.h), T)
        for layer in range(len(m.h)):
            if batched:
                x = corrupt[layer].repeat(T, 1, 1)
                idx = torch.arange(T)
                x[idx, idx] = clean[layer][0]
                values[layer] = (from_layer(x, layer) - m_corrupt) / (m_clean - m_corrupt)
                continue
            for i in range(T):
                x = corrupt[layer].clone()
                x[0, i] = clean[layer][0, i]
                values[layer, i] = (float(from_layer(x, layer)[0]) - m_corrupt) / (m_clean - m_corrupt)
        return values

    print("name,ms", flush=True)
    with torch.no_grad():
        one, many = scan(False), scan(True)
        print(f"batched and one at a time agree within {float((one - many).abs().max()):.1e}", file=sys.stderr)
        for batched in ([False, True] if args.batched else [False]):
            samples = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                scan(batched)
                samples.append((time.perf_counter() - t0) * 1e3)
            name = f"patching resid gpt2 T={T}" + (" batched" if batched else "")
            print(f"{name},{statistics.median(samples):.1f}", flush=True)
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg(), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
