"""The reduced Llama decoder layer (examples/transformer/decoder_layer_small.json: 200
tokens, 2 heads of 64, MLP 128 -> 344 -> 128, bf16) compiled eager and fused, run as a
launch sequence, and compared with a float64 numpy reference of the same layer
(HF transformers' LlamaDecoderLayer with rotary embedding and a causal mask).

Bound: the layer's outputs are checked normwise, max |got - ref| <= tol * max |ref| per
output, per row block of the result. With u = 2^-8 (one bf16 rounding): the fused program
rounds every stored tensor once (about 12 on the longest path: norm, projections with
rope, attention with P in bf16 for P @ V, the output projection, norm, gate, up, down) and
eager about 30 (every op); each rounding adds at most u relative to the value it rounds,
and no value on the path is much larger than the output scale (the weights are scaled by
1/sqrt(fan-in), as in a trained layer), so the worst case is about 30u eager and 12u
fused. Independent roundings mostly cancel (measured: 2.5u eager, 1.4u fused), so the
bounds are 8u eager and 4u fused: under the worst case, about three times the measured
error, and far below what a real mistake gives (a rotary sign or a wrong softmax scale
moves the outputs by tens of percent, ~100u). The attention output (`attn`) sits before
the residuals; the softmax's inputs are scores of size ~1, so a score's absolute error e
changes a probability by a factor ~(1 + e), and the same bounds hold.

Also fused only, trn1 and trn2, the same layer at 256 tokens with three heads of 128
(make_graph.layer): from three heads on, the attention kernel loads head h's V into head
h - 2's buffers while head h - 1 runs, and must do so only after head h - 2's last P @ V
(two jobs behind its scores); when it did not, head 0's last row tile read head 2's V
(65u). Same bounds.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

NEURONSIM = os.environ["NEURONSIM"]
SOURCE_DIR = os.environ.get("SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(SOURCE_DIR, "examples", "transformer")
sys.path.insert(0, EXAMPLE)
from make_graph import EPS, layer, rotate_half_weight, write  # noqa: E402

U = 2.0**-8
BF16_MIN = -3.3895313892515355e38  # torch.finfo(torch.bfloat16).min, HF's mask value


def bf16_round(a):
    bits = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def inputs(tokens, heads, head_dim, ffn, rng):
    e = heads * head_dim
    w = lambda *s: bf16_round(rng.standard_normal(s) / np.sqrt(s[0]))  # noqa: E731
    x = {"x": bf16_round(rng.standard_normal((tokens, e))),
         "w_attn_norm": bf16_round(1 + 0.1 * rng.standard_normal(e)),
         "w_mlp_norm": bf16_round(1 + 0.1 * rng.standard_normal(e)),
         "wq": w(e, e), "wk": w(e, e), "wv": w(e, e), "wo": w(e, e),
         "w_gate": w(e, ffn), "w_up": w(e, ffn), "w_down": w(ffn, e)}
    x["wq_rot"] = rotate_half_weight(x["wq"], heads, head_dim)
    x["wk_rot"] = rotate_half_weight(x["wk"], heads, head_dim)
    # HF LlamaRotaryEmbedding: inv_freq = theta^(-2i/D), emb = cat(freqs, freqs); bf16.
    inv = 10000.0 ** (-np.arange(0, head_dim, 2) / head_dim)
    freqs = np.arange(tokens)[:, None] * inv[None, :]
    emb = np.concatenate([freqs, freqs], axis=1)
    x["cos"] = bf16_round(np.tile(np.cos(emb), (1, heads)))
    x["sin"] = bf16_round(np.tile(np.sin(emb), (1, heads)))
    causal = np.arange(tokens)[:, None] >= np.arange(tokens)[None, :]
    x["mask"] = np.where(causal, 0.0, BF16_MIN).astype(np.float32)
    return x


def reference(x, heads, head_dim):
    d = {k: v.astype(np.float64) for k, v in x.items()}

    def rms(t, w):
        return t / np.sqrt(np.mean(t * t, axis=-1, keepdims=True) + EPS) * w

    xn = rms(d["x"], d["w_attn_norm"])
    q = (xn @ d["wq"]) * d["cos"] + (xn @ d["wq_rot"]) * d["sin"]
    k = (xn @ d["wk"]) * d["cos"] + (xn @ d["wk_rot"]) * d["sin"]
    v = xn @ d["wv"]
    outs = []
    for h in range(heads):
        c = slice(h * head_dim, (h + 1) * head_dim)
        s = q[:, c] @ k[:, c].T / np.sqrt(head_dim) + d["mask"]
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        outs.append(p / p.sum(axis=-1, keepdims=True) @ v[:, c])
    attn = np.concatenate(outs, axis=1)
    hres = d["x"] + attn @ d["wo"]
    hn = rms(hres, d["w_mlp_norm"])
    g = hn @ d["w_gate"]
    out = hres + (g / (1 + np.exp(-g)) * (hn @ d["w_up"])) @ d["w_down"]
    return {"attn": attn, "h": hres, "out": out}


def run(graph, mode, target, x, work):
    out_dir = os.path.join(work, f"{mode}_{target}")
    subprocess.run([NEURONSIM, "compile", graph, "--mode", mode, "-t", target, "-o", out_dir],
                   check=True, capture_output=True)
    args = [NEURONSIM, "run", os.path.join(out_dir, "launch.json"), "-q", "--out-dir",
            os.path.join(out_dir, "out")]
    for name, value in x.items():
        path = os.path.join(work, f"{name}.npy")
        np.save(path, value.astype(np.float32))
        args += ["--input", f"{name}={path}"]
    subprocess.run(args, check=True, capture_output=True)
    with open(os.path.join(out_dir, "launch.json")) as f:
        launches = len(json.load(f)["launches"])
    return {n: np.load(os.path.join(out_dir, "out", n + ".npy")) for n in ("attn", "h", "out")}, \
        launches


def check(graph, runs, seed, failed, label=""):
    """Runs `graph` for each (mode, target, tol, launches) against the float64 reference."""
    with open(graph) as f:
        doc = json.load(f)
    shapes = {i["name"]: i["shape"] for i in doc["inputs"]}
    tokens, e = shapes["x"]
    ffn = shapes["w_gate"][1]
    heads = sum(1 for n in doc["nodes"] if n["op"] == "softmax")
    head_dim = e // heads
    x = inputs(tokens, heads, head_dim, ffn, np.random.default_rng(seed))
    ref = reference(x, heads, head_dim)
    with tempfile.TemporaryDirectory() as work:
        for mode, target, tol, launches in runs:
            got, n = run(graph, mode, target, x, work)
            if n != launches:
                print(f"FAIL {label}{mode} {target}: {n} launches, expected {launches}")
                failed = True
            for name, r in ref.items():
                err = np.max(np.abs(got[name] - r)) / np.max(np.abs(r))
                ok = np.all(np.isfinite(got[name])) and err <= tol
                failed = failed or not ok
                print(f"{'ok' if ok else 'FAIL'} {label}{mode} {target} {name}: max error "
                      f"{err / U:.2f} u of max |ref| (bound {tol / U:.0f} u)")
    return failed


def main():
    failed = check(os.path.join(EXAMPLE, "decoder_layer_small.json"),
                   (("eager", "trn2", 8 * U, 50), ("fused", "trn2", 4 * U, 12),
                    ("fused", "trn1", 4 * U, 12)), 10, False)
    with tempfile.TemporaryDirectory() as work:
        graph = os.path.join(work, "three_heads.json")
        write(layer("three_heads", 256, 3, 128, 96, ("attn", "h", "out")), graph)
        failed = check(graph, (("fused", "trn2", 4 * U, 12), ("fused", "trn1", 4 * U, 12)), 3,
                       failed, "three heads ")
    if failed:
        sys.exit(1)
    print("decoder layer numerics ok")


if __name__ == "__main__":
    main()
