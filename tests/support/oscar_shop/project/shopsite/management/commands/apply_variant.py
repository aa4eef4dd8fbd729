"""`manage.py apply_variant NAME`: change this instance's catalogue to the live configuration NAME
(variants.py) and re-index it, so listings, product pages and search show the same prices and stock; a variant's
stylesheet is left in the instance's folder for every page to include."""

from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from oscar.core.loading import get_model

from shopsite.variants import VARIANTS

StockRecord = get_model("partner", "StockRecord")


class Command(BaseCommand):
    help = "Apply a named live configuration (shopsite/variants.py) to this instance's catalogue."

    def add_arguments(self, parser):
        parser.add_argument("name")

    def handle(self, *args, name, **options):
        if name not in VARIANTS:
            raise CommandError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
        change = VARIANTS[name]
        if "css" in change:  # served on every page by shopsite.context_processors.variant_css
            (settings.STATE / "variant.css").write_text(change["css"])
        if not change.keys() - {"css"}:
            return
        with transaction.atomic():
            factor = Decimal(change.get("price_factor", "1"))
            for record in StockRecord.objects.all():
                price = Decimal(change.get("prices", {}).get(record.partner_sku, record.price)) * factor
                record.price = price.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
                record.num_in_stock = change.get("stock", {}).get(record.partner_sku, record.num_in_stock)
                record.save()
        call_command("rebuild_index", "--noinput", verbosity=0)
