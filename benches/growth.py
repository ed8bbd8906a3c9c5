#!/usr/bin/env python3
"""Growth of each pass's time from a small to a large generated model (issue 9's goal:
100k ops at most 11x the time of 10k ops, for every standard pass).

Method (benches/README.md): `passlab gen` writes each model once; then small and large
`passlab bench --json` processes alternate, PAIRS times, so both sizes see the same moments of
a shared host; each process reports the median of its runs; the ratio of a pass is the median
over the pairs of large/small. The last lines say how far one pass's time moved between
processes of the same size (only the host moves it) and warn when that alone could carry a
ratio over the limit. Python's standard library only.

    python3 benches/growth.py                        # both models, every standard pass
    python3 benches/growth.py --model conv --pass FuseOps --pairs 9
    python3 benches/growth.py --check                # exit 1 when a ratio is over --limit
    python3 benches/growth.py --cold                 # diagnostic: caches flushed before each run
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

STANDARD = [
    "InferType", "FoldConstant", "DeadCodeElimination", "EliminateCommonSubexpr",
    "ToANormalForm", "ToGraphNormalForm", "SimplifyInference", "CanonicalizeOps", "FuseOps",
    "FoldScaleAxis", "ConvertLayout", "AlterOpLayout", "LambdaLift",
]

# Between-process movement of one pass's time above which a run is reported as unsteady: the
# goal leaves 10% between linear growth and the limit, so a run whose times moved by more than
# twice that cannot tell one from the other (stop 24's last run, with pair ratios spanning
# 5-25x, moved by a median of 87-97%).
UNSTEADY = 1.25


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="target/release/passlab", help="the passlab binary")
    ap.add_argument("--model", action="append", choices=["peer", "conv"],
                    help="generated model (repeatable; default both)")
    ap.add_argument("--pass", dest="passes", action="append", help="pass (default: all 13)")
    ap.add_argument("--small", type=int, default=10_000, help="ops of the small model")
    ap.add_argument("--large", type=int, default=100_000, help="ops of the large model")
    ap.add_argument("--pairs", type=int, default=5, help="small/large process pairs")
    ap.add_argument("--runs-small", type=int, default=21, help="timed runs per small process")
    ap.add_argument("--runs-large", type=int, default=7, help="timed runs per large process")
    ap.add_argument("--limit", type=float, default=11.0, help="the goal's largest ratio")
    ap.add_argument("--check", action="store_true", help="exit 1 when a ratio is over --limit")
    ap.add_argument("--cold", action="store_true",
                    help="flush the caches before every timed run (passlab bench --cold): a "
                         "diagnostic, not the goal's method")
    a = ap.parse_args()
    if not os.path.exists(a.bin):
        sys.exit(f"error: no binary at {a.bin} (cargo build --release, or pass --bin)")
    passes = a.passes or STANDARD
    over = []
    # Per pass and size: the largest over the smallest of its per-process medians (the same
    # binary on the same model: only the host moves it).
    spreads = {a.small: [], a.large: []}
    with tempfile.TemporaryDirectory(prefix="passlab-growth-") as tmp:
        for model in a.model or ["peer", "conv"]:
            files = {}
            for size in (a.small, a.large):
                files[size] = os.path.join(tmp, f"{model}_{size}.relay")
                subprocess.run([a.bin, "gen", model, str(size), "-o", files[size]], check=True)
            times = {(p, s): [] for p in passes for s in (a.small, a.large)}
            for _ in range(a.pairs):
                for size, runs in ((a.small, a.runs_small), (a.large, a.runs_large)):
                    cmd = [a.bin, "bench", files[size], "--runs", str(runs), "--json"]
                    if a.cold:
                        cmd.append("--cold")
                    for p in passes:
                        cmd += ["--pass", p]
                    out = subprocess.run(cmd, capture_output=True, text=True)
                    if out.returncode != 0:
                        sys.exit(f"error: {' '.join(cmd)}\n{out.stderr}")
                    report = json.loads(out.stdout)
                    for p in passes:
                        times[(p, size)].append(report[p + "_s"])
            print(f"{model}: {a.small} -> {a.large} ops, {a.pairs} pairs "
                  f"(median of pair ratios, range){', caches flushed before each run' if a.cold else ''}")
            for p in passes:
                small, large = times[(p, a.small)], times[(p, a.large)]
                spreads[a.small].append(max(small) / min(small))
                spreads[a.large].append(max(large) / min(large))
                ratios = [b / s for s, b in zip(small, large)]
                r = statistics.median(ratios)
                flag = f"  over {a.limit:g}x" if r > a.limit else ""
                if flag:
                    over.append(f"{model} {p}")
                print(f"  {p:24} {statistics.median(small) * 1e3:9.3f} ms {statistics.median(large) * 1e3:9.2f} ms"
                      f"  {r:5.2f}x ({min(ratios):.2f}-{max(ratios):.2f}){flag}", flush=True)
    total = len(passes) * len(a.model or ["peer", "conv"])
    print(f"{total - len(over)} of {total} at or under {a.limit:g}x")
    # A ratio is only as steady as the host: report how far the same pass's time moved between
    # processes of this run, and say so when that alone could carry a ratio over the limit.
    moved = {size: statistics.median(v) for size, v in spreads.items()}
    print(f"steadiness: one pass's time moved by a median of {100 * (moved[a.small] - 1):.0f}% "
          f"({a.small} ops) and {100 * (moved[a.large] - 1):.0f}% ({a.large} ops) between processes")
    if max(moved.values()) > UNSTEADY:
        print(f"warning: the host was unsteady (over {100 * (UNSTEADY - 1):.0f}%): the ratios of "
              f"this run are not a measurement of the code; run again when it is quiet")
    if a.check and over:
        sys.exit(1)


if __name__ == "__main__":
    main()
