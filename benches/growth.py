#!/usr/bin/env python3
"""Growth of each pass's time from a small to a large generated model (the goal:
100k ops at most 11x the time of 10k ops, for every standard pass).

Method (benches/README.md): `passlab gen` writes each model once; then small and large
`passlab bench --json` processes alternate, PAIRS times, so both sizes see the same moments of
a shared host; each process reports the median of its runs; the ratio of a pass is the median
over the pairs of large/small. The last lines say how far one pass's time moved between
processes of the same size (only the host moves it) and warn when that alone could carry a
ratio over the limit. Each model also gets a `(read-only walk)` row: `passlab bench --walk`,
one walk reading every node of the same typed module in the same processes, the floor under
any pass that must read every node (what the memory system alone makes of the larger model).
Python's standard library only.

    python3 benches/growth.py                        # all three models, every standard pass
    python3 benches/growth.py --model conv --pass FuseOps --pairs 9
    python3 benches/growth.py --check                # exit 1 when a ratio is over --limit
    python3 benches/growth.py --cold                 # diagnostic: caches flushed before each run
    python3 benches/growth.py --instructions --check # the work's growth (valgrind), host-independent
    python3 benches/growth.py --instructions --cache-sim  # and simulated cache misses per run

With --instructions, each pass runs under valgrind's callgrind instead of the clock: the
instructions a run executes are the same on any host at any moment, so their growth is the
code's alone (a time ratio is also the host's: how much of the L3 it leaves). Only the timed
runs are counted (`--toggle-collect` on passlab's `bench::timed_run`, the function each timed
run goes through), RUNS of them a process after one untimed warm-up: parsing, typing and
dropping the results are left out, as from the times (counting whole processes instead and
subtracting would not do: allocator work that moves between the first run and the later ones
with the heap's layout can make such a difference 4x too small). --cache-sim adds callgrind's simulated L1-data and last-level misses per run,
with the machine's own last-level cache (or --ll-kb).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

STANDARD = [
    "InferType", "FoldConstant", "DeadCodeElimination", "EliminateCommonSubexpr",
    "ToANormalForm", "ToGraphNormalForm", "SimplifyInference", "CanonicalizeOps", "FuseOps",
    "FoldScaleAxis", "ConvertLayout", "AlterOpLayout", "LambdaLift", "SimplifyExpr",
    "FastMath", "CombineParallelConv2D", "CombineParallelDense", "CombineParallelBatchMatmul",
    "DynamicToStatic",
]

# Between-process movement of one pass's time above which a run is reported as unsteady: the
# goal leaves 10% between linear growth and the limit, so a run whose times moved by more than
# twice that cannot tell one from the other (on a busy shared host, runs whose pair ratios
# spanned 5-25x had times that moved by a median of 87-97%).
UNSTEADY = 1.25

# Timed runs of a pass counted in one process (--instructions), after passlab bench's warm-up.
RUNS = 2

# The function every timed run of `passlab bench` goes through (src/cli/bench.rs); callgrind
# counts only inside it.
TIMED_RUN = "passlab::cli::bench::timed_run*"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="target/release/passlab", help="the passlab binary")
    ap.add_argument("--model", action="append", choices=MODELS + SHAPES,
                    help=f"generated model (repeatable; default {', '.join(MODELS)})")
    ap.add_argument("--pass", dest="passes", action="append", help="pass (default: all 19)")
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
    ap.add_argument("--untyped", action="store_true",
                    help="time the passes on the module as generated, not typed first "
                         "(passlab bench --untyped): a pass that needs types types each "
                         "function itself")
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions per run under valgrind instead of timing: the "
                         "growth of the work, the same on any host")
    ap.add_argument("--cache-sim", action="store_true",
                    help="with --instructions: also simulated L1-data and last-level misses")
    ap.add_argument("--ll-kb", type=int,
                    help="simulated last-level cache in KiB (default: this machine's)")
    a = ap.parse_args()
    if not os.path.exists(a.bin):
        sys.exit(f"error: no binary at {a.bin} (cargo build --release, or pass --bin)")
    passes = a.passes or STANDARD
    if a.ll_kb:
        a.cache_sim = True
    if a.cache_sim:
        a.instructions = True
    if a.instructions:
        return count_growth(a, passes)
    over, over_best = [], []
    host_before = host_cache(a.bin)
    # Per pass and size: the largest over the smallest of its per-process medians (the same
    # binary on the same model: only the host moves it).
    spreads = {a.small: [], a.large: []}
    with tempfile.TemporaryDirectory(prefix="passlab-growth-") as tmp:
        for model in a.model or MODELS:
            files = write_models(a, tmp, model)
            # `walk` (passlab bench --walk): a read-only walk over every node of the same typed
            # module, timed in the same processes: the floor under a pass that must read every
            # node, i.e. what the memory system alone makes of the larger model.
            timed = passes + [WALK]
            times = {(p, s): [] for p in timed for s in (a.small, a.large)}
            fastest = {(p, s): [] for p in timed for s in (a.small, a.large)}
            for _ in range(a.pairs):
                for size, runs in ((a.small, a.runs_small), (a.large, a.runs_large)):
                    cmd = [a.bin, "bench", files[size], "--runs", str(runs), "--json", "--walk"]
                    if a.cold:
                        cmd.append("--cold")
                    if a.untyped:
                        cmd.append("--untyped")
                    for p in passes:
                        cmd += bench_args(p)
                    out = subprocess.run(cmd, capture_output=True, text=True)
                    if out.returncode != 0:
                        sys.exit(f"error: {' '.join(cmd)}\n{out.stderr}")
                    report = json.loads(out.stdout)
                    for p in timed:
                        times[(p, size)].append(report[p + "_s"])
                        fastest[(p, size)].append(report[p + "_min_s"])
            print(f"{model}: {a.small} -> {a.large} ops, {a.pairs} pairs "
                  f"(median of pair ratios, range; then the fastest run's ratio)"
                  f"{', caches flushed before each run' if a.cold else ''}")
            for p in timed:
                small, large = times[(p, a.small)], times[(p, a.large)]
                walked = statistics.median(small) >= NO_WALK_S
                if walked and p != WALK:
                    # A pass that found nothing to do without walking the module takes a
                    # microsecond or two (or a few: ToGraphNormalForm strips a chain of unused
                    # lets, one node a let), whose spread says nothing of the host's steadiness.
                    spreads[a.small].append(max(small) / min(small))
                    spreads[a.large].append(max(large) / min(large))
                ratios = [b / s for s, b in zip(small, large)]
                r = statistics.median(ratios)
                # The fastest run of each size over all its processes: the least the host added
                # (an interruption only slows a run), so the ratio the code gets in the host's
                # calmest moments. Reported beside the goal's median, not instead of it.
                best = min(fastest[(p, a.large)]) / min(fastest[(p, a.small)])
                flag = ""
                if p == WALK:
                    label, note = "(read-only walk)", "  (the floor of a pass that reads every node; not a pass)"
                else:
                    label = p
                    note = "" if walked else "  (no walk of the module: microseconds at both sizes)"
                    if best > a.limit:
                        over_best.append(f"{model} {p}")
                    if r > a.limit:
                        flag = f"  over {a.limit:g}x"
                        over.append(f"{model} {p}")
                print(f"  {label:24} {statistics.median(small) * 1e3:9.3f} ms {statistics.median(large) * 1e3:9.3f} ms"
                      f"  {r:5.2f}x ({min(ratios):.2f}-{max(ratios):.2f})  fastest {best:5.2f}x{flag}{note}",
                      flush=True)
    total = len(passes) * len(a.model or MODELS)
    print(f"{total - len(over)} of {total} at or under {a.limit:g}x "
          f"({total - len(over_best)} of {total} by the fastest runs)")
    # A ratio is only as steady as the host: report how far the same pass's time moved between
    # processes of this run, and say so when that alone could carry a ratio over the limit.
    # (No pass that walks the module, as on tiny models: nothing says how steady the host was.)
    moved = {size: statistics.median(v) if v else 1.0 for size, v in spreads.items()}
    if all(spreads.values()):
        print(f"steadiness: one pass's time moved by a median of {100 * (moved[a.small] - 1):.0f}% "
              f"({a.small} ops) and {100 * (moved[a.large] - 1):.0f}% ({a.large} ops) between "
              f"processes")
    # How much cache the host left a process, before and after: a 100k model's module does not
    # fit a few MiB, a 10k model's does, and that alone can carry a ratio over the limit.
    host_after = host_cache(a.bin)
    if host_before is not None and host_after is not None:
        print(f"host: random reads were served from cache up to {host_before >> 10} KiB before "
              f"the runs and {host_after >> 10} KiB after (passlab host)")
    # What the memory system alone makes of 10x the work: a read-only walk over synthetic
    # nodes laid out in walk order, at about a 10k model's node count and ten times it.
    probe = host_json(a.bin, "--max-mib", "1", "--growth")
    if probe is not None and "walk_growth" in probe:
        g = probe["walk_growth"]
        sizes = sorted(g["ratio"], key=int)
        print(f"host: a read-only walk over {g['nodes']} -> {10 * g['nodes']} synthetic nodes grew "
              + " / ".join(f"{g['ratio'][k]:.2f}x" for k in sizes)
              + f" ({' / '.join(sizes)}-byte nodes; passlab host --growth): linear is 10x")
    if max(moved.values()) > UNSTEADY:
        print(f"warning: the host was unsteady (over {100 * (UNSTEADY - 1):.0f}%): the ratios of "
              f"this run are not a measurement of the code; run again when it is quiet")
    if a.check and over:
        sys.exit(1)


def write_models(a, tmp, model):
    """`model` at both sizes, written by `passlab gen` into `tmp`: {size: path}."""
    files = {}
    for size in (a.small, a.large):
        files[size] = os.path.join(tmp, f"{model}_{size}.relay")
        cmd = [a.bin, "gen", model, str(size), "-o", files[size]]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"error: {' '.join(cmd)}\n{out.stderr}")
    return files


def host_cache(binary):
    """`passlab host`'s cached working set in bytes, or None if the binary has no such command."""
    out = host_json(binary, "--max-mib", "64")
    return None if out is None else out["cached_bytes"]


