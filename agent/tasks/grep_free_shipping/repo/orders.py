"""Orders: the lines a customer checks out, and what they pay."""

from catalog import price
from shipping import shipping_cost


def subtotal(lines):
    """The price of ``lines``, (sku, quantity) pairs, in cents."""
    return sum(price(sku) * quantity for sku, quantity in lines)


def order_total(lines):
    """What the customer pays for ``lines``, shipping included, in cents."""
    amount = subtotal(lines)
    return amount + shipping_cost(amount)
