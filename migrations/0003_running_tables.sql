-- 0003: make a running game survive a restart or a crash.
-- Each running table's full state (engine JSON, seats, message ids, timer deadlines) is one
-- JSON document, rewritten after every action in the same transaction as anything else the
-- action changed; the bot restores every row at start.

CREATE TABLE running_tables (
    table_id    TEXT    PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    state       TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);

CREATE INDEX running_tables_by_guild ON running_tables (guild_id);
