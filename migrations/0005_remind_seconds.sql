-- 0005: a server chooses how long a player may think before the channel reminds them.
-- One reminder a turn, after this many seconds (it is deleted when the turn passes); a value
-- not below the turn time means no reminder at all.

ALTER TABLE guild_settings ADD COLUMN remind_seconds INTEGER NOT NULL DEFAULT 30;
