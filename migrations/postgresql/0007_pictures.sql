-- 0007: a server can turn the pictures of the table and the hands off (text stays either way).
-- PostgreSQL's mirror of migrations/0007_pictures.sql.

ALTER TABLE guild_settings ADD COLUMN pictures INTEGER NOT NULL DEFAULT 1 CHECK (pictures IN (0, 1));
