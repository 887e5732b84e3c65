-- 0003: make a running game survive a restart or a crash.
-- PostgreSQL's mirror of migrations/0003_running_tables.sql. The state stays TEXT (not JSONB):
-- a row that is not valid JSON must still be stored, to be set aside as unreadable.

CREATE TABLE running_tables (
    table_id    TEXT    PRIMARY KEY,
    guild_id    BIGINT  NOT NULL,
    channel_id  BIGINT  NOT NULL,
    state       TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);

CREATE INDEX running_tables_by_guild ON running_tables (guild_id);
