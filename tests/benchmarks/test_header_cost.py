"""``benchmarks.header_cost`` times requests that are really read and answered."""

from __future__ import annotations

import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from benchmarks.header_cost import CASES, round_of
from server.http.header_deadline import HeaderDeadlineProtocol


@pytest.mark.parametrize("protocol_class", [HttpToolsProtocol, HeaderDeadlineProtocol])
@pytest.mark.parametrize("case", list(CASES))
async def test_every_request_of_a_round_is_answered(
    protocol_class: type[HttpToolsProtocol], case: str
) -> None:
    request, read = CASES[case]
    assert await round_of(protocol_class, request, read, 5) > 0


async def test_a_round_whose_requests_go_unanswered_is_refused() -> None:
    with pytest.raises(RuntimeError, match="0 answers to 2 requests"):
        await round_of(HeaderDeadlineProtocol, b"GET / HTTP/1.1\r\nHost: x\r\n", 64, 2)
