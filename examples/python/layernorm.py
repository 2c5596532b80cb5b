"""NKI tutorial "LayerNorm" in neuronsim.nki, both versions of the tutorial:

- `layernorm_v1`: nki.language only (mean, square, mean, subtract, rsqrt, ...);
- `layernorm_v2`: nki.isa bn_stats / bn_aggr for mean and variance and one
  tensor_scalar (x - mean) * rstd.

y = (x - mean) / sqrt(var + eps) * gamma + beta along each row. The bodies are the
tutorial's (the SBUF broadcast of gamma and beta runs on the Tensor engine).
"""
import math
import sys

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl


@nki.jit
def layernorm_v1(input_tensor, epsilon, gamma_vector, beta_vector):
    output_tensor = nl.ndarray(input_tensor.shape, dtype=input_tensor.dtype, buffer=nl.shared_hbm)
    assert input_tensor.shape[1] == gamma_vector.shape[0] == beta_vector.shape[0]
    i_p_io, i_f_io, i_p_param = nl.mgrid[0:nl.tile_size.pmax, 0:input_tensor.shape[1], 0:1]
    num_rows = input_tensor.shape[0]
    gamma_sb = nl.load(gamma_vector.reshape((1, gamma_vector.shape[0]))[i_p_param, i_f_io])
    beta_sb = nl.load(beta_vector.reshape((1, beta_vector.shape[0]))[i_p_param, i_f_io])
    gamma_sb_bcast = gamma_sb.broadcast_to((nl.tile_size.pmax, gamma_vector.shape[0]))
    beta_sb_bcast = beta_sb.broadcast_to((nl.tile_size.pmax, beta_vector.shape[0]))
    for i in nl.affine_range(math.ceil(input_tensor.shape[0] / nl.tile_size.pmax)):
        input_sb = nl.load(input_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io],
                           mask=(i * nl.tile_size.pmax + i_p_io < num_rows))
        mean = nl.mean(input_sb, axis=1)
        var = nl.mean(nl.square(input_sb), axis=1) - mean * mean
        shift_scale_tensor = (input_sb - mean) * nl.rsqrt(var + epsilon)
        output_sb = shift_scale_tensor * gamma_sb_bcast + beta_sb_bcast
        nl.store(output_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io], value=output_sb,
                 mask=(i * nl.tile_size.pmax + i_p_io < num_rows))
    return output_tensor


@nki.jit
def layernorm_v2(input_tensor, epsilon, gamma_vector, beta_vector):
    output_tensor = nl.ndarray(input_tensor.shape, dtype=input_tensor.dtype, buffer=nl.shared_hbm)
    i_p_io, i_f_io, i_p_param = nl.mgrid[0:nl.tile_size.pmax, 0:input_tensor.shape[1], 0:1]
    num_rows = input_tensor.shape[0]
    gamma_sb = nl.load(gamma_vector.reshape((1, gamma_vector.shape[0]))[i_p_param, i_f_io])
    beta_sb = nl.load(beta_vector.reshape((1, beta_vector.shape[0]))[i_p_param, i_f_io])
    gamma_sb_bcast = gamma_sb.broadcast_to((nl.tile_size.pmax, gamma_vector.shape[0]))
    beta_sb_bcast = beta_sb.broadcast_to((nl.tile_size.pmax, beta_vector.shape[0]))
    for i in nl.affine_range(math.ceil(input_tensor.shape[0] / nl.tile_size.pmax)):
        input_sb = nl.load(input_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io],
                           mask=(i * nl.tile_size.pmax + i_p_io < num_rows))
        i_f_bn, i_f_stats = nl.mgrid[0:nl.tile_size.bn_stats_fmax, 0:6]
        num_bn_stats = math.ceil(input_tensor.shape[1] / nl.tile_size.bn_stats_fmax)
        stats_results = nl.ndarray((nl.tile_size.pmax, 6 * num_bn_stats), dtype=np.float32)
        for j in nl.affine_range(num_bn_stats):
            stats_results[:, j * 6 + i_f_stats] = nisa.bn_stats(
                input_sb[:, j * nl.tile_size.bn_stats_fmax + i_f_bn], dtype=np.float32)
        mean_var = nisa.bn_aggr(stats_results)
        mean = mean_var[:, 0]
        var = mean_var[:, 1]
        scale_var = nl.rsqrt(var + epsilon)
        shift_scale_tensor = nisa.tensor_scalar(data=input_sb, op0=np.subtract, operand0=mean,
                                                op1=np.multiply, operand1=scale_var)
        output_sb = shift_scale_tensor * gamma_sb_bcast + beta_sb_bcast
        nl.store(output_tensor[i * nl.tile_size.pmax + i_p_io, i_f_io], value=output_sb,
                 mask=(i * nl.tile_size.pmax + i_p_io < num_rows))
    return output_tensor


def reference(x, eps, gamma, beta):
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def inputs(shape=(256, 1024), seed=0):
    rng = np.random.default_rng(seed)
    return (rng.random(shape, dtype=np.float32), 1e-5, rng.random(shape[1], dtype=np.float32),
            rng.random(shape[1], dtype=np.float32))


def check(target="trn2"):
    args = inputs()
    ref = reference(*args)
    np.testing.assert_allclose(nki.simulate(layernorm_v1, *args, target=target), ref,
                               rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(nki.simulate(layernorm_v2, *args, target=target), ref,
                               rtol=2e-3, atol=2e-3)
    return nki.benchmark(layernorm_v2, *args, target=target)


if __name__ == "__main__":
    r = check(sys.argv[1] if len(sys.argv) > 1 else "trn2")
    print(f"layernorm v1 and v2 match numpy; v2: {r}")
