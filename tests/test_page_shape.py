"""Pages are bounded by shape as well as bytes: nesting depth and element count, checked before any parser runs.

Parsing time grows with elements x depth (benchmarks/page_shape.py), so a 2 MB page of nested `<div>`s kept a
core busy for minutes. The deep-page test runs in a subprocess with a hard timeout: a regression fails, not hangs.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.page.shape import PageShapeLimits, PageTooComplex, check_page_shape
from service.api.app import create_app
from service.settings import Settings
from tests.conftest import PAGES, REPO


def nested(depth: int, tag: str = "div") -> str:
    return "<html><body>" + f"<{tag}>" * depth + "x" + f"</{tag}>" * depth + "</body></html>"


def test_a_two_megabyte_page_of_nested_divs_is_refused_quickly():
    """The page from the report (399,000 nested divs, under the byte limit) took over 10 minutes to parse."""
    script = textwrap.dedent("""
        from agent.page.simplifier import simplify
        from agent.page.parse import parse_page
        from agent.page.shape import check_page_shape
        from agent.page.read_page import PageRefused, observe_page
        page = "<div>" * 399_000
        for work in (lambda: simplify(page), lambda: parse_page(page)):
            try:
                work()
            except ValueError as error:  # PageTooComplex
                assert "TWINSIM_MAX_PAGE_DEPTH" in str(error), error
            else:
                raise SystemExit("accepted")
        check_page_shape("<a x" * 500_000)  # '<'s that no '>' ends are not rescanned, each to the end of the page
        try:
            observe_page(page, simplified=False, max_bytes=2_000_000)
        except PageRefused as error:
            assert "TWINSIM_MAX_PAGE_DEPTH" in str(error), error
        print("refused")
    """)
    try:
        done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("a deeply nested page still takes minutes: page handling is not bounded")
    assert done.returncode == 0 and done.stdout.strip() == "refused", done.stderr[-2000:]


def test_limits_count_depth_and_elements():
    limits = PageShapeLimits(max_depth=50, max_elements=1_000)
    check_page_shape(nested(47), limits)  # html, body and 47 divs: 49 deep
    with pytest.raises(PageTooComplex, match="50 deep"):
        check_page_shape(nested(49), limits)
    check_page_shape("<ul>" + "<li>item" * 990 + "</ul>", limits)  # an unclosed <li> ends at the next one
    with pytest.raises(PageTooComplex, match="1000 elements"):
        check_page_shape("<ul>" + "<li>item</li>" * 1_001 + "</ul>", limits)
    with pytest.raises(PageTooComplex):
        check_page_shape("<div/>" * 60, limits)  # in HTML <div/> opens a div
    check_page_shape("<svg>" + "<path/>" * 200 + "</svg>", limits)  # in SVG it does not
    check_page_shape("<script>" + "<div>" * 5_000 + "</script><p>ok</p>", limits)  # script text holds no tags


def test_formatting_elements_the_parser_reopens_stay_counted():
    """`<p><b><b>..</p>x` closes the b's, then the parser reopens them all around x: as deep as before."""
    unit = "<p>" + "".join(f'<b id="{i}">' for i in range(40)) + "</p>x"
    with pytest.raises(PageTooComplex):
        check_page_shape(unit * 10, PageShapeLimits(max_depth=100))


@pytest.mark.parametrize(
    "path",
    sorted((REPO / "tests" / "fixtures" / "raw_pages").glob("*.html")) + sorted(PAGES.glob("*.html")),
    ids=lambda p: p.name,
)
def test_real_shop_pages_pass_the_default_limits(path: Path):
    check_page_shape(path.read_text(errors="replace"))


SHARED_PRODUCT_PAGES = Path("/work/shared/data/product-pages/html")
CORPUS_PAGES = sorted((REPO / "corpus" / "pages").rglob("*.html")) + sorted(SHARED_PRODUCT_PAGES.glob("*.html.gz"))


@pytest.mark.parametrize("path", CORPUS_PAGES, ids=lambda p: p.name)
def test_every_corpus_and_product_page_passes_the_default_limits(path: Path):
    import gzip

    check_page_shape(
        gzip.decompress(path.read_bytes()).decode(errors="replace")
        if path.suffix == ".gz"
        else path.read_text(errors="replace")
    )


def many_attributes(n: int, tag: str = "div") -> str:
    return f"<{tag} " + " ".join(f"a{i}=x" for i in range(n)) + f">x</{tag}>"


def test_attributes_are_counted_per_element_and_in_all():
    check_page_shape(many_attributes(1_000))
    with pytest.raises(PageTooComplex, match="a <div> element has more than 1000 attributes"):
        check_page_shape(many_attributes(1_001))
    within = many_attributes(50) * 200  # 10,000 in all
    check_page_shape(within)
    with pytest.raises(PageTooComplex, match="more than 9999 attributes"):
        check_page_shape(within, PageShapeLimits(max_attributes=9_999))


@pytest.mark.parametrize("prefix", ["<!-- a comment -->", "<script>var x = 1;</script>", "<title>t</title>"])
def test_a_comment_or_script_first_does_not_end_the_check(prefix):
    """The end of a comment or raw-text element once became the search's bound, so nothing after it was counted."""
    with pytest.raises(PageTooComplex, match="attributes"):
        check_page_shape(prefix + many_attributes(5_000))
    with pytest.raises(PageTooComplex, match="deep"):
        check_page_shape(prefix + nested(300))


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(Settings(data_dir=tmp_path, max_page_depth=64, max_page_elements=2_000))) as test_client:
        yield test_client


@pytest.mark.parametrize("form", ["simplified_html", "html"])
def test_predict_refuses_pages_beyond_the_settings_with_413(client, form):
    deep = client.post("/predict", json={"persona_id": "nobody", "page": {form: nested(100)}})
    assert deep.status_code == 413 and "TWINSIM_MAX_PAGE_DEPTH" in deep.json()["detail"]
    wide = "<html><body>" + '<button name="b">Buy</button>' * 2_001 + "</body></html>"
    many = client.post("/predict", json={"persona_id": "nobody", "page": {form: wide}})
    assert many.status_code == 413 and "TWINSIM_MAX_PAGE_ELEMENTS" in many.json()["detail"]
    shallow = client.post("/predict", json={"persona_id": "nobody", "page": {form: nested(40)}})
    assert shallow.status_code == 404  # the page passed; the persona is what is missing


@pytest.mark.parametrize("form", ["simplified_html", "html"])
def test_predict_refuses_an_element_of_too_many_attributes_with_413(client, form):
    response = client.post(
        "/predict", json={"persona_id": "nobody", "page": {form: "<!---->" + many_attributes(20_000)}}
    )
    assert response.status_code == 413 and "TWINSIM_MAX_ELEMENT_ATTRIBUTES" in response.json()["detail"]


def test_experiment_pages_beyond_the_limits_are_422_naming_the_page(client):
    spec = {
        "name": "deep",
        "variants": [
            {"name": "A", "page": {"simplified_html": nested(100)}},
            {"name": "B", "page": {"simplified_html": nested(10)}},
        ],
    }
    response = client.post("/experiments", json=spec)
    assert response.status_code == 422 and "variant 'A' page 1" in response.text and "64 deep" in response.text


def test_predict_refuses_a_page_sent_twice(client):
    """Both forms at once used to ignore `html` silently."""
    response = client.post(
        "/predict", json={"persona_id": "nobody", "page": {"simplified_html": "<p>a</p>", "html": "<p>b</p>"}}
    )
    assert response.status_code == 422 and "not both" in response.text
