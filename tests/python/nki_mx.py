"""nisa.quantize_mx and nisa.nc_matmul_mx (NKI pages nki.isa.quantize_mx, nki.isa.nc_matmul_mx;
the MXFP matmul deep dive): a bf16 tile quantized to MXFP8 and multiplied on trn3 against a
numpy reference of the documented semantics (scale 2^(floor(log2 amax) - (E_max - 1)) per
group of 8 partitions x 4 elements, round to nearest even, dequantize by 2^(scale - 127),
accumulate in fp32); packed x4 data passed in and out as uint32 words; trn1 and trn2
refuse both instructions ("Available only on NeuronCore-v4 and newer")."""
import unittest

import numpy as np

from neuronsim import nki
import neuronsim.nki.isa as nisa
import neuronsim.nki.language as nl

# fp4 E2M1 (MXFP4): E_max 2 (6 = 1.5 x 2^2), one mantissa bit, normals from 2^0 (OCP
# Microscaling formats v1.0).
E_MAX = {"float8_e4m3fn": 8, "float8_e5m2": 15, "float4_e2m1fn": 2}
MANTISSA = {"float8_e4m3fn": 3, "float8_e5m2": 2, "float4_e2m1fn": 1}
MIN_NORMAL_EXP = {"float8_e4m3fn": -6, "float8_e5m2": -14, "float4_e2m1fn": 0}
FP4_MAGNITUDES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def bf16_values(rng, shape, scale=1.0):
    """Random floats that bf16 holds exactly (the low 16 bits of the fp32 pattern cleared),
    with group magnitudes spread over a few binades."""
    x = (rng.standard_normal(shape) * scale * 2.0 ** rng.integers(-3, 4, size=shape))
    bits = x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    return bits.view(np.float32)


def round_fp8(x, fmt):
    """x (float64, within range) rounded to nearest even in the fp8 format fmt."""
    m = MANTISSA[fmt]
    _, e = np.frexp(x)  # x = f * 2^e, 0.5 <= |f| < 1: the leading bit is 2^(e - 1)
    exp = np.maximum(e - 1, MIN_NORMAL_EXP[fmt])  # subnormals share the smallest step
    step = np.ldexp(1.0, exp - m)
    return np.round(x / step) * step  # numpy rounds halves to even


def quantize_reference(src, fmt):
    """The quantize_mx page: per group of 8 partitions x 4 elements, the e8m0 code of
    X = 2^(floor(log2 amax) - (E_max - 1)) (2^-127 for an all-zero group) and the values
    src / X rounded to fmt. Returns (codes [P/8, F/4], quantized values [P, F])."""
    p, f = src.shape
    groups = np.abs(src.astype(np.float64)).reshape(p // 8, 8, f // 4, 4)
    amax = groups.max(axis=(1, 3))
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log2(amax)) - (E_MAX[fmt] - 1)
    codes = np.where(amax == 0, 0, np.clip(exponent + 127, 0, 254)).astype(np.int64)
    scale = np.ldexp(1.0, codes - 127)  # [P/8, F/4]
    per_elem = np.repeat(np.repeat(scale, 8, axis=0), 4, axis=1)
    q = round_fp8(src.astype(np.float64) / per_elem, fmt)
    if fmt == "float4_e2m1fn":  # no infinity: saturates at 6
        q = np.clip(q, -6.0, 6.0)
    return codes, q


