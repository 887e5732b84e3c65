"""The rules of Shithead: pure, synchronous, seeded."""
