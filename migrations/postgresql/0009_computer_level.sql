-- 0009: a computer player's seat keeps its level (`basic`, `expert`), the identity its rating
-- moves (`computer:<level>`), instead of the rating reading it back out of the recorded name.
-- PostgreSQL's mirror of migrations/0009_computer_level.sql: the same column, filled in the
-- same way from the names of the computers' seats recorded before ("Computer 2 (expert)" has
-- level `expert`).

ALTER TABLE game_players ADD COLUMN level TEXT;

UPDATE game_players
SET level = rtrim(substr(COALESCE(name, ''), strpos(COALESCE(name, ''), '(') + 1), ')')
WHERE is_bot = 1;
