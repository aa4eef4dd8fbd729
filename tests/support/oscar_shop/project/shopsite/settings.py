"""Settings of the test shop, written from Oscar's "Building your own shop" guide (Oscar's sandbox is not on
PyPI): Oscar's defaults, its apps, middleware and context processors, Haystack's simple search backend, SQLite,
guest checkout. Paths come from the environment so one install serves several shop instances at once.
"""

import os
from pathlib import Path

from oscar.defaults import *  # noqa: F403 - Oscar's documented way to start from its defaults

STATE = Path(os.environ.get("OSCAR_SHOP_STATE", Path(__file__).resolve().parents[1] / "state"))
BASE_DIR = Path(__file__).resolve().parent

SECRET_KEY = "twinsim-test-shop-not-secret"  # a loopback test shop; nothing here is private
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "django.contrib.flatpages",
    "oscar.config.Shop",
    "oscar.apps.analytics.apps.AnalyticsConfig",
    "oscar.apps.checkout.apps.CheckoutConfig",
    "oscar.apps.address.apps.AddressConfig",
    "oscar.apps.shipping.apps.ShippingConfig",
    "oscar.apps.catalogue.apps.CatalogueConfig",
    "oscar.apps.catalogue.reviews.apps.CatalogueReviewsConfig",
    "oscar.apps.communication.apps.CommunicationConfig",
    "oscar.apps.partner.apps.PartnerConfig",
    "oscar.apps.basket.apps.BasketConfig",
    "oscar.apps.payment.apps.PaymentConfig",
    "oscar.apps.offer.apps.OfferConfig",
    "oscar.apps.order.apps.OrderConfig",
    "oscar.apps.customer.apps.CustomerConfig",
    "oscar.apps.search.apps.SearchConfig",
    "oscar.apps.voucher.apps.VoucherConfig",
    "oscar.apps.wishlists.apps.WishlistsConfig",
    "oscar.apps.dashboard.apps.DashboardConfig",
    "oscar.apps.dashboard.reports.apps.ReportsDashboardConfig",
    "oscar.apps.dashboard.users.apps.UsersDashboardConfig",
    "oscar.apps.dashboard.orders.apps.OrdersDashboardConfig",
    "oscar.apps.dashboard.catalogue.apps.CatalogueDashboardConfig",
    "oscar.apps.dashboard.offers.apps.OffersDashboardConfig",
    "oscar.apps.dashboard.partners.apps.PartnersDashboardConfig",
    "oscar.apps.dashboard.pages.apps.PagesDashboardConfig",
    "oscar.apps.dashboard.ranges.apps.RangesDashboardConfig",
    "oscar.apps.dashboard.reviews.apps.ReviewsDashboardConfig",
    "oscar.apps.dashboard.vouchers.apps.VouchersDashboardConfig",
    "oscar.apps.dashboard.communications.apps.CommunicationsDashboardConfig",
    "oscar.apps.dashboard.shipping.apps.ShippingDashboardConfig",
    # third-party apps Oscar depends on
    "widget_tweaks",
    "haystack",
    "treebeard",
    "sorl.thumbnail",
    "django_tables2",
    # the catalogue builder and variant switch (management commands)
    "shopsite",
]
SITE_ID = 1

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "oscar.apps.basket.middleware.BasketMiddleware",
    "django.contrib.flatpages.middleware.FlatpageFallbackMiddleware",
]

AUTHENTICATION_BACKENDS = (
    "oscar.apps.customer.auth_backends.EmailBackend",
    "django.contrib.auth.backends.ModelBackend",
)

ROOT_URLCONF = "shopsite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],  # the shop's own pages first (its payment step), then Oscar's
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.template.context_processors.i18n",
                "django.contrib.messages.context_processors.messages",
                "oscar.apps.search.context_processors.search_form",
                "oscar.apps.checkout.context_processors.checkout",
                "oscar.apps.communication.notifications.context_processors.notifications",
                "oscar.core.context_processors.metadata",
                "shopsite.context_processors.variant_css",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("OSCAR_SHOP_DB", str(STATE / "shop.sqlite3")),
        "ATOMIC_REQUESTS": True,
        # Two twins at once may write (baskets, Oscar's view counters) at the same moment. IMMEDIATE takes the write
        # lock when a request's transaction starts, so the second waits (up to `timeout` s) instead of failing with
        # "database is locked" when its read transaction cannot be upgraded (SQLite does not wait for that).
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

# Oscar 4 lists its catalogue through Haystack, which the simple backend cannot do (no filters, no facets);
# Whoosh is the pure-Python engine Oscar's own test suite uses.
HAYSTACK_CONNECTIONS = {
    "default": {"ENGINE": "haystack.backends.whoosh_backend.WhooshEngine", "PATH": str(STATE / "whoosh_index")},
}

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = str(STATE / "static")
MEDIA_URL = "/media/"
MEDIA_ROOT = str(STATE / "media")

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

OSCAR_SHOP_NAME = "Oscar Outfitters"
OSCAR_SHOP_TAGLINE = "twinsim's test shop (django-oscar)"
# A shop in pounds; the same project serves its euro catalogue when started with OSCAR_SHOP_CURRENCY=EUR (the
# instance's prices are then the euro price list: apply_variant --currency). Oscar formats every amount with Babel
# in the locale given here per currency: "£1,299.00" in pounds, "1.299,00 €" in euros (German style).
OSCAR_DEFAULT_CURRENCY = os.environ.get("OSCAR_SHOP_CURRENCY", "GBP")
OSCAR_CURRENCY_FORMAT = {"GBP": {"locale": "en_GB"}, "EUR": {"locale": "de_DE"}}
OSCAR_ALLOW_ANON_CHECKOUT = True
OSCAR_INITIAL_ORDER_STATUS = "Pending"
OSCAR_INITIAL_LINE_STATUS = "Pending"
OSCAR_ORDER_STATUS_PIPELINE = {
    "Pending": ("Being processed", "Cancelled"),
    "Being processed": ("Processed", "Cancelled"),
    "Cancelled": (),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
