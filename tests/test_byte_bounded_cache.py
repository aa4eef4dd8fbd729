"""The page cache is bounded in bytes as well as entries: distinct large pages no longer pile up (64 pages of
1.5 MB once held ~300 MB for good); the same page still comes back as the same object."""

from __future__ import annotations

from agent.byte_bounded_cache import byte_bounded_cache
from agent.page.read_page import PAGE_CACHE_BYTES, _read_page_cached, observe_page
from agent.sample_pages import sample_page


def test_entries_go_least_recently_used_first_when_over_the_bytes():
    calls = []

    @byte_bounded_cache(max_entries=10, max_bytes=100, size_of=lambda args, value: len(value))
    def read(key: str) -> str:
        calls.append(key)
        return key * 40

    read("a"), read("b")  # 80 bytes
    read("a")  # a hit, and now the most recent
    read("c")  # 120 bytes: b, the least recently used, goes
    assert read.cache_info() == {"entries": 2, "bytes": 80}
    read("a"), read("c"), read("b")
    assert calls == ["a", "b", "c", "b"]
    read("z" * 3)  # 120 bytes alone: over the whole budget, returned but never kept
    assert read.cache_info()["bytes"] <= 100 and calls.count("zzz") == 1 and read("zzz") and calls.count("zzz") == 2


def test_entries_are_bounded_in_number_too():
    @byte_bounded_cache(max_entries=3, max_bytes=10**9, size_of=lambda args, value: 1)
    def read(key: int) -> int:
        return key

    for key in range(10):
        read(key)
    assert read.cache_info() == {"entries": 3, "bytes": 3}


def test_distinct_large_pages_stay_within_the_byte_budget():
    _read_page_cached.cache_clear()
    html = sample_page("product_page.html")
    padding = "<!--" + "x" * 1_800_000 + "-->"
    for i in range(12):  # ~7 MB charged each: 84 MB, were they all kept
        page = html.replace("</body>", f"{padding}<p>page {i}</p></body>")
        first = observe_page(page, url="https://www.amazon.com/dp/B0EXAMPLE")
        assert observe_page(page, url="https://www.amazon.com/dp/B0EXAMPLE") is first
    held = _read_page_cached.cache_info()
    assert 0 < held["bytes"] <= PAGE_CACHE_BYTES and held["entries"] < 12
