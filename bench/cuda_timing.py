"""Device time of a callable: the median of repetitions, each between its own pair of CUDA events,
after warm-up calls (METHOD: events, not host clocks; the median, not the mean).

    from cuda_timing import median_us
    us = median_us(lambda: a @ b, reps=50)
"""

from __future__ import annotations

import statistics

import torch


def median_us(fn, reps: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3)
    return statistics.median(times)
