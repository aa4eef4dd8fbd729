"""`manage.py build_catalogue`: fills an empty, migrated database with the test shop's catalogue
(catalogue_data.py), a shipping country for guest checkout, and the site's domain. Run once per install."""

from decimal import Decimal

from django.contrib.sites.models import Site
from django.core.management.base import BaseCommand
from django.db import transaction
from oscar.core.loading import get_model

from shopsite import catalogue_data as data

Product = get_model("catalogue", "Product")
ProductClass = get_model("catalogue", "ProductClass")
ProductCategory = get_model("catalogue", "ProductCategory")
Category = get_model("catalogue", "Category")
Option = get_model("catalogue", "Option")
AttributeOptionGroup = get_model("catalogue", "AttributeOptionGroup")
AttributeOption = get_model("catalogue", "AttributeOption")
ProductReview = get_model("reviews", "ProductReview")
Partner = get_model("partner", "Partner")
StockRecord = get_model("partner", "StockRecord")
Country = get_model("address", "Country")


class Command(BaseCommand):
    help = "Build the test shop's catalogue (team-made test data)."

    @transaction.atomic
    def handle(self, *args, **options):
        if Product.objects.exists():
            self.stdout.write("catalogue already built")
            return
        Site.objects.update_or_create(pk=1, defaults={"domain": "127.0.0.1", "name": "Oscar Outfitters"})
        Country.objects.create(
            iso_3166_1_a2=data.COUNTRY[0],
            iso_3166_1_a3=data.COUNTRY[1],
            iso_3166_1_numeric=data.COUNTRY[2],
            printable_name=data.COUNTRY[3],
            name=data.COUNTRY[4],
            is_shipping_country=True,
        )
        goods = ProductClass.objects.create(name="Goods", requires_shipping=True, track_stock=True)
        partner = Partner.objects.create(name="Oscar Outfitters Warehouse")
        categories = {name: Category.add_root(name=name) for name in data.CATEGORIES}
        products = {}
        for sku, title, category, price, stock, description, reviews in data.PRODUCTS:
            product = Product.objects.create(product_class=goods, title=title, description=description)
            ProductCategory.objects.create(product=product, category=categories[category])
            StockRecord.objects.create(
                product=product,
                partner=partner,
                partner_sku=sku,
                price=Decimal(price),
                price_currency=data.CURRENCIES[0],
                num_in_stock=stock,
            )
            for score, review_title, body, name in reviews:
                ProductReview.objects.create(
                    product=product,
                    score=score,
                    title=review_title,
                    body=body,
                    name=name,
                    email=f"{name.lower()}@example.com",
                    status=ProductReview.APPROVED,
                )
            self._bulk_reviews(product, sku)
            product.update_rating()
            products[sku] = product
        self._tshirt(goods, partner, categories)
        self._colour_option(products)
        self.stdout.write(f"built {Product.objects.count()} products in {len(categories)} categories")

    def _bulk_reviews(self, product, sku):
        """`count` templated reviews whose scores average `stars` (a fixed pattern: the same on every build)."""
        count, stars = data.BULK_REVIEWS.get(sku, (0, 0))
        fives = round(count * (stars - 4))  # fives and fours average to `stars` when 4 <= stars <= 5
        scores = (
            [5] * fives + [4] * (count - fives)
            if stars >= 4
            else [4] * round(count * (stars - 3)) + [3] * (count - round(count * (stars - 3)))
        )
        ProductReview.objects.bulk_create(
            ProductReview(
                product=product,
                score=score,
                title=data.BULK_TEXTS[i % len(data.BULK_TEXTS)][0],
                body=data.BULK_TEXTS[i % len(data.BULK_TEXTS)][1],
                name=f"Customer {i + 1}",
                email=f"customer{i + 1}@example.com",
                status=ProductReview.APPROVED,
            )
            for i, score in enumerate(scores)
        )

    def _tshirt(self, goods, partner, categories):
        sku, title, category, price, description, sizes = data.TSHIRT
        parent = Product.objects.create(
            product_class=goods, title=title, description=description, structure=Product.PARENT
        )
        ProductCategory.objects.create(product=parent, category=categories[category])
        for size, stock in sizes:
            child = Product.objects.create(parent=parent, structure=Product.CHILD, title=f"{title}, size {size}")
            StockRecord.objects.create(
                product=child,
                partner=partner,
                partner_sku=f"{sku}-{size}",
                price=Decimal(price),
                price_currency=data.CURRENCIES[0],
                num_in_stock=stock,
            )

    def _colour_option(self, products):
        name, values, skus = data.COLOUR_OPTION
        group = AttributeOptionGroup.objects.create(name=name)
        for value in values:
            AttributeOption.objects.create(group=group, option=value)
        option = Option.objects.create(name=name, type=Option.SELECT, option_group=group, required=False)
        for sku in skus:
            products[sku].product_options.add(option)
