-- 0005: a server chooses how long a player may think before the channel reminds them.
-- PostgreSQL's mirror of migrations/0005_remind_seconds.sql.

ALTER TABLE guild_settings ADD COLUMN remind_seconds INTEGER NOT NULL DEFAULT 30;
