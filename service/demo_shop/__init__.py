"""twinshop: the demo shop twinsim serves locally (`twinsim shop`), a real site for live simulations."""

from service.demo_shop.app import create_shop_app

__all__ = ["create_shop_app"]
