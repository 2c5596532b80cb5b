"""The cost parameters `neuronsim calibrate fit` fits, each bounded to a physical range
(docs/calibration.md, "The parameters"): (section.key, low, high, reason). Integer
parameters (the preset's value is a JSON integer) are searched over integers.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Parameter:
    name: str  # section.key of the target config
    low: float
    high: float
    reason: str

    @property
    def section(self):
        return self.name.split(".")[0]

    @property
    def key(self):
        return self.name.split(".")[1]


PARAMETERS = (
    Parameter("dma.fixed_latency_ns", 50, 5000,
              "a transfer's latency to its first byte: above an HBM round trip (~100 ns), "
              "below the ~2 us the NKI DMA guides show for a whole small transfer"),
    Parameter("dma.descriptor_ns", 50, 5000,
              "descriptor generation per dma_copy: the DGE's ~600 ns (trn2 guide) within "
              "a factor of 10; only targets with a hardware DGE use it"),
    Parameter("dma.engine_bytes_per_ns", 2, 100,
              "one DMA engine's bandwidth: the published ~23-27 B/ns within a factor of 4 "
              "either way"),
    Parameter("hbm.core_share", 0.02, 1,
              "a core's share of the chip's HBM bandwidth: at most all of it, at least "
              "a sixth of an even split of 8 cores"),
    Parameter("dma.efficient_bytes_per_row", 64, 65536,
              "the row length that reaches full rate: at least one 64-byte burst, at most "
              "a whole 64 KiB partition"),
    Parameter("dma.small_row_min_efficiency", 0.001, 1,
              "the efficiency floor of tiny rows: a fraction, above 1/1000"),
    Parameter("cost.min_issue_interval", 8, 512,
              "MIN_II: the published 64 cycles within a factor of 8"),
    Parameter("cost.dependent_overhead", 1, 2000,
              "the extra cycles of a dependent tiny instruction: the published ~100 (v2) "
              "and 202 (v3) within a factor of 10"),
    Parameter("vector.elems_per_cycle_other", 32, 2048,
              "the Vector engine's fp32 width: 1/4 to 8 times the 128 lanes"),
    Parameter("vector.elems_per_cycle_16bit", 32, 2048,
              "the Vector engine's bf16 width: 1/4 to 16 times the 128 lanes"),
    Parameter("scalar.elems_per_cycle_other", 16, 1024,
              "the Scalar engine's fp32 width: 1/8 to 8 times the 128 lanes"),
    Parameter("scalar.elems_per_cycle_16bit", 16, 1024,
              "the Scalar engine's bf16 width: 1/8 to 8 times the 128 lanes"),
    Parameter("gpsimd.elems_per_cycle", 16, 1024,
              "the GpSimd engine's width: 1/8 to 8 times the published 128"),
    Parameter("gpsimd.fixed_cycles", 1, 2000,
              "the fixed part of iota: the published 150 cycles within a factor of 10"),
    Parameter("clocks.tensor_ghz", 0.5, 4,
              "the Tensor engine clock, which sets its rate (one moving column a cycle): "
              "a plausible silicon clock"),
    Parameter("tensor.fp32_matmul_factor", 1, 8,
              "fp32 matmul's cost over bf16: no faster than bf16, at most about twice "
              "the published 3.7-4"),
    Parameter("tensor.load_stationary_speedup", 1, 16,
              "LoadStationary columns per cycle: the published 'up to 4x' within 4x"),
    Parameter("tensor.throttle_start_percent", 10, 100,
              "the Tensor throttle's start rate: the guide's 'about half' anywhere from a "
              "tenth to none (targets with tensor.throttle)"),
    Parameter("tensor.throttle_ramp_ns", 100, 30000,
              "the throttle's ramp to full rate: 'a few microseconds' within 0.1 to 30 us"),
)

BY_NAME = {p.name: p for p in PARAMETERS}
