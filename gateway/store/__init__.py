"""Redis has one home: this package. Nothing outside it imports ``redis``."""
