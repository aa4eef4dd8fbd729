"""A live configuration's stylesheet (variants.py `css`, written by apply_variant into the instance's folder),
for oscar/layout.html to add to every page. Read once: an instance's variant does not change while it runs."""

from functools import lru_cache

from django.conf import settings


@lru_cache(maxsize=1)
def _stylesheet() -> str:
    try:
        return (settings.STATE / "variant.css").read_text()
    except OSError:
        return ""


def variant_css(request):
    return {"variant_css": _stylesheet()}
