"""A unittest file in current NKI's spellings (`import nki`, nki.simulate(kernel)(...),
@nki.jit(mode=...), nki.profile), run unedited by `python3 -m neuronsim.nki`."""
import os
import tempfile
import unittest

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl
import nki.typing as nt


@nki.jit(mode="simulation")
def exp_rows(x: nt.tensor[128, 512]):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    tile = nl.load(x)
    nl.store(out, value=nl.exp(tile))
    return out


@nki.jit
def add_into(a, b, out: nt.mutable_tensor):
    nl.store(out, value=nl.load(a) + nl.load(b))
    return out


class CurrentNki(unittest.TestCase):
    def test_simulate(self):
        x = np.random.default_rng(1).random((128, 512), dtype=np.float32)
        np.testing.assert_allclose(nki.simulate(exp_rows)(x), np.exp(x), rtol=1e-5)
        np.testing.assert_allclose(exp_rows(x), np.exp(x), rtol=1e-5)

    def test_mutable_output(self):
        a = np.ones((128, 256), np.float32)
        b = np.full((128, 256), 2.0, np.float32)
        out = np.zeros((128, 256), np.float32)
        res = nki.simulate(add_into)(a, b, out)
        np.testing.assert_array_equal(out, 3.0)
        np.testing.assert_array_equal(res, 3.0)

    def test_profile(self):
        wd = tempfile.mkdtemp()
        prof = nki.profile(working_directory=wd, save_neff_name="file.neff",
                           save_trace_name="profile.ntff")(exp_rows)
        prof(np.zeros((128, 512), np.float32))
        for name in ("file.neff", "profile.ntff", "profile.json"):
            self.assertTrue(os.path.getsize(os.path.join(wd, name)) > 0, name)

    def test_isa_is_neuronsims(self):
        import neuronsim.nki.isa
        self.assertIs(nisa, neuronsim.nki.isa)
        self.assertIs(nl.float32, __import__("neuronsim.nki.language").nki.language.float32)


if __name__ == "__main__":
    unittest.main()
