#!/usr/bin/env python3
"""A Llama-style transformer decoder block as a torch.nn.Module (docs/torch.md):

    h   = x + Wo(attention(rope(Wq rmsnorm(x)), rope(Wk rmsnorm(x)), Wv rmsnorm(x)))
    out = h + Wdown(silu(Wgate rmsnorm(h)) * Wup rmsnorm(h))

as HF transformers' LlamaDecoderLayer computes it (RMSNorm, rotary embedding with
rotate_half, causal softmax attention, SwiGLU MLP), one sequence of S tokens as a [S, E]
tensor. The heads are column blocks of q, k and v (q[:, h*D:(h+1)*D]), as in
examples/transformer/make_graph.py, because neuronsim's graph format keeps a tensor's row
length (no reshape of [S, E] into [S, H, D]). rotate_half (per head [-x2, x1]) is a signed
permutation of the columns, so it is the product with that permutation matrix R, exactly
(each output is one input, negated or not; nothing rounds): `x @ R`. Written as HF writes
it, with 2H slices and a torch.cat, it works at the reduced size, but at 32 heads the
compiled graph's row kernel of those 128 slices and negations needs 102 semaphores, more
than the core's 64 (the compiler does not split a row kernel), so the block uses the matmul
form at every size. The causal mask is an additive [S, S] buffer. The projections keep
their weights as [in, out] (`x @ W`, make_graph.py's layout) rather than nn.Linear's
[out, in] (`x @ W.t()`): neuronsim's GEMM reads a transposed B only when all of B fits in
SBUF, so in eager mode a [4096, 4096] bf16 nn.Linear weight (32 MiB) would be transposed
by DMA at every call (3.0 ms per projection on trn2, measured: the full block then took
51.9 ms instead of the graph's 15.3 ms). Compiled mode lays an nn.Linear weight out
transposed on the host (docs/torch.md, "Compiled mode"), so there the two forms give the
same kernels; the block keeps one form for both modes.

    DecoderBlock(SMALL)  the reduced size (CI numerics): 200 tokens, 2 heads of 64,
                         MLP 128 -> 344 -> 128 (decoder_layer_small.json's shapes)
    DecoderBlock(FULL)   the full size: 2048 tokens, 32 heads of 128, MLP 4096 -> 11008
                         -> 4096 (decoder_layer.json's shapes)

Run: `python3 examples/torch/decoder_block.py [small|full]` runs it eagerly and compiled
on trn2 (full: timing only) and prints device time, launches and HBM bytes of each.
"""
import math
import sys
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class Config:
    tokens: int
    heads: int
    head_dim: int
    ffn: int
    eps: float = 1e-5  # Llama 2/3 checkpoints' rms_norm_eps (make_graph.py's EPS)
    rope_theta: float = 10000.0  # HF LlamaConfig's default

    @property
    def hidden(self):
        return self.heads * self.head_dim


SMALL = Config(tokens=200, heads=2, head_dim=64, ffn=344)
FULL = Config(tokens=2048, heads=32, head_dim=128, ffn=11008)


