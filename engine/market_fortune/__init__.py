"""Market Fortune: the financial strategy card game (docs/market-fortune.md)."""
