"""A local stand-in for Discord's API that the real discord.py talks to."""