def dequantized_rows(q, codes):
    """The contraction rows of a quantized [K, 4F] source: row 4p + i, column j is
    q[p, 4j + i] * 2^(code - 127) (the packed lane i of element (p, j))."""
    k, f4 = q.shape
    scale = np.ldexp(1.0, np.repeat(np.repeat(codes, 8, axis=0), 4, axis=1) - 127)
    v = q * scale  # [K, 4F]
    return v.reshape(k, f4 // 4, 4).transpose(0, 2, 1).reshape(4 * k, f4 // 4)


def decode_fp8(byte, fmt):
    """The value of fp8 patterns (no NaN among them here)."""
    m = MANTISSA[fmt]
    e_bits = 7 - m
    bias = (1 << (e_bits - 1)) - 1
    sign = np.where(byte & 0x80, -1.0, 1.0)
    exp = (byte >> m) & ((1 << e_bits) - 1)
    man = byte & ((1 << m) - 1)
    normal = np.ldexp(1.0 + man / (1 << m), exp - bias)
    sub = np.ldexp(man / (1 << m), 1 - bias)
    return sign * np.where(exp == 0, sub, normal)


@nki.jit
def quantize_matmul(a, b, a_type=nl.float8_e4m3fn_x4, b_type=nl.float8_e5m2_x4):
    # a [K, 4M] and b [K, 4N] bf16 sources; K = 128 partitions of 4 contraction rows each,
    # quantized to a_type and b_type (MXFP8 by default; MXFP4 is float4_e2m1fn_x4).
    k, m, n = a.shape[0], a.shape[1] // 4, b.shape[1] // 4
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    a_packed = nl.ndarray((k, m), dtype=a_type, buffer=nl.shared_hbm)
    a_scales = nl.ndarray((k, m), dtype=nl.uint8, buffer=nl.shared_hbm)
    a_sb = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    b_sb = nl.ndarray(b.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_sb, src=a)
    nisa.dma_copy(dst=b_sb, src=b)
    a_q = nl.ndarray((k, m), dtype=a_type, buffer=nl.sbuf)
    a_s = nl.ndarray((k, m), dtype=nl.uint8, buffer=nl.sbuf)
    b_q = nl.ndarray((k, n), dtype=b_type, buffer=nl.sbuf)
    b_s = nl.ndarray((k, n), dtype=nl.float8_e8m0fnu, buffer=nl.sbuf)
    nisa.memset(dst=a_s, value=0)  # the rows quantize_mx leaves alone, read by the copy out
    nisa.quantize_mx(dst=a_q, src=a_sb, dst_scale=a_s)
    nisa.quantize_mx(dst=b_q, src=b_sb, dst_scale=b_s)
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul_mx(dst=ps, stationary=a_q, moving=b_q, stationary_scale=a_s,
                      moving_scale=b_s)
    res = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    nisa.dma_copy(dst=out, src=res)
    nisa.dma_copy(dst=a_packed, src=a_q)
    nisa.dma_copy(dst=a_scales, src=a_s)
    return out, a_packed, a_scales


def decode_fp4(nibble):
    """The value of fp4 E2M1 codes (bit 3 the sign)."""
    return np.where(nibble & 8, -1.0, 1.0) * FP4_MAGNITUDES[nibble & 7]


@nki.jit
def matmul_prequantized(st, st_scale, mv, mv_scale):
    # Packed data from HBM (uint32 words in numpy), e8m0 scales as uint8; bf16 PSUM result.
    k, m, n = st.shape[0], st.shape[1], mv.shape[1]
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    tiles = []
    for t, dt in ((st, nl.float8_e4m3fn_x4), (st_scale, nl.uint8), (mv, nl.float8_e4m3fn_x4),
                  (mv_scale, nl.uint8)):
        sb = nl.ndarray(t.shape, dtype=dt, buffer=nl.sbuf)
        nisa.dma_copy(dst=sb, src=t)
        tiles.append(sb)
    ps = nl.ndarray((m, n), dtype=nl.bfloat16, buffer=nl.psum)
    nisa.nc_matmul_mx(ps, tiles[0], tiles[2], tiles[1], tiles[3], tile_position=(0, 0),
                      tile_size=(32, 128))
    res = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def bad_tile_size(st, st_scale, mv, mv_scale):
    k, m, n = st.shape[0], st.shape[1], mv.shape[1]
    out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
    sbs = [nl.load(t) for t in (st, st_scale, mv, mv_scale)]
    ps = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul_mx(ps, sbs[0], sbs[2], sbs[1], sbs[3], tile_position=(0, 0),
                      tile_size=(48, 128))
    nl.store(out, nl.copy(ps))
    return out


def typed_bf16(x):
    return nki.typed(x, nl.bfloat16)


class QuantizeAndMatmul(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(11)
        self.a = bf16_values(rng, (128, 4 * 64))
        self.b = bf16_values(rng, (128, 4 * 96))
        self.a[8:16, 0:4] = 0.0  # an all-zero group: scale code 0

    def test_trn3_matches_the_documented_semantics(self):
        got, packed, scales = nki.simulate(quantize_matmul, typed_bf16(self.a),
                                           typed_bf16(self.b), target="trn3")
        a_codes, a_q = quantize_reference(self.a, "float8_e4m3fn")
        b_codes, b_q = quantize_reference(self.b, "float8_e5m2")
        # The scales: 4 rows at the start of each 32-partition quadrant, the rest as memset.
        self.assertEqual(scales.dtype, np.uint8)
        for q in range(4):
            np.testing.assert_array_equal(scales[32 * q:32 * q + 4], a_codes[4 * q:4 * q + 4])
            self.assertFalse(scales[32 * q + 4:32 * q + 32].any())
        self.assertEqual(a_codes[1, 0], 0)
        # The packed data: uint32 words, lane i = byte i = src[p, 4j + i] / X.
        self.assertEqual(packed.dtype, np.uint32)
        self.assertEqual(packed.shape, (128, 64))
        lanes = packed.view(np.uint8).reshape(128, 64 * 4)
        np.testing.assert_array_equal(decode_fp8(lanes.astype(np.int64), "float8_e4m3fn"), a_q)
        # The matmul: dequantized rows, float64 reference; fp32 accumulation over 512 rows.
        want = dequantized_rows(a_q, a_codes).T @ dequantized_rows(b_q, b_codes)
        mag = np.abs(dequantized_rows(a_q, a_codes)).T @ np.abs(dequantized_rows(b_q, b_codes))
        self.assertEqual(got.shape, (64, 96))
        self.assertTrue(np.all(np.abs(got - want) <= 512 * 2.0 ** -24 * mag))
        # And close to the unquantized product (MXFP8 keeps ~2 significant digits).
        exact = self.a.astype(np.float64).reshape(128, 64, 4).transpose(0, 2, 1).reshape(512, 64)
        exact_b = self.b.astype(np.float64).reshape(128, 96, 4).transpose(0, 2, 1).reshape(512, 96)
        rel = np.abs(got - exact.T @ exact_b).max() / np.abs(exact.T @ exact_b).max()
        self.assertLess(rel, 0.1)

    def test_assembly_and_timing(self):
        asm = quantize_matmul.trace(typed_bf16(self.a), typed_bf16(self.b), target="trn3").asm()
        self.assertIn("quantize_mx", asm)
        self.assertIn("matmul_mx", asm)
        self.assertGreater(nki.benchmark(quantize_matmul, typed_bf16(self.a), typed_bf16(self.b),
                                         target="trn3").latency_ns, 0)

    def test_trn1_and_trn2_refuse_it(self):
        for target in ("trn1", "trn2"):
            with self.subTest(target=target):
                with self.assertRaisesRegex(
                        Exception, "quantize_mx is not available on this target \\(NKI "
                        "quantize_mx: available only on NeuronCore-v4 and newer"):
                    nki.simulate(quantize_matmul, typed_bf16(self.a), typed_bf16(self.b),
                                 target=target)


FP4 = {"a_type": nl.float4_e2m1fn_x4, "b_type": nl.float4_e2m1fn_x4}  # MXFP4 operands


class Mxfp4(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(13)
        self.a = bf16_values(rng, (128, 4 * 32))
        self.b = bf16_values(rng, (128, 4 * 48))

    def test_trn3_quantizes_and_multiplies_fp4(self):
        got, packed, scales = nki.simulate(quantize_matmul, typed_bf16(self.a),
                                           typed_bf16(self.b), **FP4, target="trn3")
        a_codes, a_q = quantize_reference(self.a, "float4_e2m1fn")
        b_codes, b_q = quantize_reference(self.b, "float4_e2m1fn")
        for q in range(4):
            np.testing.assert_array_equal(scales[32 * q:32 * q + 4], a_codes[4 * q:4 * q + 4])
        # uint16 elements, lane i = bits 4i..4i+3.
        self.assertEqual(packed.dtype, np.uint16)
        self.assertEqual(packed.shape, (128, 32))
        nibbles = np.stack([(packed.astype(np.int64) >> (4 * i)) & 0xF for i in range(4)],
                           axis=-1).reshape(128, 32 * 4)
        np.testing.assert_array_equal(decode_fp4(nibbles), a_q)
        want = dequantized_rows(a_q, a_codes).T @ dequantized_rows(b_q, b_codes)
        mag = np.abs(dequantized_rows(a_q, a_codes)).T @ np.abs(dequantized_rows(b_q, b_codes))
        self.assertTrue(np.all(np.abs(got - want) <= 512 * 2.0 ** -24 * mag))
        self.assertGreater(nki.benchmark(quantize_matmul, typed_bf16(self.a),
                                         typed_bf16(self.b), **FP4, target="trn3").latency_ns, 0)

    def test_trn2_refuses_it(self):
        with self.assertRaisesRegex(Exception, "quantize_mx is not available on this target"):
            nki.simulate(quantize_matmul, typed_bf16(self.a), typed_bf16(self.b), **FP4,
                         target="trn2")


class PrequantizedInputs(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(12)
        # 32 partitions: one quadrant, 4-row scale tiles. Lanes are e4m3fn bytes below the
        # NaN pattern; scales around 2^0.
        self.st = rng.integers(0, 0x7e, size=(32, 16 * 4), dtype=np.uint8).view(np.uint32)
        self.mv = rng.integers(0, 0x7e, size=(32, 24 * 4), dtype=np.uint8).view(np.uint32)
        self.st_scale = rng.integers(120, 130, size=(4, 16)).astype(np.uint8)
        self.mv_scale = rng.integers(120, 130, size=(4, 24)).astype(np.uint8)

    def args(self):
        # The words as the packed type (nki.typed: numpy has no such dtype), scales as bytes.
        return (nki.typed(self.st, nl.float8_e4m3fn_x4), self.st_scale,
                nki.typed(self.mv, nl.float8_e4m3fn_x4), self.mv_scale)

    def test_uint32_words_in_bf16_out(self):
        got = nki.simulate(matmul_prequantized, *self.args(), target="trn3")
        st_q = decode_fp8(self.st.view(np.uint8).astype(np.int64), "float8_e4m3fn")
        mv_q = decode_fp8(self.mv.view(np.uint8).astype(np.int64), "float8_e4m3fn")
        want = (dequantized_rows(st_q, self.st_scale.astype(np.int64)).T
                @ dequantized_rows(mv_q, self.mv_scale.astype(np.int64)))
        # A bf16 PSUM tile: the fp32 sum rounded once to bf16 (half an ulp, 2^-8 relative).
        np.testing.assert_allclose(got, want, rtol=2.0 ** -8 * 1.01, atol=1e-30)

    def test_tile_size_must_be_a_row_tile(self):
        with self.assertRaisesRegex(nki.NkiError, "row_size must be 128, 64 or 32"):
            nki.simulate(bad_tile_size, *self.args(), target="trn3")

    def test_trn2_refuses_nc_matmul_mx(self):
        with self.assertRaisesRegex(Exception, "nc_matmul_mx is not available on this target"):
            nki.simulate(matmul_prequantized, *self.args(), target="trn2")


if __name__ == "__main__":
    unittest.main()
