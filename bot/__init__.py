"""The Discord shell around the Shithead engine."""
