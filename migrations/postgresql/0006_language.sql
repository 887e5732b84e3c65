-- 0006: a server chooses the language of its tables' messages; `auto` follows the server's own
-- language in Discord. PostgreSQL's mirror of migrations/0006_language.sql.

ALTER TABLE guild_settings ADD COLUMN language TEXT NOT NULL DEFAULT 'auto';