def host_json(binary, *args):
    """`passlab host --json ARGS` as a dict, or None if the binary does not take them."""
    out = subprocess.run([binary, "host", "--json", *args], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def last_level_cache():
    """(size in bytes, ways) of this machine's last-level cache, from sysfs; or None."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    best = None
    try:
        for idx in os.listdir(base):
            d = os.path.join(base, idx)
            with open(os.path.join(d, "level")) as f:
                level = int(f.read())
            with open(os.path.join(d, "type")) as f:
                if f.read().strip() == "Instruction":
                    continue
            with open(os.path.join(d, "size")) as f:
                size = f.read().strip()
            with open(os.path.join(d, "ways_of_associativity")) as f:
                ways = int(f.read())
            size = int(size[:-1]) * 1024 if size.endswith("K") else int(size)
            if best is None or level > best[0]:
                best = (level, size, ways)
    except (OSError, ValueError):
        return None
    return best[1:] if best else None


def callgrind(a, ll, file, p):
    """callgrind's counts inside the timed runs of one `passlab bench` process, per run:
    {"I": .., "D1": .., "LLd": ..}."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           "--collect-atstart=no", f"--toggle-collect={TIMED_RUN}"]
    if a.cache_sim:
        # The LL size must be a power of two times ways times 64-byte lines.
        cmd += ["--cache-sim=yes", f"--LL={ll[0]},{ll[1]},64"]
    cmd += [a.bin, "bench", file, *bench_args(p), "--runs", str(RUNS), "--json"]
    if a.untyped:
        cmd.append("--untyped")
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)}\n{out.stderr}")
    counts = {}
    printed = json.loads(out.stdout).get("printed_bytes")
    if printed:
        counts["bytes"] = printed
    for key, label in (("I", r"I\s+refs"), ("D1", r"D1\s+misses"), ("LLd", r"LLd\s+misses")):
        m = re.search(label + r":\s+([\d,]+)", out.stderr)
        if m:
            counts[key] = int(m.group(1).replace(",", ""))
    if "I" not in counts:
        sys.exit(f"error: no instruction count from {' '.join(cmd)}\n{out.stderr}")
    if counts["I"] == 0:
        sys.exit(f"error: nothing counted inside {TIMED_RUN}: {a.bin} is older than this script "
                 f"or was built without symbols")
    return {k: v if k == "bytes" else v / RUNS for k, v in counts.items()}


