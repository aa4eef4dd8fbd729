"""Reading a page, on any shop: raw HTML -> simplified HTML (simplifier/) -> candidates and facts (parse.py,
facts.py), with page types, click types and the limits that keep parsing cheap. Nothing here knows of brains,
experiments or HTTP; everything that reads a page comes here."""
