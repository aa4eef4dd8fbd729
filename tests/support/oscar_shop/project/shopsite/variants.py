"""Live configurations of the test shop for A/B experiments: each is a change to the built catalogue,
applied to an instance's own copy of the database before it starts. `control` is the catalogue as built.

    prices: {sku: new price}      stock: {sku: units in stock}      price_factor: every price times this
    css: a stylesheet added to every page (a look people see that a reading of the page's text does not)
"""

VARIANTS = {
    "control": {},
    # every price 25% lower (a sitewide sale, without a banner: only the prices change)
    "sale": {"price_factor": "0.75"},
    # the best-rated backpack, out of stock in the control, back in stock
    "restocked": {"stock": {"BPK-07": 9}},
    # one product dearer: the merino socks at $27.75 instead of $18.50 (50% more)
    "socks_dearer": {"prices": {"SCK-03": "27.75"}},
    # only the look: the shop's primary and add-to-basket buttons in red instead of Oscar's blue and green
    "red_buttons": {"css": ".btn-primary, .btn-success { background-color: #b0302a; border-color: #b0302a; }"},
}
