#!/usr/bin/env python3
"""Writes a Llama-style transformer decoder layer as a neuronsim graph (docs/graph.md):

    h   = x + Wo(attention(rope(Wq rmsnorm(x)), rope(Wk rmsnorm(x)), Wv rmsnorm(x)))
    out = h + Wdown(silu(Wgate rmsnorm(h)) * Wup rmsnorm(h))

as in HF transformers' LlamaDecoderLayer, one batch of S tokens, causal attention with H
heads of D, bf16. The graph has no reshape, so the heads are column slices of q, k and v
(q[:, h*D:(h+1)*D]) and their outputs are concatenated back.

Rotary embedding: rope(q) = q * cos + rotate_half(q) * sin, and rotate_half is a signed
permutation of each head's columns, so rotate_half(x @ Wq) = x @ (Wq R) exactly (R
permutes and negates, nothing rounds). The graph takes Wq R and Wk R as weights
(`wq_rot`, `wk_rot`, made by rotate_half_weight() below from Wq and Wk) and cos and sin
tables for every column ([S, H*D], each head's [S, D] table repeated). This costs two more
projections (the price of having no slice-and-negate inside a row).

    make_graph.py                  writes decoder_layer.json (2048 tokens, 32 x 128,
                                   MLP 4096 -> 11008 -> 4096) and decoder_layer_small.json
    make_graph.py S H D F name     one graph of that size
"""
import json
import os
import sys

EPS = 1e-5  # Llama's rms_norm_eps (HF LlamaConfig default 1e-6; Llama 2/3 checkpoints 1e-5)


def rotate_half_weight(w, heads, head_dim):
    """W R for the block-diagonal R with rotate_half(x) = x @ R per head: column j < D/2 of
    a head is minus its column j + D/2, column j >= D/2 is its column j - D/2 (numpy array
    [E, H*D] in, the same shape out)."""
    import numpy as np
    out = np.empty_like(w)
    half = head_dim // 2
    for h in range(heads):
        c = h * head_dim
        out[:, c:c + half] = -w[:, c + half:c + head_dim]
        out[:, c + half:c + head_dim] = w[:, c:c + half]
    return out


def rmsnorm(prefix, x, w):
    return [
        {"id": f"{prefix}_sq", "op": "pow", "args": [x, 2]},
        {"id": f"{prefix}_ms", "op": "mean", "args": [f"{prefix}_sq"], "dim": -1, "keepdim": True},
        {"id": f"{prefix}_eps", "op": "add", "args": [f"{prefix}_ms", EPS]},
        {"id": f"{prefix}_rstd", "op": "rsqrt", "args": [f"{prefix}_eps"]},
        {"id": f"{prefix}_xr", "op": "mul", "args": [x, f"{prefix}_rstd"]},
        {"id": f"{prefix}_out", "op": "mul", "args": [f"{prefix}_xr", w]},
    ]


def layer(name, tokens, heads, head_dim, ffn, outputs=("out",)):
    e = heads * head_dim
    bf = "bf16"
    inputs = [("x", [tokens, e]), ("w_attn_norm", [e]), ("wq", [e, e]), ("wq_rot", [e, e]),
              ("wk", [e, e]), ("wk_rot", [e, e]), ("wv", [e, e]), ("wo", [e, e]),
              ("cos", [tokens, e]), ("sin", [tokens, e]), ("mask", [tokens, tokens]),
              ("w_mlp_norm", [e]), ("w_gate", [e, ffn]), ("w_up", [e, ffn]),
              ("w_down", [ffn, e])]
    n = rmsnorm("attn_norm", "x", "w_attn_norm")
    xn = "attn_norm_out"
    for t in ("q", "k"):
        n += [{"id": f"{t}_lin", "op": "matmul", "args": [xn, f"w{t}"]},
              {"id": f"{t}_rh", "op": "matmul", "args": [xn, f"w{t}_rot"]},
              {"id": f"{t}_cos", "op": "mul", "args": [f"{t}_lin", "cos"]},
              {"id": f"{t}_sin", "op": "mul", "args": [f"{t}_rh", "sin"]},
              {"id": t, "op": "add", "args": [f"{t}_cos", f"{t}_sin"]}]
    n.append({"id": "v", "op": "matmul", "args": [xn, "wv"]})
    scale = 1.0 / head_dim ** 0.5
    for h in range(heads):
        lo, hi = h * head_dim, (h + 1) * head_dim
        n += [{"id": f"q{h}", "op": "slice", "args": ["q"], "start": lo, "end": hi},
              {"id": f"k{h}", "op": "slice", "args": ["k"], "start": lo, "end": hi},
              {"id": f"v{h}", "op": "slice", "args": ["v"], "start": lo, "end": hi},
              {"id": f"kt{h}", "op": "transpose", "args": [f"k{h}"]},
              {"id": f"s{h}", "op": "matmul", "args": [f"q{h}", f"kt{h}"]},
              {"id": f"ss{h}", "op": "mul", "args": [f"s{h}", scale]},
              {"id": f"sm{h}", "op": "add", "args": [f"ss{h}", "mask"]},
              {"id": f"p{h}", "op": "softmax", "args": [f"sm{h}"], "dim": -1},
              {"id": f"o{h}", "op": "matmul", "args": [f"p{h}", f"v{h}"]}]
    n += [{"id": "attn", "op": "concat", "args": [f"o{h}" for h in range(heads)], "dim": -1},
          {"id": "attn_out", "op": "matmul", "args": ["attn", "wo"]},
          {"id": "h", "op": "add", "args": ["x", "attn_out"]}]
    n += rmsnorm("mlp_norm", "h", "w_mlp_norm")
    n += [{"id": "gate", "op": "matmul", "args": ["mlp_norm_out", "w_gate"]},
          {"id": "up", "op": "matmul", "args": ["mlp_norm_out", "w_up"]},
          {"id": "gate_act", "op": "silu", "args": ["gate"]},
          {"id": "mlp_h", "op": "mul", "args": ["gate_act", "up"]},
          {"id": "down", "op": "matmul", "args": ["mlp_h", "w_down"]},
          {"id": "out", "op": "add", "args": ["h", "down"]}]
    return {"format": "neuronsim-graph", "version": 1, "name": name,
            "inputs": [{"name": i, "dtype": bf, "shape": s} for i, s in inputs],
            "nodes": n, "outputs": list(outputs)}


def write(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if len(sys.argv) == 6:
        s, h, d, f = (int(a) for a in sys.argv[1:5])
        write(layer(sys.argv[5], s, h, d, f), sys.argv[5] + ".json")
        return
    write(layer("decoder_layer", 2048, 32, 128, 11008), os.path.join(here, "decoder_layer.json"))
    # Reduced: the same structure, a partial row tile (200 tokens), two heads of 64, an MLP
    # width that is not a multiple of 128; also outputs the attention and the residual.
    write(layer("decoder_layer_small", 200, 2, 64, 344, ("attn", "h", "out")),
          os.path.join(here, "decoder_layer_small.json"))


if __name__ == "__main__":
    main()
