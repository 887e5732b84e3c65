-- 0009: a computer player's seat keeps its level (`basic`, `expert`), the identity its rating
-- moves (`computer:<level>`), instead of the rating reading it back out of the recorded name.
-- The computers' seats recorded before are filled in from their names: "Computer 2 (expert)"
-- has level `expert` (the text between the first "(" and the closing ")"). Members' seats
-- have none.

ALTER TABLE game_players ADD COLUMN level TEXT;

UPDATE game_players
SET level = rtrim(substr(COALESCE(name, ''), instr(COALESCE(name, ''), '(') + 1), ')')
WHERE is_bot = 1;
