"""Live configurations of the test shop for A/B experiments: each is a change to the built catalogue,
applied to an instance's own copy of the database before it starts. `control` is the catalogue as built.
Price changes are factors, so each variant means the same in either catalogue (pounds or euros).

    price_factors: {sku: times its price}   stock: {sku: units in stock}   price_factor: every price times this
    css: a stylesheet added to every page (a look people see that a reading of the page's text does not)
"""

VARIANTS = {
    "control": {},
    # every price 25% lower (a sitewide sale, without a banner: only the prices change)
    "sale": {"price_factor": "0.75"},
    # the best-rated backpack, out of stock in the control, back in stock
    "restocked": {"stock": {"BPK-07": 9}},
    # one product dearer: the merino socks 50% dearer (£27.75 instead of £18.50; 32,85 € instead of 21,90 €)
    "socks_dearer": {"price_factors": {"SCK-03": "1.5"}},
    # the trail running shoes at three times their price (£239.97 instead of £79.99; 284,85 € instead of 94,95 €):
    # the main product of their own page, for an A/B started there
    "shoes_x3": {"price_factors": {"TRL-01": "3"}},
    # only the look: the shop's primary and add-to-basket buttons in red instead of Oscar's blue and green
    "red_buttons": {"css": ".btn-primary, .btn-success { background-color: #b0302a; border-color: #b0302a; }"},
}
