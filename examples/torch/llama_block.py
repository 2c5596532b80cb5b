#!/usr/bin/env python3
"""A Llama-style decoder block written the way PyTorch users write it (docs/torch.md, "N-D
tensors: views and blocks"): nn.Linear projections on a [B, T, E] batch, heads by
`view(B, T, H, D).transpose(1, 2)`, rotary embedding with HF's rotate_half (two slices and
a torch.cat) and cos/sin tables given as [T, D] inputs, scores by `q @ k.transpose(-2, -1)`
over B*H, a causal [T, T] mask added and broadcast over B and H, softmax, `p @ v`, and the
heads back into rows by `transpose(1, 2).reshape(B, T, H * D)`; then SwiGLU.

    h   = x + Wo(attention(rope(Wq n), rope(Wk n), Wv n)),  n = rmsnorm(x)
    out = h + Wdown(silu(Wgate m) * Wup m),                m = rmsnorm(h)

examples/torch/decoder_block.py is the same block with the heads as column blocks of
[S, E] tensors and rotate_half as a product with a permutation matrix (the form that ran
before N-D views were lowered); its shapes (SMALL, FULL) are used here, with a batch of B
sequences (B = 1 by default).

Run: `python3 examples/torch/llama_block.py [small|full] [B]` runs it eagerly and compiled
on trn2 (full: timing only) and prints launches, device time, end to end and HBM bytes.
"""
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoder_block import FULL, SMALL, RMSNorm  # noqa: E402,F401


def rope_tables(cfg):
    """cos and sin [T, D]: HF's LlamaRotaryEmbedding (inv_freq, cat(freqs, freqs))."""
    inv_freq = 1.0 / (cfg.rope_theta ** (torch.arange(0, cfg.head_dim, 2).float() / cfg.head_dim))
    freqs = torch.outer(torch.arange(cfg.tokens).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def causal_mask(cfg):
    """HF's additive causal mask [T, T]: the dtype's most negative value above the diagonal."""
    return torch.full((cfg.tokens, cfg.tokens), torch.finfo(torch.bfloat16).min).triu(1)


def rotate_half(x):
    """HF transformers' rotate_half: the last dim's halves swapped, the new first negated."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Attention(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads, self.head_dim = cfg.heads, cfg.head_dim
        e = cfg.hidden
        self.wq, self.wk, self.wv, self.wo = (torch.nn.Linear(e, e, bias=False) for _ in range(4))

    def forward(self, x, cos, sin, mask):
        b, t, _ = x.shape
        h, d = self.heads, self.head_dim
        q = self.wq(x).view(b, t, h, d).transpose(1, 2)  # [B, H, T, D]
        k = self.wk(x).view(b, t, h, d).transpose(1, 2)
        v = self.wv(x).view(b, t, h, d).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        s = (q @ k.transpose(-2, -1)) / math.sqrt(d)  # [B, H, T, T]
        p = torch.softmax(s + mask, dim=-1)
        o = (p @ v).transpose(1, 2).reshape(b, t, h * d)
        return self.wo(o)


class LlamaBlock(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        e = cfg.hidden
        self.attn_norm = RMSNorm(e, cfg.eps)
        self.attn = Attention(cfg)
        self.mlp_norm = RMSNorm(e, cfg.eps)
        self.w_gate = torch.nn.Linear(e, cfg.ffn, bias=False)
        self.w_up = torch.nn.Linear(e, cfg.ffn, bias=False)
        self.w_down = torch.nn.Linear(cfg.ffn, e, bias=False)

    def forward(self, x, cos, sin, mask):
        h = x + self.attn(self.attn_norm(x), cos, sin, mask)
        n = self.mlp_norm(h)
        return h + self.w_down(F.silu(self.w_gate(n)) * self.w_up(n))


def make_block(cfg, dtype=torch.bfloat16, seed=0):
    """A block with random weights (std 1/sqrt(fan_in), norm weights near 1) in `dtype`."""
    torch.manual_seed(seed)
    block = LlamaBlock(cfg)
    with torch.no_grad():
        for name, p in block.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1 + 0.1 * torch.randn_like(p))
            else:
                p.copy_(torch.randn_like(p) / math.sqrt(p.shape[1]))
    return block.to(dtype)


def make_inputs(cfg, batch=1, dtype=torch.bfloat16, seed=1):
    """x [B, T, E] and the cos, sin and mask tables in `dtype`."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, cfg.tokens, cfg.hidden, generator=g).to(dtype)
    cos, sin = rope_tables(cfg)
    return x, cos.to(dtype), sin.to(dtype), causal_mask(cfg).to(dtype)


def summary(rt):
    launches = [r for r in rt.records if hasattr(r, "kernel") and not r.fallback]
    device = sum(r.device_end_ns - r.device_start_ns for r in launches)
    return len(launches), device, sum(r.hbm_bytes for r in launches)


def main():
    import neuronsim.torch as nt
    size = sys.argv[1] if len(sys.argv) > 1 else "small"
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    cfg = {"small": SMALL, "full": FULL}[size]
    timing_only = size == "full"
    block = make_block(cfg)
    inputs = make_inputs(cfg, batch)
    rows = []
    start = time.time()
    with torch.no_grad(), nt.device("trn2", timing_only=timing_only) as rt:
        block(*inputs)
        nt.synchronize()
    rows.append(("eager", rt, time.time() - start))
    start = time.time()
    compiled = nt.compile(block, target="trn2", timing_only=timing_only)
    with torch.no_grad():
        compiled(*inputs)
    compiled.runtime.synchronize()
    rows.append(("compiled", compiled.runtime, time.time() - start))
    print("llama block %s (batch %d, %d tokens, %d heads of %d, MLP %d), bf16, trn2%s" % (
        size, batch, cfg.tokens, cfg.heads, cfg.head_dim, cfg.ffn,
        ", timing only" if timing_only else ""))
    print("%-9s %9s %14s %14s %14s %10s" % ("mode", "launches", "device us", "end to end us",
                                           "HBM MiB", "wall s"))
    for mode, rt, wall in rows:
        n, device, hbm = summary(rt)
        print("%-9s %9d %14.1f %14.1f %14.1f %10.1f" % (
            mode, n, device / 1e3, rt.end_to_end_ns() / 1e3, hbm / 2**20, wall))


if __name__ == "__main__":
    main()
