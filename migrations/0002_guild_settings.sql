-- 0002: let each server's moderators keep their own house rules and table settings.
-- The options changed from the preset are kept as JSON, so options the engine adds later
-- need no migration; the table settings are columns because the bot reads them directly.

CREATE TABLE guild_settings (
    guild_id              INTEGER PRIMARY KEY,
    preset                TEXT    NOT NULL,
    overrides             TEXT    NOT NULL,
    turn_seconds          INTEGER NOT NULL,
    idle_turns            INTEGER NOT NULL,
    host_may_pick_preset  INTEGER NOT NULL CHECK (host_may_pick_preset IN (0, 1)),
    updated_at            TEXT    NOT NULL
);
