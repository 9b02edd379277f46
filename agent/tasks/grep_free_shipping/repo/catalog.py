"""The shop's products, prices in cents."""

PRODUCTS = {
    "mug": 1200,
    "teapot": 3900,
    "kettle": 6500,
    "tea-sampler": 2400,
}


def price(sku):
    """The price of one ``sku``, in cents."""
    return PRODUCTS[sku]
