"""Where the compile caches live: one directory shared by the warm workers and the timing process,
so that what the workers compile (kiln's kernels, Inductor's graphs, Triton's kernels) is found on
disk by the timing process.

    os.environ.update(cache_env(pathlib.Path("/tmp/kiln-sweep-cache"), os.environ))

Set before torch is imported and before the workers start: Inductor reads these once. The FX
graph cache and the AOTAutograd cache (both keyed by the graph, the inputs' shapes, strides and
dtypes, the config and the torch/Triton versions and the GPU) are what make a torch.compile in a
new process a cache hit; one compile thread keeps each worker from starting a pool of its own (the
workers are the parallelism, and the settings must be the same in every process for the keys to
agree).
"""

from __future__ import annotations

import pathlib


def cache_env(root: pathlib.Path, environ) -> dict[str, str]:
    """The variables to set: the directories under `root` unless `environ` already names them,
    and the cache switches always."""
    env = {}
    for name, sub in (("KILN_CACHE_DIR", "kiln"), ("TORCHINDUCTOR_CACHE_DIR", "inductor"),
                      ("TRITON_CACHE_DIR", "triton")):
        env[name] = environ.get(name) or str(root / sub)
    env.update({"TORCHINDUCTOR_FX_GRAPH_CACHE": "1", "TORCHINDUCTOR_AUTOGRAD_CACHE": "1",
                "TORCHINDUCTOR_COMPILE_THREADS": "1"})
    return env
