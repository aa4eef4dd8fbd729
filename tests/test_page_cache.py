"""A page is parsed once per content and URL: the same Observation object comes back, so the embedded brain's
per-page index (keyed by that object) is reused; refusals still name the caller's field and are not cached."""

from __future__ import annotations

import pytest

from agent.page.read_page import PageRefused, observe_page
from agent.sample_pages import sample_page


def test_the_same_page_is_read_once():
    html = sample_page("product_page.html")
    first = observe_page(html, url="https://www.amazon.com/dp/B0EXAMPLE")
    again = observe_page((html + " ")[:-1], url="https://www.amazon.com/dp/B0EXAMPLE")
    assert again is first  # an equal string, not the same object: the key is the content
    elsewhere = observe_page(html, url="https://www.amazon.com/s?k=lamp")
    assert elsewhere is not first and elsewhere.url == "https://www.amazon.com/s?k=lamp"
    edited = observe_page(
        html.replace("</body>", "<p>one more line</p></body>"), url="https://www.amazon.com/dp/B0EXAMPLE"
    )
    assert edited is not first


def test_refusals_name_the_callers_field_every_time():
    html = "<html><body>" + "<p>x</p>" * 50 + "</body></html>"
    for label in ("page.html", "variant B"):
        with pytest.raises(PageRefused, match=f"^{label} is over 100 bytes"):
            observe_page(html, label=label, max_bytes=100)
    assert observe_page(html, max_bytes=10_000).url is None  # within the limit, the same page is read
