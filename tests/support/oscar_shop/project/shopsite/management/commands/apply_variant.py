"""`manage.py apply_variant NAME [--currency EUR]`: change this instance's catalogue to the live configuration
NAME (variants.py), in the given catalogue's currency (the built one is in pounds; another takes its price list
from catalogue_data.PRICE_LISTS), and re-index it, so listings, product pages and search show the same prices and
stock; a variant's stylesheet is left in the instance's folder for every page to include."""

from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from oscar.core.loading import get_model

from shopsite.catalogue_data import CURRENCIES, PRICE_LISTS
from shopsite.variants import VARIANTS

StockRecord = get_model("partner", "StockRecord")


class Command(BaseCommand):
    help = "Apply a named live configuration (shopsite/variants.py) to this instance's catalogue."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--currency", default=CURRENCIES[0], help=f"one of {', '.join(CURRENCIES)}")

    def handle(self, *args, name, currency, **options):
        if name not in VARIANTS:
            raise CommandError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
        if currency not in CURRENCIES:
            raise CommandError(f"unknown currency {currency!r}; the shop sells in: {', '.join(CURRENCIES)}")
        change = VARIANTS[name]
        if "css" in change:  # served on every page by shopsite.context_processors.variant_css
            (settings.STATE / "variant.css").write_text(change["css"])
        prices = PRICE_LISTS.get(currency, {})
        if not prices and not change.keys() - {"css"}:
            return
        with transaction.atomic():
            factor = Decimal(change.get("price_factor", "1"))
            for record in StockRecord.objects.all():
                sku = record.partner_sku
                price = _listed(record, prices) * factor * Decimal(change.get("price_factors", {}).get(sku, "1"))
                record.price = price.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
                record.price_currency = currency
                record.num_in_stock = change.get("stock", {}).get(sku, record.num_in_stock)
                record.save()
        call_command("rebuild_index", "--noinput", verbosity=0)


def _listed(record, prices: dict[str, str]) -> Decimal:
    """The record's price in the instance's price list (a size, TEE-04-S, has its product's price, TEE-04)."""
    if not prices:
        return record.price
    for sku in (record.partner_sku, record.partner_sku.rsplit("-", 1)[0]):
        if sku in prices:
            return Decimal(prices[sku])
    raise CommandError(f"no price for {record.partner_sku} in the price list")
