"""Kernels written against AWS's neuronxcc-era NKI spellings (imports, typing, compiler
decorators and buffers, a tuple constant), run unedited by tests/python/nki_dropin.py
through `python3 -m neuronsim.nki`. Written for neuronsim's tests, in the documented API."""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.compiler as ncc
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt


@nki.compiler.skip_middle_end_transformations
@nki.jit
def tiled_add(a_input: nt.tensor, b_input: nt.tensor):
    """c = a + b over 128-row tiles."""
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    rows, cols = a_input.shape
    for i in nl.affine_range(rows // nl.tile_size.pmax):
        ix = i * nl.tile_size.pmax + nl.arange(nl.tile_size.pmax)[:, None]
        iy = nl.arange(cols)[None, :]
        a_tile = nl.load(a_input[ix, iy])
        b_tile = nl.load(b_input[ix, iy])
        nl.store(c_output[ix, iy], value=nl.add(a_tile, b_tile))
    return c_output


@nki.compiler.enable_stack_allocator
@nki.compiler.skip_middle_end_transformations
@nki.jit
def scaled_copy(x, shape2D=(128, 512), factor=2.0):
    """out = x * factor, staged through a tile placed with the direct-allocation API."""
    out = nl.ndarray(shape2D, dtype=x.dtype, buffer=nl.shared_hbm)
    staged = nl.ndarray(shape2D, dtype=x.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    staged[...] = nl.load(x)
    nl.store(out, value=nl.multiply(staged, factor))
    return out


@nki.jit
def matmul_t(lhsT, rhs):
    """lhsT.T @ rhs for one [K<=128, M<=128] x [K, N<=512] tile pair."""
    out = nl.ndarray((lhsT.shape[1], rhs.shape[1]), dtype=nl.float32, buffer=nl.shared_hbm)
    lhs_tile = nl.load(lhsT)
    rhs_tile = nl.load(rhs)
    res_psum = nisa.nc_matmul(lhs_tile, rhs_tile)
    nl.store(out, value=nl.copy(res_psum, dtype=nl.float32))
    return out


@nki.benchmark(warmup=1, iters=2)
def exp_into(in_tensor, out_tensor):
    """The profiling guide's style: the output is an argument, nothing is returned."""
    sz_p, sz_f = in_tensor.shape
    i_f = nl.arange(sz_f)[None, :]
    for p in nl.affine_range(sz_p // nl.tile_size.pmax):
        i_p = p * nl.tile_size.pmax + nl.arange(nl.tile_size.pmax)[:, None]
        nl.store(out_tensor[i_p, i_f], value=nl.exp(nl.load(in_tensor[i_p, i_f])))


if __name__ == "__main__":
    a = np.random.random_sample([256, 512]).astype(np.float32)
    b = np.random.random_sample([256, 512]).astype(np.float32)
    c = nki.simulate_kernel(tiled_add, a, b)
    assert np.allclose(c, a + b)

    y = nki.simulate_kernel(scaled_copy, a[:128], (128, 512), factor=3.0)
    assert np.allclose(y, a[:128] * 3.0)

    lhsT = np.random.random_sample([128, 64]).astype(np.float32)
    rhs = np.random.random_sample([128, 512]).astype(np.float32)
    assert np.allclose(nki.simulate_kernel(matmul_t, lhsT, rhs), lhsT.T @ rhs, rtol=1e-4, atol=1e-4)

    bench = nki.benchmark(warmup=2, iters=4, save_neff_name="file.neff",
                          save_trace_name="profile.ntff")(tiled_add)
    bench(a, b)
    metrics = bench.benchmark_result.nc_latency
    print("latency.p50 = " + str(metrics.get_latency_percentile(50)))
    print("latency.p99 = " + str(metrics.get_latency_percentile(99)))
    exp_into(nt.tensor[[256, 512], nl.float32], nt.tensor[[256, 512], nl.float32])
    assert exp_into.benchmark_result.nc_latency.get_latency_percentile(50) > 0
    print("add_kernels OK")
