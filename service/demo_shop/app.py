"""The demo shop: a small Amazon-like store served by the project, so simulations and tests have a real
site to browse offline (search, results, product pages with options and reviews, cart, checkout).

Markup follows Amazon's ids and classes (`#twotabsearchtextbox`, `s-search-result`, `#productTitle`,
`#add-to-cart-button`, `#sc-active-cart`, ...), so the simplifier's Amazon recipes give the pages OPeRA's
names (`nav_bar.search_input`, `search_results.<title>.product_name`, `buybox.purchase_form.add_to_cart`,
`active_item_list.<title>.delete`, `check_out`); the checkout page goes through the generic fallback.
"""

from __future__ import annotations

import html
import zlib
from pathlib import Path
from urllib.parse import parse_qs, urlencode

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from service.demo_shop import cart as carts
from service.demo_shop import variant as variants
from service.demo_shop.catalog import BY_ASIN, DEPARTMENTS, PRICE_BANDS, PRODUCTS, Product, search

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
TEMPLATES.env.globals["money"] = variants.money
MAX_FORM_BYTES = 16_384


def create_shop_app() -> FastAPI:
    app = FastAPI(title="twinshop (twinsim demo shop)", docs_url=None, redoc_url=None, openapi_url=None)

    def render(request: Request, template: str, status_code: int = 200, **context) -> HTMLResponse:
        variant, set_cookie = variants.variant_of(request)
        lines = carts.read_cart(request.cookies.get(carts.COOKIE))
        response = TEMPLATES.TemplateResponse(
            request,
            template,
            {
                "variant": variant,
                "cart_count": sum(line.quantity for line in lines),
                "price": lambda product: variants.price_of(product, variant),
                "departments": DEPARTMENTS,
                **context,
            },
            status_code=status_code,
        )
        if set_cookie:
            response.set_cookie(variants.COOKIE, variant, samesite="lax")
        return response

    async def form_of(request: Request) -> dict[str, str]:
        """URL-encoded form fields (first value each); no multipart dependency for four small forms."""
        body = (await request.body())[:MAX_FORM_BYTES].decode(errors="replace")
        return {key: values[0] for key, values in parse_qs(body).items()}

    def redirect(url: str, lines: list[carts.CartLine] | None = None) -> RedirectResponse:
        response = RedirectResponse(url, status_code=303)
        if lines is not None:
            response.set_cookie(carts.COOKIE, carts.write_cart(lines), samesite="lax")
        return response

    @app.get("/", response_class=HTMLResponse)
    async def home(request: Request):
        return render(request, "home.html", products=PRODUCTS[:6])

    @app.get("/s", response_class=HTMLResponse)
    async def search_results(request: Request, k: str = "", dept: str = "", band: str = ""):
        found = search(k)
        exact = bool(found)
        results = found or list(PRODUCTS)  # like Amazon: no exact match -> popular items instead
        if dept:
            results = [p for p in results if p.department == dept]
        variant, _ = variants.variant_of(request)
        for label, low, high in PRICE_BANDS:
            if band == label:
                results = [p for p in results if low <= variants.price_of(p, variant) < high]

        def refine(**extra):
            return "/s?" + urlencode({"k": k, **extra})

        return render(
            request,
            "search.html",
            query=k,
            results=results,
            exact=exact,
            refine=refine,
            bands=PRICE_BANDS,
            dept=dept,
            band=band,
        )

    @app.get("/dp/{asin}", response_class=HTMLResponse)
    async def product_page(request: Request, asin: str):
        product = BY_ASIN.get(asin)
        if product is None:
            return render(request, "not_found.html", status_code=404)
        chosen = chosen_options(product, dict(request.query_params))

        def option_url(dim, value):
            return f"/dp/{asin}?" + urlencode({**chosen, dim: value})

        return render(request, "product.html", product=product, chosen=chosen, option_url=option_url)

    @app.get("/product-reviews/{asin}", response_class=HTMLResponse)
    async def reviews_page(request: Request, asin: str, stars: int | None = None):
        product = BY_ASIN.get(asin)
        if product is None:
            return render(request, "not_found.html", status_code=404)
        shown = [r for r in product.reviews if stars is None or r.stars == stars]
        return render(request, "reviews.html", product=product, reviews=shown, stars=stars)

    @app.post("/cart/add")
    async def add_to_cart(request: Request):
        form = await form_of(request)
        product = BY_ASIN.get(form.get("asin", ""))
        if product is None:
            return render(request, "not_found.html", status_code=404)
        quantity = int(form["quantity"]) if form.get("quantity", "").isdigit() else 1
        lines = carts.add_line(
            carts.read_cart(request.cookies.get(carts.COOKIE)),
            product.asin,
            {dim: form.get(dim, "") for dim in product.options},
            quantity,
        )
        return redirect("/checkout" if "submit.buy-now" in form else "/gp/cart/view.html", lines)

    @app.get("/gp/cart/view.html", response_class=HTMLResponse)
    async def cart_page(request: Request):
        lines = carts.read_cart(request.cookies.get(carts.COOKIE))
        return render(request, "cart.html", lines=lines, **totals(request, lines))

    @app.post("/cart/update")
    async def update_cart(request: Request):
        form = await form_of(request)
        operation = "delete" if any(key.startswith("submit.delete") for key in form) else form.get("op", "")
        lines = carts.change_line(carts.read_cart(request.cookies.get(carts.COOKIE)), form.get("line", ""), operation)
        return redirect("/gp/cart/view.html", lines)

    @app.get("/checkout", response_class=HTMLResponse)
    async def checkout(request: Request):
        lines = carts.read_cart(request.cookies.get(carts.COOKIE))
        if not lines:
            return redirect("/gp/cart/view.html")
        return render(request, "checkout.html", lines=lines, **totals(request, lines))

    @app.post("/checkout/place-order")
    async def place_order(request: Request):
        cookie = request.cookies.get(carts.COOKIE) or ""
        if not carts.read_cart(cookie):
            return redirect("/gp/cart/view.html")
        order = 100_000 + zlib.crc32(cookie.encode()) % 900_000  # from the cart: the same run, the same number
        return redirect(f"/order-placed?order={order}", [])

    @app.get("/order-placed", response_class=HTMLResponse)
    async def order_placed(request: Request, order: int = 0):
        return render(request, "order_placed.html", order=order)

    @app.get("/img/{asin}.svg")
    async def image(asin: str):
        product = BY_ASIN.get(asin)
        colour = product.colour if product else "#bbbbbb"
        label = html.escape(product.brand if product else "?")
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="160" height="160"><rect width="160" height="160" '
            f'rx="12" fill="{colour}"/><text x="80" y="88" font-size="18" text-anchor="middle" fill="#fff" '
            f'font-family="sans-serif">{label}</text></svg>'
        )
        return Response(svg, media_type="image/svg+xml", headers={"cache-control": "max-age=3600"})

    @app.exception_handler(404)
    async def not_found(request: Request, exc):  # unknown paths: a real 404 page (dead links in tests)
        return render(request, "not_found.html", status_code=404)

    def totals(request: Request, lines: list[carts.CartLine]) -> dict:
        variant, _ = variants.variant_of(request)
        subtotal = sum(variants.price_of(line.product, variant) * line.quantity for line in lines)
        return {"subtotal": subtotal, "items": sum(line.quantity for line in lines)}

    return app


def chosen_options(product: Product, asked: dict[str, str]) -> dict[str, str]:
    """The option choices in the URL, each defaulting to the product's first choice."""
    return {dim: asked[dim] if asked.get(dim) in values else values[0] for dim, values in product.options.items()}


app = create_shop_app()
