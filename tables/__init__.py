"""The table core: lobbies, seats, games, timers and computer seats, without Discord or words.

Typed intents go in (`TableService.submit`), outcomes come out: the engine's events, notices
as codes with parameters, and a snapshot to render. Refusals are `TableError(code, **params)`.
Nothing here imports discord or the translation function (tests/test_packages.py keeps it so).
"""
