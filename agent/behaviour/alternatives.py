"""Which of the other products on a product page are alternatives to the one in view: those whose titles share a
word that can say what kind of product it is ("MÖCKELBY Table - oak" and "SKOGSTA Dining table"), not the
accessories and add-ons a shop shows beside it ("IKEA 365+ Carafe", "Resealable bag").

Why: the product in view is held against the page's other prices (agent/behaviour/page_terms.py). On amazon.com
the products beside it are mostly similar items, but many shops fill a product page with what goes with it, and a
£450 table held against £3 boxes reads as four times too dear. Words, not a model: a title's words are in the
shop's own language, and the rule is the same on every shop.
"""

from __future__ import annotations

import re

from agent.page.facts_model import ProductFacts

_WORD = re.compile(r"[^\W\d_]{3,}")
_FOR = re.compile(r"\b(?:for|für|pour|para|per|voor|för|til)\b")  # "Rack for kitchen island": what it goes with
# Words of three letters or more that say nothing of what a product is: articles, prepositions, conjunctions, pack
# words ("7-tlg": seven pieces) and colours in the languages of the shops in the data (English, German, French,
# Spanish, Italian, Portuguese). "STORJORM Mirror cabinet - white" is not an alternative to every white thing.
NOT_A_KIND = frozenset(
    """the and for with from new set pack piece pcs tlg teilig von und mit für der die das den dem les des une pour
    avec sur dans los las del con por para una della per com uma dos
    white black grey gray red blue green yellow pink brown beige silver gold multicolour multicolor colour color
    weiß weiss schwarz grau rot blau grün gelb rosa braun silber bunt farbe
    blanc noir gris rouge bleu vert jaune rose marron argent couleur
    blanco negro rojo azul verde amarillo marrón plata dorado
    bianco nero grigio rosso blu giallo marrone argento
    branco preto cinza vermelho amarelo prata""".split()  # noqa: SIM905 - a word list reads best as words
)
MIN_ALTERNATIVES = 2  # a median needs two


def kind_words(title: str) -> frozenset[str]:
    """The words of a title that can say what kind of product it is: letters only, three or more, a plural s cut;
    not the first word (most often the brand or the product line: "VADHOLMA Rack" and "VADHOLMA Kitchen island"
    are not alternatives) nor what follows "for" ("Rack for kitchen island" is a rack, not a kitchen island)."""
    kind = _FOR.split(title.casefold(), maxsplit=1)[0]
    words = [w for w in _WORD.findall(kind)[1:] if w not in NOT_A_KIND]  # before the s is cut: "weiss", "colours"
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words) - NOT_A_KIND


def alternatives(product: ProductFacts, others: list[ProductFacts]) -> list[ProductFacts]:
    """The `others` of the same kind as `product`, when there are at least MIN_ALTERNATIVES of them. Else:
    - none, when its title says its kind and no other product shares it: the page shows what goes with it (a £50
      rack beside £1.50 hooks) or titles the twin cannot match (an English title among Arabic ones), so nothing on
      it is a price to hold it against;
    - all of `others`, as before, when its title says no kind or one other product is of its kind (the page shows
      alternatives, but too few for a median of their own)."""
    kinds = kind_words(product.title or "")
    alike = [p for p in others if kinds & kind_words(p.title or "")] if kinds else []
    if len(alike) >= MIN_ALTERNATIVES:
        return alike
    return [] if kinds and not alike else others
