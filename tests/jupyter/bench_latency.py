"""Latency benchmark (not a test): median and p95 of execute round trips over 200 executions,
for the passlab kernel and for ipykernel on the same machine. Two numbers per kernel: until the
execute_reply arrives on shell, and until the `idle` status arrives on iopub (when a notebook
considers the cell done). Run it with `tests/jupyter/run.sh --bench`."""
from __future__ import annotations

import statistics
import sys
import time

from jupyter_client.manager import start_new_kernel

N = 200
WARMUP = 20
CELLS = {"passlab": "x = 1", "python3": "x = 1"}


def measure(kernel_name: str, code: str) -> tuple[list[float], list[float]]:
    km, kc = start_new_kernel(kernel_name=kernel_name)
    time.sleep(1)  # let the start-up traffic settle
    try:
        replies, idles = [], []
        for i in range(WARMUP + N):
            t0 = time.perf_counter()
            msg_id = kc.execute(code)
            reply = kc.get_shell_msg(timeout=30)
            while reply["parent_header"].get("msg_id") != msg_id:  # a late kernel_info_reply
                reply = kc.get_shell_msg(timeout=30)
            t_reply = time.perf_counter()
            assert reply["content"]["status"] == "ok", reply["content"]
            while True:
                msg = kc.get_iopub_msg(timeout=30)
                if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                        and msg["content"]["execution_state"] == "idle"):
                    break
            t_idle = time.perf_counter()
            if i >= WARMUP:
                replies.append((t_reply - t0) * 1e3)
                idles.append((t_idle - t0) * 1e3)
        return replies, idles
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def p95(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=20)[-1]


def main() -> int:
    print(f"{N} executions after {WARMUP} warm-up, times in ms")
    print(f"{'kernel':10} {'reply median':>13} {'reply p95':>10} {'idle median':>12} {'idle p95':>9}")
    for name, code in CELLS.items():
        replies, idles = measure(name, code)
        print(f"{name:10} {statistics.median(replies):13.3f} {p95(replies):10.3f} "
              f"{statistics.median(idles):12.3f} {p95(idles):9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
