"""The message catalogs: `bot.pot` and `<lang>/LC_MESSAGES/bot.po`, read by `bot.i18n`.

`make messages` extracts the template with `bot.locale.extract` and updates the catalogs.
"""
