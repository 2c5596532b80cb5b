"""The calibration cases: one microbenchmark each, named by (kernel, shape, dtype) as the
measurements CSV names it (docs/calibration.md, "The cases").

`function` is the kernel's name in kernels.py (kernels_source.KERNELS); `shape` the shape
of its one float32 argument; `family` the cost parameters the case is there for (which
parameters a case actually depends on is measured, not declared: fit.py's sensitivity
step).
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    kernel: str
    shape: tuple
    dtype: str
    function: str
    family: str
    what: str

    @property
    def shape_text(self):
        return "x".join(str(d) for d in self.shape)

    @property
    def key(self):
        return (self.kernel, self.shape_text, self.dtype)

    @property
    def name(self):
        """A file name for the case: kernel_shape_dtype."""
        return f"{self.kernel}_{self.shape_text}_{self.dtype}"


def _cases():
    c = []
    add = lambda *a: c.append(Case(*a))  # noqa: E731
    add("dma_lone", (1, 16), "float32", "dma_lone", "dma fixed cost",
        "one 64-byte load and its store")
    add("dma_burst", (1, 1024), "float32", "dma_burst", "dma descriptors",
        "64 back-to-back 64-byte loads, one store")
    add("dma_copy_large", (8, 16384), "float32", "dma_copy_large", "dma engine bandwidth",
        "512 KiB on 8 partitions (one DMA engine), load and store")
    add("dma_copy_large", (128, 8192), "float32", "dma_copy_large", "dma/hbm bandwidth",
        "4 MiB on 128 partitions (every DMA engine), load and store")
    # Rows of R elements, 16 KiB per partition in all: B x R = 4096 float32.
    for r in (4, 64, 128, 256, 1024):
        add("dma_row_load", (128, 4096 // r, 2 * r), "float32", "dma_row_load", "dma small rows",
            f"load of {4 * r}-byte rows (16 KiB per partition), contiguous store")
    for r in (4, 256):
        add("dma_row_store", (128, 4096 // r, r), "float32", "dma_row_store", "dma small rows",
            f"contiguous load, store of {4 * r}-byte rows (16 KiB per partition)")
    for n in (64, 8192):
        add("vector_tensor_scalar", (128, n), "float32", "vector_tensor_scalar_float32",
            "vector", f"32 independent tensor_scalar on Vector, N={n}")
    add("vector_tensor_scalar", (128, 8192), "bfloat16", "vector_tensor_scalar_bfloat16",
        "vector", "32 independent tensor_scalar on Vector, N=8192")
    add("vector_dependent", (128, 16), "float32", "vector_dependent_float32",
        "dependent tiny instructions", "32 dependent tensor_scalar on Vector, N=16")
    for n in (64, 8192):
        add("scalar_activation", (128, n), "float32", "scalar_activation_float32", "scalar",
            f"32 independent activations (exp) on Scalar, N={n}")
    add("scalar_activation", (128, 8192), "bfloat16", "scalar_activation_bfloat16", "scalar",
        "32 independent activations (exp) on Scalar, N=8192")
    for n in (64, 4096):
        add("gpsimd_iota", (128, n), "int32", "gpsimd_iota_int32", "gpsimd",
            f"32 iota on GpSimd, N={n}")
    # N = 16: 64 cycles each (the fill), so the 32 stay inside a throttled engine's ramp.
    for n in (16, 128, 512):
        add("matmul", (128, n), "bfloat16", "matmul_bfloat16", "tensor",
            f"32 accumulating matmuls [128,128].T @ [128,{n}], one stationary")
    add("matmul", (128, 512), "float32", "matmul_float32", "tensor fp32",
        "32 accumulating fp32 matmuls [128,128].T @ [128,512], one stationary")
    # With the 32 above: a burst long enough for a throttled Tensor engine (trn2, trn3) to
    # spend most of it at full rate, so its start rate, ramp and clock come apart.
    add("matmul_long", (128, 512), "bfloat16", "matmul_long_bfloat16", "tensor throttle",
        "128 accumulating matmuls [128,128].T @ [128,512], one stationary")
    # And one short enough to be mostly the start rate: 8 x 64 cycles.
    add("matmul_short", (128, 16), "bfloat16", "matmul_short_bfloat16", "tensor throttle",
        "8 accumulating matmuls [128,128].T @ [128,16], one stationary")
    add("matmul_stationary", (128, 64), "bfloat16", "matmul_stationary_bfloat16",
        "tensor stationary load", "32 matmuls [128,128].T @ [128,64], two stationaries alternating")
    return tuple(c)


CASES = _cases()
BY_KEY = {c.key: c for c in CASES}
