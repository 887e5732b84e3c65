"""The bot gives the C heap's free pages back to the system."""

from __future__ import annotations

import asyncio

import pytest

from bot import heap


def resident_kb() -> int:
    """Read this process's resident memory (VmRSS)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@pytest.mark.skipif(heap._MALLOC_TRIM is None, reason="the C library has no malloc_trim")
def test_free_pages_between_live_blocks_go_back_to_the_system() -> None:
    # 40 MB of C heap blocks (bytes over 512 bytes come from malloc), every tenth kept: the
    # heap cannot shrink from its top, so what was freed stays resident until a trim.
    blocks = [bytes(4000) + bytes([n % 256]) for n in range(10_000)]
    kept = blocks[::10]
    del blocks
    before = resident_kb()
    assert heap.trim()
    assert before - resident_kb() > 20_000
    assert len(kept) == 1_000


async def test_the_trimmer_trims_every_few_seconds_until_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trims: list[int] = []
    monkeypatch.setattr(heap, "_MALLOC_TRIM", trims.append)
    trimmer = heap.HeapTrimmer(every=0.01)
    trimmer.start()
    async with asyncio.timeout(5):  # a busy machine may run the timer late, not never
        while len(trims) < 3:
            await asyncio.sleep(0.01)
    trimmer.stop()
    done = len(trims)
    await asyncio.sleep(0.05)
    assert 3 <= done == len(trims)
