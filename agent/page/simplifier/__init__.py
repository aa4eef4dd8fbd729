"""Raw shop HTML -> OPeRA-style simplified HTML with dotted semantic `name`s, which the twins read.

Users test their own sites, not OPeRA's recorded pages (Wang et al. 2025, arXiv 2506.05606,
CC-BY-4.0). A page is matched to a declarative recipe (Amazon search results, product detail, cart;
by URL and landmarks) that reproduces OPeRA's names; any other page goes through the generic
fallback, which names every interactive element by its landmark or section and a slug of its text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser

from agent.page.click_types import infer_click_type
from agent.page.elements import text_items
from agent.page.page_types import PageType, Shown, classify_page, shows_checkout_steps
from agent.page.shape import DEFAULT_PAGE_LIMITS, PageShapeLimits, check_page_shape
from agent.page.simplifier.amazon_recipes import AMAZON_RECIPES
from agent.page.simplifier.dom import clean, text_of
from agent.page.simplifier.generic import simplify_generic
from agent.page.simplifier.product_meta import product_meta_part
from agent.page.simplifier.recipes import (
    Recipe,
    RecipeRun,
    apply_recipe,
    detect_recipe,
    page_title,
)
from agent.page.simplifier.slug import slugify
from agent.page.simplifier.source_map import SourceMap
from agent.page.structured_data import read_declared

RECIPES: tuple[Recipe, ...] = AMAZON_RECIPES
_CHECKOUT = re.compile(r"check_?out|proceed|kasse|commander|afrekenen|place_order|pay")


@dataclass(frozen=True, slots=True)
class SimplifiedPage:
    """The simplified page and how it was made."""

    html: str  # OPeRA-style simplified HTML
    recipe: str  # recipe name, or "generic"
    page_type: str  # search_results / product / cart / checkout / home / other
    names: list[str]  # the semantic names produced, in document order, all unique
    sources: dict[str, str] = field(default_factory=dict)  # name -> `source_attribute` value of its raw element


def simplify_html(
    raw_html: str,
    url: str | None = None,
    recipes: tuple[Recipe, ...] = RECIPES,
    source_attribute: str | None = None,
    limits: PageShapeLimits = DEFAULT_PAGE_LIMITS,
) -> SimplifiedPage:
    """Simplify a raw page. Broken HTML is parsed leniently; an empty page gives an empty body.

    With `source_attribute`, `sources` maps each name to that attribute's value on the raw element it
    was made from (a live browser marks its DOM this way to click what a twin names). A page beyond `limits`
    (depth, elements) raises PageTooComplex before it is parsed: parsing time grows with depth x elements.
    """
    if not isinstance(raw_html, str):
        raise TypeError(f"raw_html must be a str, got {type(raw_html).__name__}")
    check_page_shape(raw_html, limits)
    tree = LexborHTMLParser(raw_html)
    declared = read_declared(raw_html, url, tree)
    declared_part = product_meta_part(declared)
    clean(tree)
    sources = SourceMap(source_attribute)
    recipe = detect_recipe(tree, url, recipes)
    if recipe is None:
        run = simplify_generic(tree, sources=sources)
        title = _title(tree)
        return SimplifiedPage(
            _document(title, [*run.parts, declared_part]),
            "generic",
            _page_type(tree, url, run.names.in_order, declared.page_type, title),
            run.names.in_order,
            sources.by_name,
        )

    result = apply_recipe(tree, recipe, RecipeRun(sources=sources))
    title = page_title(tree, recipe) or _title(tree)
    parts = result.parts
    page_type: str = recipe.page_type
    if recipe.generic_rest:
        for root in reversed(result.roots):
            root.decompose()
        parts = parts + simplify_generic(tree, result.names, result.used, sources).parts
        page_type = _page_type(tree, url, result.names.in_order, declared.page_type, title)
    return SimplifiedPage(
        _document(title, [*parts, declared_part]), recipe.name, page_type, result.names.in_order, sources.by_name
    )


def simplify(raw_html: str, url: str | None = None, limits: PageShapeLimits = DEFAULT_PAGE_LIMITS) -> str:
    """Just the simplified HTML."""
    return simplify_html(raw_html, url, limits=limits).html


def _page_type(tree: LexborHTMLParser, url: str | None, names: list[str], declared: str | None, title: str) -> PageType:
    """The twin's rule (agent/page/page_types.py), with what the raw page shows, read only where the address, the
    title and the declarations leave the page as "other": one add-to-cart button under a heading is one product,
    several are a list; a checkout's steps among its text, a checkout. (A form that asks where to deliver and how to
    pay is read by the twin, from the page's fields as it names them.)"""
    kind = classify_page(url, names, declared, title=title)
    if kind != "other":
        return kind
    slugs = (
        (slugify(text), text) for n in tree.css("button, input[type=submit], a[role=button]") if (text := text_of(n))
    )
    adds = sum(
        infer_click_type(slug, "button", text) == "purchase" and not _CHECKOUT.search(slug) for slug, text in slugs
    )
    shown = Shown(
        one_product=adds == 1 and tree.css_first("h1") is not None,
        listed=adds if adds > 1 else 0,
        checkout=shows_checkout_steps(text_items(tree.body)),
    )
    return classify_page(url, names, declared, shown, title)


def _title(tree: LexborHTMLParser) -> str:
    for selector in ("title", "h1"):
        node = tree.css_first(selector)
        if node is not None and (text := text_of(node)):
            return text
    return ""


def _document(title: str, parts: list[str]) -> str:
    head = f"<title>{html.escape(title, quote=False)}</title>" if title else ""
    return f"<html><head>{head}</head><body>{''.join(parts)}</body></html>"


__all__ = ["RECIPES", "SimplifiedPage", "simplify", "simplify_html"]
