"""Products found with the right price on every listing and cart page of the corpus (corpus/pages, sources and
licenses in corpus/manifest.json), against the products the team listed by reading each raw page; and the page type
read for every corpus page beside the kind the team gave it (a listing, cart or checkout read as a product page is
the error that counts: the twin would weigh one product where the page shows many, or none).

A listed product is found when some product the twin reads on the page has its title (the same words, or one title
the start of the other, case and spacing aside) and its price (as a decimal, in the same currency). Pages are read as
the API reads raw HTML, with the page's own URL where the manifest records one.

    .venv/bin/python benchmarks/listing_facts.py
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal

from _common import REPO, write_result

from agent.page.facts_model import PageFacts
from agent.page.observation import Observation
from agent.page.read_page import observe_page

CORPUS = REPO / "corpus"
KINDS = ("search_results", "category", "cart")


def _words(title: str) -> str:
    return " ".join(title.casefold().split())


def _same_title(read: str, listed: str) -> bool:
    a, b = _words(read), _words(listed)
    return bool(a and b) and (a == b or (len(a) >= 8 and b.startswith(a)) or (len(b) >= 8 and a.startswith(b)))


def read_page(entry: dict) -> Observation:
    """The page as the API reads raw HTML, at its own URL where the manifest records one."""
    raw = (CORPUS / entry["file"]).read_text(encoding="utf-8")
    url = entry.get("source", {}).get("url")
    return observe_page(raw, url=url, simplified=False, max_bytes=20_000_000)


def score_page(entry: dict, facts: PageFacts) -> dict:
    listed = [p for p in entry["ground_truth"].get("products", []) if p.get("price") is not None]
    found, missed = 0, []
    for product in listed:
        want = Decimal(product["price"])
        if any(
            _same_title(p.title, product["title"])
            and p.price is not None
            and Decimal(f"{p.price:.2f}") == want
            and p.currency in (product.get("currency"), None)
            for p in facts.products
        ):
            found += 1
        else:
            missed.append(product["title"][:60])
    return {
        "file": entry["file"],
        "kind": entry["kind"],
        "currency": entry["ground_truth"].get("currency"),
        "listed_with_price": len(listed),
        "found_with_price": found,
        "products_read": len(facts.products),
        "page_currency_read": facts.currency,
        "missed": missed[:10],
    }


def page_types(read: list[tuple[str, str]]) -> dict:
    """kind -> page type read -> pages, from (kind, page type read) per page; and how many pages that are not
    product pages were read as one."""
    by_kind: dict[str, Counter] = {}
    for kind, page_type in read:
        by_kind.setdefault(kind, Counter())[page_type] += 1
    others = [page_type for kind, page_type in read if kind != "product"]
    return {
        "by_kind": {kind: dict(counts) for kind, counts in sorted(by_kind.items())},
        "not_product_pages": len(others),
        "not_product_read_as_product": others.count("product"),
    }


def main() -> None:
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    observed = [(entry, read_page(entry)) for entry in manifest]  # each page read once, for both measures
    pages = [
        score_page(entry, observation.facts)
        for entry, observation in observed
        if entry["kind"] in KINDS and entry["ground_truth"].get("products")
    ]
    listed = sum(p["listed_with_price"] for p in pages)
    found = sum(p["found_with_price"] for p in pages)
    write_result(
        "listing_facts",
        {
            "pages": len(pages),
            "listed_with_price": listed,
            "found_with_price": found,
            "share_found": round(found / listed, 3) if listed else None,
            "per_page": pages,
            "page_types": page_types([(entry["kind"], observation.page_type) for entry, observation in observed]),
        },
    )


if __name__ == "__main__":
    main()
