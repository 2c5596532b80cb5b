"""bf16 and fp8 in and out of neuronsim.run: floats are rounded into the tensor's dtype as
the engines round (and as `neuronsim run` rounds a float .npy); unsigned integers are bit
patterns only with raw_bits=True, and must then be the dtype's width; raw_outputs=True
returns bit patterns. Integers for a float tensor without the flag are refused, naming the
tensor. round_to / to_bits / from_bits are the same conversions."""
import numpy as np

import neuronsim
from support import FP8_COPY, Checks, asm_neff, cli_run

c = Checks()
rng = np.random.default_rng(3)

# Values that need rounding in every format, plus exact ones, zeros, a negative, a tie.
values = (rng.standard_normal((128, 64)) * 4).astype(np.float32)
values[0, :4] = [0.0, -0.0, 1.0, -2.5]
values[0, 4] = np.float32(1 + 2**-8)  # halfway between two bf16 values: ties to even -> 1.0

for dtype, bits_type in [("bf16", np.uint16), ("fp8_e4m3", np.uint8), ("fp8_e5m2", np.uint8)]:
    k = neuronsim.assemble(FP8_COPY.format(dtype=dtype), dtype + "_copy.nasm")
    rounded = neuronsim.round_to(values, dtype)
    bits = neuronsim.to_bits(values, dtype)
    c.check(bits.dtype == bits_type and bits.shape == values.shape, "%s: to_bits dtype" % dtype)
    c.check(np.array_equal(neuronsim.from_bits(bits, dtype), rounded),
            "%s: from_bits(to_bits(x)) == round_to(x)" % dtype)
    r = neuronsim.run(k, {"a": values})
    out = r.outputs["out"]
    c.check(out.dtype == np.float32 and np.array_equal(out, rounded),
            "%s: float input rounded as the engines round" % dtype)
    raw = neuronsim.run(k, {"a": bits}, raw_bits=True, raw_outputs=True).outputs["out"]
    c.check(raw.dtype == bits_type and np.array_equal(raw, bits),
            "%s: raw bits in, the same raw bits out" % dtype)
    # float64 input is rounded once, from float64 (as `neuronsim run` does with a <f8 file).
    r64 = neuronsim.run(k, {"a": values.astype(np.float64)})
    c.check(np.array_equal(r64.outputs["out"], rounded), "%s: float64 input" % dtype)
    # The CLI rounds a float .npy the same way.
    k.save(neuronsim_path := "%s/%s_copy.neff" % (__import__("support").SCRATCH, dtype))
    cli_out, _ = cli_run(neuronsim_path, {"a": values}, "trn2")
    c.check(np.array_equal(cli_out["out"], out), "%s: same as `neuronsim run`" % dtype)
    c.raises(lambda: neuronsim.run(k, {"a": bits}), ["tensor a", dtype, "raw_bits=True"],
             "%s: integers without raw_bits" % dtype)
    wrong = bits.astype(np.uint32)
    c.raises(lambda: neuronsim.run(k, {"a": wrong}, raw_bits=True), ["tensor a", "<u4"],
             "%s: raw bits of the wrong width" % dtype)
    c.raises(lambda: neuronsim.run(k, {"a": bits.astype(np.int16 if bits_type == np.uint16
                                                         else np.int8)}, raw_bits=True),
             ["tensor a"], "%s: signed integers are not bit patterns" % dtype)

# bf16 rounding against an independent numpy reference (round half to even on the bits).
def bf16_reference(a):
    b = a.view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32)

c.check(np.array_equal(neuronsim.round_to(values, "bf16"), bf16_reference(values)),
        "round_to bf16 = round half to even")
c.check(neuronsim.round_to(values, "bf16")[0, 4] == 1.0, "a tie rounds to even")

# bf16 inputs of matmul_bias_relu: floats in and raw bits in give the same outputs.
mm = neuronsim.load_neff(asm_neff("matmul_bias_relu"))
w = rng.standard_normal((128, 128)).astype(np.float32)
x = rng.standard_normal((128, 512)).astype(np.float32)
a = neuronsim.run(mm, {"w": w, "x": x})
b = neuronsim.run(mm, {"w": neuronsim.to_bits(w, "bf16"), "x": neuronsim.to_bits(x, "bf16")},
                  raw_bits=True)
c.check(np.array_equal(a.outputs["out"], b.outputs["out"]), "bf16: floats = their raw bits")
fp32_raw = neuronsim.run(mm, {"w": w, "x": x}, raw_outputs=True).outputs["out"]
c.check(fp32_raw.dtype == np.uint32 and np.array_equal(fp32_raw.view(np.float32),
                                                       a.outputs["out"]),
        "raw_outputs of an fp32 tensor: its bits as uint32")
c.raises(lambda: neuronsim.round_to(values, "int8"), ["not a float dtype"], "round_to int8")
c.raises(lambda: neuronsim.round_to(values, "bf17"), ["bf17"], "round_to unknown dtype")
c.finish()
