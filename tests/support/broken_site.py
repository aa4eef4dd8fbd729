"""A tiny site that fails on purpose, for the live-simulation failure tests.

/dead-links   every link leads to a page that answers 404
/vanishing    a client-side app: the first pointer movement navigates it (history.pushState) to a
              new view, so the element the twin chose is gone by the time the click lands
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

DEAD_LINKS = """<!doctype html><html><head><title>Old deals</title></head><body>
<main><h1>Old deals</h1>
<a href="/gone/1">Blue kettle deal</a> <a href="/gone/2">Red toaster deal</a> <a href="/gone/3">Green mug deal</a>
</main></body></html>"""

VANISHING = """<!doctype html><html><head><title>Flash sale</title></head><body>
<main id="app"><h1>Flash sale</h1>
<button id="a">Add blue kettle to cart</button> <button id="b">Add red toaster to cart</button>
<button id="c">Add green mug to cart</button>
</main>
<script>
  document.addEventListener('pointermove', () => {
    history.pushState({}, '', '/vanishing/sold-out');
    document.getElementById('app').innerHTML = '<h1>Sold out</h1><p>The sale has ended.</p><a \
href="/vanishing">Back</a>';
  }, {once: true});
</script>
</body></html>"""


def create_broken_site() -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/dead-links", response_class=HTMLResponse)
    async def dead_links() -> str:
        return DEAD_LINKS

    @app.get("/vanishing", response_class=HTMLResponse)
    async def vanishing() -> str:
        return VANISHING

    return app
