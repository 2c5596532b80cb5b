"""examples/torch/decoder_study.py at the reduced size on trn2: both modes' key_averages
tables, the comparison, and the outputs within the bounds of tests/torch/test_decoder_block.py
against PyTorch's CPU (the script exits non-zero otherwise); the compiled run has fewer
launches, less device time and fewer HBM bytes than the eager one."""
import json
import os
import subprocess
import sys
from support import expect, finish, scratch_dir

SOURCE = os.environ["SOURCE_DIR"]
work = scratch_dir("torch-decoder-study-")


r = subprocess.run([sys.executable, os.path.join(SOURCE, "examples/torch/decoder_study.py"),
                    "--size", "small", "--out", work, "--json", os.path.join(work, "s.json")],
                   capture_output=True, text=True)
print(r.stdout[-3000:], r.stderr[-3000:])
expect(r.returncode == 0, "decoder_study.py --size small failed")
for want in ("--- eager: key_averages", "--- compiled: key_averages", "aten::mm",
             "neuronsim::compiled:DecoderBlock", "Self NeuronCore time total"):
    expect(want in r.stdout, "the output shows %r" % want)
s = json.load(open(os.path.join(work, "s.json")))
e, c = s["eager"], s["compiled"]
expect(c["launches"] < e["launches"] and c["device_ns"] < e["device_ns"]
      and c["hbm_bytes"] < e["hbm_bytes"], "compiled beats eager: %s" % s)
expect(e["in_flight"] == 0 and c["in_flight"] == 0, "synchronize() kept every launch")
for mode in ("eager", "compiled"):
    expect(os.path.isfile(os.path.join(work, "profile-%s" % mode, "host.json")), "profile dir")
finish()
