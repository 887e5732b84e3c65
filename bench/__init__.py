"""Benchmarks that drive the bot through the sandbox (run from the repository root; not shipped)."""
