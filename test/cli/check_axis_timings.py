"""Runs `clreduce ... --axis ... --json -i N` (the arguments given) and checks the timings that
--json reports for a reduction along axes (docs/axes.md): each share's device span over the N
runs and the host-observed time of each run, as min and median, and the fastest run's passes.

Usage: check_axis_timings.py CLREDUCE ARGUMENTS...
"""

import json
import subprocess
import sys


def positive_min_median(where, figures, key):
    low, middle = figures[key + "_min"], figures[key + "_median"]
    if not (isinstance(low, (int, float)) and isinstance(middle, (int, float))):
        sys.exit(f"{where}: {key}_min {low!r} and {key}_median {middle!r} are not numbers")
    if not 0 < low <= middle:
        sys.exit(f"{where}: {key}_min {low} and {key}_median {middle} are not 0 < min <= median")
    return low


def main():
    command = sys.argv[1:]
    iterations = int(command[command.index("-i") + 1])
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"exit code {run.returncode}\n{run.stderr}")
    report = json.loads(run.stdout)
    if report["iterations"] != iterations or report["check"] != "passed":
        sys.exit(f"iterations {report['iterations']}, check {report['check']}")
    positive_min_median("the whole run", report, "host_observed_us")
    for number, share in enumerate(report["shares"], 1):
        where = f"share {number}"
        span = positive_min_median(where, share, "span_us")
        if not share["span_gbps"] > 0:
            sys.exit(f"{where}: span_gbps {share['span_gbps']} is not positive")
        passes = share["passes_us"]
        # The fastest run's launches, one after another within its span (to the rounding of
        # the printed figures).
        if not passes or sum(passes) > span + 0.01 * (len(passes) + 1):
            sys.exit(f"{where}: passes_us {passes} do not fit in the span {span}")
    print(f"{len(report['shares'])} share(s), {iterations} runs: timings sane")


if __name__ == "__main__":
    main()
