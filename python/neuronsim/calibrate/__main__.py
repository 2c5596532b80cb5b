"""`python3 -m neuronsim.calibrate kernels|measure|fit ...`: what `neuronsim calibrate` runs
(cli/cmd_calibrate.cpp passes its options through; docs/calibration.md).

Exit status as every neuronsim command (docs/cli.md): 0, 1 for a user error (one line
naming it), 2 for a bug.
"""
import argparse
import sys

from .. import Error
from .._entry import run_main


def main(argv):
    ap = argparse.ArgumentParser(prog="neuronsim calibrate")
    sub = ap.add_subparsers(dest="command", required=True)
    k = sub.add_parser("kernels")
    k.add_argument("-o", "--output", required=True)
    k.add_argument("-t", "--target", default="trn2")
    m = sub.add_parser("measure")
    m.add_argument("suite")
    m.add_argument("-t", "--target", required=True)
    m.add_argument("-o", "--output", required=True)
    f = sub.add_parser("fit")
    f.add_argument("measurements")
    f.add_argument("-t", "--target", required=True)
    f.add_argument("-o", "--output", required=True)
    f.add_argument("--report")
    f.add_argument("--json", action="store_true")
    f.add_argument("--parameters")
    a = ap.parse_args(argv)
    from . import fit, measure, render, write_suite
    if a.command == "kernels":
        n = write_suite(a.output, a.target)
        print(f"wrote {a.output}: {n} cases for {a.target} (kernels.py, driver.py, cases.csv, "
              "neffs/); on the Trainium: python3 driver.py -o measurements.csv")
    elif a.command == "measure":
        rows = measure(a.suite, a.target, a.output)
        if a.output != "-":
            print(f"wrote {a.output}: {len(rows)} cases on {a.target}")
    else:
        names = None
        if a.parameters is not None:
            from .parameters import BY_NAME
            names = [n.strip() for n in a.parameters.split(",") if n.strip()]
            unknown = [n for n in names if n not in BY_NAME]
            if unknown or not names:
                raise Error(f"calibrate fit: --parameters: {unknown[0] if unknown else '(none)'} is "
                            f"not a calibrated parameter ({', '.join(BY_NAME)})")
        r = fit(a.measurements, a.target, a.output, a.report, parameters=names)
        if a.json:
            sys.stdout.write(render(r, "json"))
        else:
            text = render(r, "md")
            sys.stdout.write(text.split("## Cases")[0])
            print(f"wrote {a.output}" + (f" and {a.report}" if a.report else ""))


if __name__ == "__main__":
    run_main(main, sys.argv[1:], "calibration",
             interrupted="calibrate interrupted; nothing written")
