"""What delivery costs."""

FLAT_RATE = 495  # cents
FREE_SHIPPING_OVER = 50000  # cents: orders of at least this much ship free


def shipping_cost(subtotal):
    """Shipping for an order of ``subtotal`` cents."""
    return 0 if subtotal >= FREE_SHIPPING_OVER else FLAT_RATE
