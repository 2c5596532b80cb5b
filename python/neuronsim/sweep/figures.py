"""A point's simulated summary figures, from `neuronsim run --stats-json` (docs/simulation.md):
the same figures for one NEFF and for a launch sequence, so every row of a sweep has the
same columns.

  time_ns           a NEFF: the kernel's device time (total_time_ns); a sequence: end to
                    end with the host model (end_to_end_ns, docs/host-model.md)
  device_ns         device time (a sequence: its launches' sum)
  launches          kernels launched (1 for a NEFF)
  instructions      instructions executed, every engine
  <engine>_busy_pct busy time of the engine as a share of device_ns, in percent (the
                    Tensor engine's is its utilisation)
  dma_busy_pct      mean busy share of the DMA engines, in percent
  dma_bytes         bytes moved by DMA; hbm_read_bytes, hbm_write_bytes
"""
ENGINES = ("tensor", "vector", "scalar", "gpsimd", "sync")
COLUMNS = (("time_ns", "device_ns", "launches", "instructions")
           + tuple(e + "_busy_pct" for e in ENGINES)
           + ("dma_busy_pct", "dma_bytes", "hbm_read_bytes", "hbm_write_bytes"))


def _value(stats, name):
    return stats[name]["value"]


def _pct(part, whole):
    return round(100.0 * part / whole, 3) if whole > 0 else 0.0


def of_stats(doc):
    """{column: value} of a stats JSON document (a NEFF's or a sequence's)."""
    if "launches" in doc:
        launches = [l["stats"] for l in doc["launches"]]
        time_ns, device_ns = doc["end_to_end_ns"], doc["device_ns"]
    else:
        launches = [doc["stats"]]
        time_ns = device_ns = _value(doc["stats"], "total_time_ns")

    def total(name):
        return sum(_value(s, name) for s in launches)

    out = {"time_ns": round(time_ns, 3), "device_ns": round(device_ns, 3),
           "launches": len(launches),
           "instructions": sum(total(e + "_engine_instruction_count") for e in ENGINES)}
    for e in ENGINES:
        out[e + "_busy_pct"] = _pct(total(e + "_engine_busy_ns"), device_ns)
    dma_busy = engines = 0
    for s in launches:
        names = [n for n in s if n.startswith("dma_engine_") and n.endswith("_busy_ns")]
        dma_busy += sum(_value(s, n) for n in names)
        engines = max(engines, len(names))
    out["dma_busy_pct"] = _pct(dma_busy, engines * device_ns)
    out["dma_bytes"] = total("dma_transfer_total_bytes")
    out["hbm_read_bytes"] = total("hbm_read_bytes")
    out["hbm_write_bytes"] = total("hbm_write_bytes")
    return out
