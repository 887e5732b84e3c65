"""A sandbox on a free port per test, and the contract bot connected to it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sandbox.driver import Driver
from sandbox.server import Sandbox
from sandbox.testing import connected_bot, running_sandbox
from tests.sandbox.contract_bot import ContractBot


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with running_sandbox() as started:
        yield started


@pytest.fixture
async def bot(sandbox: Sandbox) -> AsyncIterator[ContractBot]:
    async with connected_bot(sandbox, ContractBot()) as client:
        yield client


@pytest.fixture
def driver(sandbox: Sandbox) -> Driver:
    return sandbox.driver
