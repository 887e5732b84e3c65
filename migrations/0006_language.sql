-- 0006: a server chooses the language of its tables' messages (the table message, the lobby,
-- the reminders); `auto` follows the server's own language in Discord. Private views and
-- answers always speak each member's own language.

ALTER TABLE guild_settings ADD COLUMN language TEXT NOT NULL DEFAULT 'auto';
