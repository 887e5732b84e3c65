-- 0002: let each server's moderators keep their own house rules and table settings.
-- PostgreSQL's mirror of migrations/0002_guild_settings.sql.

CREATE TABLE guild_settings (
    guild_id              BIGINT  PRIMARY KEY,
    preset                TEXT    NOT NULL,
    overrides             TEXT    NOT NULL,
    turn_seconds          INTEGER NOT NULL,
    idle_turns            INTEGER NOT NULL,
    host_may_pick_preset  INTEGER NOT NULL CHECK (host_may_pick_preset IN (0, 1)),
    updated_at            TEXT    NOT NULL
);