class Linear(torch.nn.Module):
    """y = x @ weight, weight [in, out], no bias (Llama's projections have none)."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(d_in, d_out))

    def forward(self, x):
        return x @ self.weight


class RMSNorm(torch.nn.Module):
    """HF LlamaRMSNorm's formula, in the tensor's own dtype."""

    def __init__(self, dim, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(cfg):
    """cos and sin [S, E]: HF's per-head tables (inv_freq, cat(freqs, freqs)) per head."""
    inv_freq = 1.0 / (cfg.rope_theta ** (torch.arange(0, cfg.head_dim, 2).float() / cfg.head_dim))
    freqs = torch.outer(torch.arange(cfg.tokens).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().repeat(1, cfg.heads), emb.sin().repeat(1, cfg.heads)


def rotate_half_matrix(cfg):
    """R [E, E] with x @ R = HF's rotate_half on every head's columns: column j < D/2 of a
    head is minus its column j + D/2, column j >= D/2 is its column j - D/2."""
    r = torch.zeros(cfg.hidden, cfg.hidden)
    half = cfg.head_dim // 2
    for h in range(cfg.heads):
        c = h * cfg.head_dim
        for j in range(half):
            r[c + half + j, c + j] = -1.0
            r[c + j, c + half + j] = 1.0
    return r


def rotate_half(x, heads, head_dim):
    """HF's rotate_half on the head column blocks of x [S, H*D] (the reference of R)."""
    half = head_dim // 2
    parts = []
    for h in range(heads):
        lo = h * head_dim
        parts += [-x[:, lo + half:lo + head_dim], x[:, lo:lo + half]]
    return torch.cat(parts, dim=-1)


class DecoderBlock(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        e = cfg.hidden
        self.attn_norm = RMSNorm(e, cfg.eps)
        self.wq, self.wk, self.wv, self.wo = (Linear(e, e) for _ in range(4))
        self.mlp_norm = RMSNorm(e, cfg.eps)
        self.w_gate = Linear(e, cfg.ffn)
        self.w_up = Linear(e, cfg.ffn)
        self.w_down = Linear(cfg.ffn, e)
        cos, sin = rope_tables(cfg)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)
        # HF's additive causal mask: the dtype's most negative value above the diagonal
        mask = torch.full((cfg.tokens, cfg.tokens), torch.finfo(torch.bfloat16).min).triu(1)
        self.register_buffer("mask", mask)
        self.register_buffer("rot", rotate_half_matrix(cfg))

    def rope(self, x):
        return x * self.cos + (x @ self.rot) * self.sin

    def attention(self, x):
        cfg = self.cfg
        q = self.rope(self.wq(x))
        k = self.rope(self.wk(x))
        v = self.wv(x)
        scale = 1.0 / math.sqrt(cfg.head_dim)
        heads = []
        for h in range(cfg.heads):
            lo, hi = h * cfg.head_dim, (h + 1) * cfg.head_dim
            s = q[:, lo:hi] @ k[:, lo:hi].t()
            p = torch.softmax(s * scale + self.mask, dim=-1)
            heads.append(p @ v[:, lo:hi])
        return self.wo(torch.cat(heads, dim=-1))

    def forward(self, x):
        h = x + self.attention(self.attn_norm(x))
        n = self.mlp_norm(h)
        return h + self.w_down(F.silu(self.w_gate(n)) * self.w_up(n))


def make_block(cfg, dtype=torch.bfloat16, seed=0):
    """A block with random weights (std 1/sqrt(fan_in), norm weights near 1) in `dtype`."""
    torch.manual_seed(seed)
    block = DecoderBlock(cfg)
    with torch.no_grad():
        for name, p in block.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.1 * torch.randn_like(p))
            else:
                p.copy_(torch.randn_like(p) / math.sqrt(p.shape[0]))
    return block.to(dtype)


def main():
    import neuronsim.torch as nt
    size = sys.argv[1] if len(sys.argv) > 1 else "small"
    cfg = {"small": SMALL, "full": FULL}[size]
    timing_only = size == "full"
    block = make_block(cfg)
    x = torch.randn(cfg.tokens, cfg.hidden).to(torch.bfloat16)
    rows = []
    start = time.time()
    with torch.no_grad(), nt.device("trn2", timing_only=timing_only) as rt:
        block(x)
        nt.synchronize()
    rows.append(("eager", rt, time.time() - start))
    start = time.time()
    compiled = nt.compile(block, target="trn2", timing_only=timing_only)
    with torch.no_grad():
        compiled(x)
    compiled.runtime.synchronize()
    rows.append(("compiled", compiled.runtime, time.time() - start))
    print("decoder block %s (%d tokens, %d heads of %d, MLP %d), bf16, trn2%s" % (
        size, cfg.tokens, cfg.heads, cfg.head_dim, cfg.ffn, ", timing only" if timing_only else ""))
    print("%-9s %9s %14s %14s %14s %10s" % ("mode", "launches", "device us", "end to end us",
                                           "HBM MiB", "wall s"))
    for mode, rt, wall in rows:
        launches = [r for r in rt.records if hasattr(r, "kernel") and not r.fallback]
        device = sum(r.device_end_ns - r.device_start_ns for r in launches)
        hbm = sum(r.hbm_bytes for r in launches)
        print("%-9s %9d %14.1f %14.1f %14.1f %10.1f" % (
            mode, len(launches), device / 1e3, rt.end_to_end_ns() / 1e3, hbm / 2**20, wall))


if __name__ == "__main__":
    main()
