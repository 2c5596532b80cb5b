"""A driver in the style of the NKI tutorials' test scripts: imports the kernels from their
own file and runs them with nki.baremetal and nki.benchmark as the NKI API pages show."""
import sys

import numpy as np
from neuronxcc import nki
from neuronxcc.nki import baremetal, benchmark
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt

from add_kernels import matmul_t, tiled_add


@baremetal(save_neff_name="bm.neff", save_trace_name="bm.ntff")
def add_once(a_tensor, b_tensor):
    c_tensor = nl.ndarray(a_tensor.shape, dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    a = nl.load(a_tensor)
    b = nl.load(b_tensor)
    nl.store(c_tensor, a + b)
    return c_tensor


a = np.zeros([128, 1024], dtype=np.float32)
b = np.random.random_sample([128, 1024]).astype(np.float32)
assert np.allclose(add_once(a, b), a + b)

x = np.random.random_sample([512, 256]).astype(np.float32)
y = np.random.random_sample([512, 256]).astype(np.float32)
assert np.allclose(nki.baremetal(tiled_add)(x, y), x + y)

# Shape-only inputs, as nki-samples drivers pass them to nki.benchmark.
bench_func = benchmark(warmup=1, iters=3)(matmul_t)
bench_func(nt.tensor[[128, 128], nl.bfloat16], nt.tensor[[128, 512], nl.bfloat16])
p50 = bench_func.benchmark_result.nc_latency.get_latency_percentile(50)
print(f"matmul p50 {p50}")
print("run_add OK", *sys.argv[1:])
