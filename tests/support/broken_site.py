"""A tiny site that fails on purpose, for the live-simulation failure tests.

/dead-links   every link leads to a page that answers 404
/vanishing    a client-side app: the first pointer movement navigates it (history.pushState) to a
              new view, so the element the twin chose is gone by the time the click lands
/stalling     answers, but every link leads into /stalled/..., where the site has stopped answering (the request
              is held open, never answered while a test runs)
/unsettled    a page whose load never finishes: a picture it shows is requested from /stalled/
"""

from __future__ import annotations

import asyncio

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


STALLING = """<!doctype html><html><head><title>Deals</title></head><body>
<main><h1>Today's deals</h1>
<a href="/stalled/1">Blue kettle deal</a> <a href="/stalled/2">Red toaster deal</a>
<a href="/stalled/3">Green mug deal</a>
</main></body></html>"""

UNSETTLED = """<!doctype html><html><head><title>Gallery</title></head><body>
<main><h1>Gallery</h1><img src="/stalled/picture.png" alt="A kettle"><a href="/unsettled">Again</a></main>
</body></html>"""

STALL_S = 120  # longer than any test waits: the site has stopped answering


def create_broken_site() -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/dead-links", response_class=HTMLResponse)
    async def dead_links() -> str:
        return DEAD_LINKS

    @app.get("/vanishing", response_class=HTMLResponse)
    async def vanishing() -> str:
        return VANISHING

    @app.get("/stalling", response_class=HTMLResponse)
    async def stalling() -> str:
        return STALLING

    @app.get("/unsettled", response_class=HTMLResponse)
    async def unsettled() -> str:
        return UNSETTLED

    @app.get("/stalled/{anything}", response_class=HTMLResponse)
    async def stalled(anything: str) -> str:
        await asyncio.sleep(STALL_S)
        return "too late"

    return app
