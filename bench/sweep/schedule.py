"""How the sweep spends its time budget: the order cases run in, how many fit in the time left, and
where the seconds went. Standard library only, so that it is tested on any machine.

    ordered = round_robin(select(all_cases(), pattern="^softmax_", done=set(), max_cases=None))
    model = CostModel()                           # seconds per case, learnt as cases finish
    n = chunk_size(ordered, model, seconds_left=400.0, jobs=14, most=140)
    model.add("time", case_bytes(case), 0.8)
    clock = PhaseClock()
    with clock.phase("kiln run"):
        ...
    print("\\n".join(clock.lines()))

The order is a round robin over the classes: every class advances at the same fraction of its
cases, and within a class the cases go in bit-reversed index order, which spreads any prefix over
the class's dtypes and sizes. So a run that the budget cuts short still covers every class.
"""

from __future__ import annotations

import collections
import contextlib
import re
import time

# Seconds per case before any case of the run has been measured: the warm phase's torch.compile
# from cold plus kiln's NVRTC compile, and the timing phase's kiln process plus its host-side
# handling of the tensors (about 3 s per GB of inputs: decoded to doubles, encoded, uploaded twice).
DEFAULT_COST = {"warm": (4.0, 0.0), "time": (0.6, 3.0e-9)}


def case_bytes(case) -> int:
    """The bytes of all of a case's inputs: what its host-side handling scales with."""
    total = 0
    for shape in case.inputs.values():
        n = 1
        for d in shape:
            n *= d
        total += n
    return total * {"f32": 4, "bf16": 2, "f16": 2}[case.dtype]


def select(cases, pattern: str | None, done: set[str], max_cases: int | None, only: set[str] | None = None) -> list:
    """The cases to run, in round-robin order: those matching `pattern` (and named in `only`, when
    given), less those in `done`, at most `max_cases` of them."""
    chosen = [c for c in cases if (not pattern or re.search(pattern, c.name)) and c.name not in done
              and (only is None or c.name in only)]
    ordered = round_robin(chosen)
    return ordered if max_cases is None else ordered[:max_cases]


def _bit_reversed(n: int) -> list[int]:
    bits = max(1, (n - 1).bit_length())
    return sorted(range(n), key=lambda i: int(format(i, f"0{bits}b")[::-1], 2))


def round_robin(cases) -> list:
    """`cases` reordered so that every prefix holds about the same fraction of every class, and
    within a class is spread over the class's order (cases.py goes dtype by dtype)."""
    by_class: dict[str, list] = collections.OrderedDict()
    for case in cases:
        by_class.setdefault(case.cls, []).append(case)
    keyed = []
    for class_index, members in enumerate(by_class.values()):
        for rank, index in enumerate(_bit_reversed(len(members))):
            keyed.append((rank / len(members), class_index, members[index]))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return [case for _, _, case in keyed]


class CostModel:
    """Seconds a case takes in one phase ("warm" or "time"), as fixed + per_byte * bytes, fitted
    by least squares to the cases measured so far (DEFAULT_COST before two sizes are known)."""

    def __init__(self, defaults=None):
        self._defaults = dict(DEFAULT_COST if defaults is None else defaults)
        self._seen: dict[str, list[tuple[int, float]]] = collections.defaultdict(list)

    def add(self, phase: str, nbytes: int, seconds: float) -> None:
        self._seen[phase].append((nbytes, seconds))

    def coefficients(self, phase: str) -> tuple[float, float]:
        seen = self._seen[phase]
        if not seen:
            return self._defaults[phase]
        n = len(seen)
        mean_x = sum(x for x, _ in seen) / n
        mean_y = sum(y for _, y in seen) / n
        var = sum((x - mean_x) ** 2 for x, _ in seen)
        if var == 0:
            _, per_byte = self._defaults[phase]
            return max(0.0, mean_y - per_byte * mean_x), per_byte
        per_byte = max(0.0, sum((x - mean_x) * (y - mean_y) for x, y in seen) / var)
        return max(0.0, mean_y - per_byte * mean_x), per_byte

    def predict(self, phase: str, nbytes: int) -> float:
        fixed, per_byte = self.coefficients(phase)
        return fixed + per_byte * nbytes


def chunk_size(pending, model: CostModel, seconds_left: float, jobs: int, most: int) -> int:
    """How many of `pending` (a prefix, at most `most`) to warm with `jobs` workers and then time,
    so that the prediction of both ends within `seconds_left`. The warm phase is predicted to take
    the larger of its work spread over the workers and its longest case."""
    warm_sum = warm_max = time_sum = 0.0
    count = 0
    for case in pending[:most]:
        nbytes = case_bytes(case)
        warm = model.predict("warm", nbytes)
        next_sum, next_max = warm_sum + warm, max(warm_max, warm)
        next_time = time_sum + model.predict("time", nbytes)
        if max(next_sum / max(jobs, 1), next_max) + next_time > seconds_left:
            break
        warm_sum, warm_max, time_sum = next_sum, next_max, next_time
        count += 1
    return count


class PhaseClock:
    """Wall seconds per named phase, summed over the run, in the order phases first ran."""

    def __init__(self, now=time.monotonic):
        self._now = now
        self.seconds: dict[str, float] = collections.OrderedDict()

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    @contextlib.contextmanager
    def phase(self, name: str):
        start = self._now()
        try:
            yield
        finally:
            self.add(name, self._now() - start)

    def lines(self, total: float | None = None) -> list[str]:
        """One line per phase: seconds and, given the run's total, its share of it."""
        width = max((len(n) for n in self.seconds), default=0)
        out = []
        for name, seconds in self.seconds.items():
            share = f"  {100 * seconds / total:5.1f}%" if total else ""
            out.append(f"  {name:<{width}}  {seconds:8.1f} s{share}")
        return out
