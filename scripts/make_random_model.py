#!/usr/bin/python3
"""Writes a Hugging Face model folder with random weights in the shape of GPT-2 small, BERT-base or
Qwen2.5-0.5B (config.json + model.safetensors), for measuring --model on a full-size checkpoint
without downloading one: how long opening it takes and how much memory a run needs.

    /usr/bin/python3 scripts/make_random_model.py gpt2 /tmp/gpt2-random            # 498 MB, F32
    /usr/bin/python3 scripts/make_random_model.py bert /tmp/bert-random --dtype F16
    /usr/bin/python3 scripts/make_random_model.py qwen2 /tmp/qwen2-random --dtype BF16  # 988 MB
    cp tests/data/vocab/qwen2.5/tokenizer.json /tmp/qwen2-random/   # Qwen2.5's own tokenizer

Tensor names and shapes are those of the hub's `gpt2`, `bert-base-uncased` and
`Qwen/Qwen2.5-0.5B` checkpoints (GPT-2: no prefix, Conv1D (in, out) weights; BERT: `bert.`
prefix, nn.Linear (out, in); Qwen2: `model.` prefix, nn.Linear, q/k/v biases, tied embeddings);
the values are normal with std 0.02 (norm weights near 1), written tensor by tensor; BF16 rounds
each float32 value to nearest even, as torch's conversion does.
"""

import argparse
import json
import os
import struct

import numpy as np


def gpt2_tensors(c):
    E, V, P, L = c["n_embd"], c["vocab_size"], c["n_positions"], c["n_layer"]
    yield "wte.weight", (V, E)
    yield "wpe.weight", (P, E)
    for i in range(L):
        h = f"h.{i}."
        yield h + "ln_1.weight", (E,)
        yield h + "ln_1.bias", (E,)
        yield h + "attn.c_attn.weight", (E, 3 * E)
        yield h + "attn.c_attn.bias", (3 * E,)
        yield h + "attn.c_proj.weight", (E, E)
        yield h + "attn.c_proj.bias", (E,)
        yield h + "ln_2.weight", (E,)
        yield h + "ln_2.bias", (E,)
        yield h + "mlp.c_fc.weight", (E, 4 * E)
        yield h + "mlp.c_fc.bias", (4 * E,)
        yield h + "mlp.c_proj.weight", (4 * E, E)
        yield h + "mlp.c_proj.bias", (E,)
    yield "ln_f.weight", (E,)
    yield "ln_f.bias", (E,)


def bert_tensors(c):
    E, V, P, L, I = c["hidden_size"], c["vocab_size"], c["max_position_embeddings"], c["num_hidden_layers"], \
        c["intermediate_size"]
    b = "bert."
    yield b + "embeddings.word_embeddings.weight", (V, E)
    yield b + "embeddings.position_embeddings.weight", (P, E)
    yield b + "embeddings.token_type_embeddings.weight", (c["type_vocab_size"], E)
    yield b + "embeddings.LayerNorm.weight", (E,)
    yield b + "embeddings.LayerNorm.bias", (E,)
    for i in range(L):
        p = f"{b}encoder.layer.{i}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            yield p + name + ".weight", (E, E)
            yield p + name + ".bias", (E,)
        yield p + "attention.output.LayerNorm.weight", (E,)
        yield p + "attention.output.LayerNorm.bias", (E,)
        yield p + "intermediate.dense.weight", (I, E)
        yield p + "intermediate.dense.bias", (I,)
        yield p + "output.dense.weight", (E, I)
        yield p + "output.dense.bias", (E,)
        yield p + "output.LayerNorm.weight", (E,)
        yield p + "output.LayerNorm.bias", (E,)


def qwen2_tensors(c):
    E, V, L, I = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"], c["intermediate_size"]
    kv = c["num_key_value_heads"] * (E // c["num_attention_heads"])
    yield "model.embed_tokens.weight", (V, E)
    for i in range(L):
        p = f"model.layers.{i}."
        yield p + "input_layernorm.weight", (E,)
        yield p + "self_attn.q_proj.weight", (E, E)
        yield p + "self_attn.q_proj.bias", (E,)
        yield p + "self_attn.k_proj.weight", (kv, E)
        yield p + "self_attn.k_proj.bias", (kv,)
        yield p + "self_attn.v_proj.weight", (kv, E)
        yield p + "self_attn.v_proj.bias", (kv,)
        yield p + "self_attn.o_proj.weight", (E, E)
        yield p + "post_attention_layernorm.weight", (E,)
        yield p + "mlp.gate_proj.weight", (I, E)
        yield p + "mlp.up_proj.weight", (I, E)
        yield p + "mlp.down_proj.weight", (E, I)
    yield "model.norm.weight", (E,)


CONFIGS = {
    "gpt2": {"model_type": "gpt2", "vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12,
             "n_head": 12},
    "bert": {"model_type": "bert", "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
             "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
             "type_vocab_size": 2},
    "qwen2": {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": 151936,
              "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14,
              "num_key_value_heads": 2, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
              "rms_norm_eps": 1e-06, "hidden_act": "silu", "tie_word_embeddings": True, "use_sliding_window": False,
              "sliding_window": 32768, "max_window_layers": 24, "bos_token_id": 151643, "eos_token_id": 151643,
              "torch_dtype": "bfloat16"},
}
TENSORS = {"gpt2": gpt2_tensors, "bert": bert_tensors, "qwen2": qwen2_tensors}


def to_bytes(values, dtype):
    if dtype == "BF16":  # float32 rounded to nearest even on the upper 16 bits
        bits = values.astype("<f4").view("<u4").astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype("<u2").tobytes()
    return values.astype("<f4" if dtype == "F32" else "<f2").tobytes()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=sorted(CONFIGS))
    p.add_argument("out")
    p.add_argument("--dtype", choices=["F32", "F16", "BF16"], default="F32")
    args = p.parse_args()

    config = CONFIGS[args.kind]
    tensors = list(TENSORS[args.kind](config))
    size = 4 if args.dtype == "F32" else 2
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in tensors:
        n = int(np.prod(shape)) * size
        header[name] = {"dtype": args.dtype, "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    rng = np.random.default_rng(0)
    with open(os.path.join(args.out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape in tensors:
            values = rng.normal(0.0, 0.02, size=shape)
            if "ln_" in name or "LayerNorm" in name or "layernorm" in name or name == "model.norm.weight":
                values = values + (1.0 if name.endswith("weight") else 0.0)
            f.write(to_bytes(values, args.dtype))
    print(f"{args.out}: {len(tensors)} tensors, {offset / 1e6:.0f} MB of {args.dtype} weights")


if __name__ == "__main__":
    main()
