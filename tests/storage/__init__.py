"""Tests of the storage dialects, DATABASE_URL and python -m bot.migrate."""