def bench_args(p):
    """`passlab bench`'s arguments that time `p`: a registered pass, or one of TEXT_STEPS."""
    return [f"--{p}"] if p in TEXT_STEPS else ["--pass", p]


# The generated models (`passlab gen`) measured by default: the TVM peer's model, conv blocks,
# an unrolled LSTM.
MODELS = ["peer", "conv", "rnn"]
# Shapes that make a direct algorithm quadratic (`--model` only; CI checks their instructions): a
# running sum of recurrent states (FuseOps' post-dominators), nested ifs (ToANormalForm's
# scopes), a call chain of globals (every pass that looked functions up by name), nested
# closures (LambdaLift's free variables and names), nested tuples (InferType's type comparisons),
# chains of inlined globals (InlineGlobals' copies of inlined globals, its removals and its
# search for inlinable globals), nested function literals (InferType reading each literal's
# whole return type), a function of many parameters (the parser's duplicate-name check).
SHAPES = ["sum", "ifs", "globals", "closures", "tuples", "inline", "fns", "params"]

# Steps measured like passes (`--pass parse`, `--pass print`): reading the file's text and
# printing the typed module. Printed text can grow faster than its module (indentation grows
# with nesting depth), so `print`'s ratio is of instructions per byte printed, scaled to the
# sizes' ratio: linear in its output is the goal.
TEXT_STEPS = ["parse", "print"]

