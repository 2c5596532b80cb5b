"""neuronsim.nki.isa.constants: the enums NKI places in nki.isa.constants, defined here once
and re-exported by nki.isa (`nisa.dge_mode is nki.isa.constants.dge_mode`).

Kernels import them from here (`from nki.isa.constants import dge_mode, oob_mode`, the
neuronxcc spelling `from neuronxcc.nki.isa.constants import oob_mode`), and NKI's earlier
nc_transpose page (the neuronxcc-era one, relevant for Inf2, Trn1, Trn2) names
`nc_transpose(engine=nki.isa.constants.engine.tensor)`:
https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/nki/api/generated/nki.isa.nc_transpose.html
The other nki.isa enums (matmul_perf_mode, reduce_cmd, nc_version) no page places here;
they stay in nki.isa only.
"""
from __future__ import annotations

import enum


class engine:
    """NKI's nki.isa.engine values (nki.isa.constants.engine on the nc_transpose page)."""

    tensor = "tensor"
    vector = "vector"
    scalar = "scalar"
    gpsimd = "gpsimd"
    sync = "sync"
    unknown = None


class oob_mode:
    """NKI's nki.isa.oob_mode: what an indirect DMA does with an index outside its tensor
    (error: a runtime error, the default; skip: "Silently skip the runtime out-of-bounds
    access"). https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.oob_mode.html"""

    error = "error"
    skip = "skip"


class dge_mode(enum.Enum):
    """NKI's nki.isa.dge_mode, the Descriptor Generation Engine mode of a DMA: who makes its
    descriptors. https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.dge_mode.html
    and the DGE reference,
    https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/deep-dives/nki-dge.html:

    - unknown: "let compiler decide the DGE mode" (the default of dma_copy and dma_transpose);
    - swdge: software DGE, the GpSimd engine makes the descriptors at run time (the only mode
      for indirect gather/scatter);
    - hwdge: hardware DGE, a DGE block triggered by the Sync or Scalar sequencer
      (NeuronCore-v3 or newer; ~600 ns per instruction; no indirect access);
    - none: "Not using DGE": descriptors precomputed by the host into HBM before the run
      (static patterns only).

    docs/python.md ("Differences from NKI") says how neuronsim.nki carries out each."""

    unknown = "unknown"
    swdge = "swdge"
    hwdge = "hwdge"
    none = "none"

    def __repr__(self):
        return f"nisa.dge_mode.{self.name}"
