"""A small stock list (the sample `scripts/run.sh` completes in: line 29, after "return ")."""

import json
from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    quantity: int


def load_items(path):
    with open(path) as f:
        return [Item(**row) for row in json.load(f)]


def total_quantity(items):
    return sum(item.quantity for item in items)


def total_value(items):
    return sum(item.price * item.quantity for item in items)


def items_below(items, limit):
    """The items with fewer than `limit` left in stock."""
    return 


def main():
    items = load_items("inventory.json")
    print(f"{len(items)} items, {total_quantity(items)} in stock, worth {total_value(items):.2f}")


if __name__ == "__main__":
    main()
