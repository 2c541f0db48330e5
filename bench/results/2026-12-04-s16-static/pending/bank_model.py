#!/usr/bin/env python3
"""Shared-memory wavefronts of a transpose tile's straddling writer (kiln_tile_store with
KILN_ROWS_STRADDLING in codegen/device/kiln_transpose.cuh): each warp's 8-byte loads of chunk halves,
under main's layout and under the half swap of pending/transpose_half_swap.patch.

    python3 bank_model.py
    bf16 120x64: main 4.00 wavefronts a load (worst 4), half swap 2.00 (worst 2)
    f32 60x64: ...

An 8-byte load is served a half-warp at a time; a half-warp takes as many wavefronts as the most
distinct 4-byte words any one bank must deliver. Two suffice for a warp.
"""


def wavefronts(addresses):
    total = 0
    for half in (addresses[:16], addresses[16:]):
        words_by_bank = {}
        for a in half:
            if a is None:
                continue
            for word in (a // 4, a // 4 + 1):
                words_by_bank.setdefault(word % 32, set()).add(word)
        total += max((len(w) for w in words_by_bank.values()), default=0)
    return total


def model(v, element_bytes, tile_rows, tile_cols, threads, half_swap):
    """v: elements a chunk (kV); the tile's kTileR x kTileC; the block's threads."""
    chunks = tile_cols // v
    swizzle = min(chunks, 8) - 1
    micro_rows = tile_rows // v
    slots = 1
    while slots < micro_rows:
        slots *= 2

    def chunk(r, k):
        return (r * tile_cols + (k ^ (r // v & swizzle)) * v) * element_bytes

    counts = []
    for warp in range(threads // 32):
        for h in (0, 1):
            for j in range(v):
                for below in (0, 1):
                    addresses = []
                    for lane in range(32):
                        m = warp * 32 + lane
                        p, mc = m % slots + 1, m // slots
                        if p > micro_rows or mc >= chunks:
                            addresses.append(None)
                            continue
                        r = (p - 1 + below) * v + j
                        swapped = (r // v >> 3) & 1 if half_swap else 0
                        addresses.append(chunk(r, mc) + (h ^ swapped) * 8)
                    counts.append(wavefronts(addresses))
    return sum(counts) / len(counts), max(counts)


# The tiles kiln plans for the sweep's straddling transposes ([4093,8191] and [64,333,777]).
for name, v, element_bytes, rows, cols, threads in (("bf16 120x64", 8, 2, 120, 64, 128),
                                                   ("f32 60x64", 4, 4, 60, 64, 256)):
    main_mean, main_worst = model(v, element_bytes, rows, cols, threads, False)
    swap_mean, swap_worst = model(v, element_bytes, rows, cols, threads, True)
    print(f"{name}: main {main_mean:.2f} wavefronts a load (worst {main_worst}), "
          f"half swap {swap_mean:.2f} (worst {swap_worst})")