# `passlab bench --walk`'s key: the read-only walk timed beside the passes.
WALK = "walk"

# A pass faster than this at the small size found nothing to do without walking the module
# (at most a let chain's spine, a node a let).
NO_WALK_S = 20e-6

# Instructions per op at the large size under which a pass is taken to do no work per op.
FLAT = 1.0


def count_growth(a, passes):
    """--instructions: each pass's instructions (and simulated misses) per run at both sizes."""
    if not shutil.which("valgrind"):
        sys.exit("error: --instructions needs valgrind (Debian: apt-get install valgrind)")
    ll = None
    if a.cache_sim:
        machine = last_level_cache() or (32 << 20, 16)
        ll = (a.ll_kb * 1024, 16) if a.ll_kb else machine
    over = []
    workers = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="passlab-growth-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for model in a.model or MODELS:
            files = write_models(a, tmp, model)
            jobs = {(p, size): pool.submit(callgrind, a, ll, files[size], p)
                    for p in passes for size in (a.small, a.large)}
            sim = f", simulated last level {ll[0] >> 10} KiB {ll[1]}-way" if ll else ""
            print(f"{model}: {a.small} -> {a.large} ops, per run (valgrind --tool=callgrind"
                  f"{sim}; instructions in millions)")
            for p in passes:
                per = {size: jobs[(p, size)].result() for size in (a.small, a.large)}
                small, large = per[a.small]["I"], per[a.large]["I"]
                if large < FLAT * a.large:
                    # Under one instruction per op at the large size: the pass did no work per
                    # op (it found nothing to do without walking: a few thousand instructions
                    # at either size), and a ratio of two such counts says nothing of growth.
                    flag = ""
                    line = (f"  {p:24} {small / 1e3:7.1f} k   {large / 1e3:7.1f} k    "
                            f"no work per op")
                else:
                    r = large / small if small > 0 else float("inf")
                    per_byte = ""
                    if "bytes" in per[a.small] and "bytes" in per[a.large]:
                        b_small, b_large = per[a.small]["bytes"], per[a.large]["bytes"]
                        r = r * b_small / b_large * a.large / a.small
                        per_byte = (f"  (per byte printed, {b_small / 1e6:.1f} -> "
                                    f"{b_large / 1e6:.1f} MB)")
                    flag = f"  over {a.limit:g}x" if r > a.limit else ""
                    line = (f"  {p:24} {small / 1e6:9.2f} M {large / 1e6:9.2f} M  {r:5.2f}x"
                            f"{per_byte}")
                if flag:
                    over.append(f"{model} {p}")
                if ll:
                    d1 = [per[s]["D1"] for s in (a.small, a.large)]
                    lld = [per[s]["LLd"] for s in (a.small, a.large)]
                    line += (f"   L1d misses {d1[0] / 1e3:8.1f} k {d1[1] / 1e3:9.1f} k"
                             f"   LL misses {lld[0] / 1e3:7.1f} k {lld[1] / 1e3:8.1f} k")
                print(line + flag, flush=True)
    total = len(passes) * len(a.model or MODELS)
    print(f"{total - len(over)} of {total} at or under {a.limit:g}x in instructions per run")
    if a.check and over:
        sys.exit(1)


if __name__ == "__main__":
    main()
