-- 0007: a server can turn the pictures of the table and the hands off (text stays either way).

ALTER TABLE guild_settings ADD COLUMN pictures INTEGER NOT NULL DEFAULT 1 CHECK (pictures IN (0, 1));
