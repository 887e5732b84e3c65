-- 0008: rate every player's skill per server from each game's finishing order (openskill).
-- Each seat of a rated game keeps its player's rating before and after that game; who sat
-- there stays in game_players alone, so forget-me anonymises a seat's rating with the seat.
-- player_ratings points at each player's latest rated seat on a server (and counts their
-- rated games), so a leaderboard reads one row a player; forget-me deletes a member's rows.
-- SQL cannot run openskill: the games recorded before this version have no ratings yet, and
-- the bot rates every unrated game, oldest first, when it starts (bot/rating_store.py).

CREATE TABLE seat_ratings (
    game_id       INTEGER NOT NULL,
    seat          INTEGER NOT NULL,
    mu_before     REAL    NOT NULL,
    sigma_before  REAL    NOT NULL,
    mu            REAL    NOT NULL,
    sigma         REAL    NOT NULL,
    PRIMARY KEY (game_id, seat),
    FOREIGN KEY (game_id, seat) REFERENCES game_players (game_id, seat) ON DELETE CASCADE
);

-- `who` is `member:<user id>` or `computer:<level>`.
CREATE TABLE player_ratings (
    guild_id  INTEGER NOT NULL,
    who       TEXT    NOT NULL,
    games     INTEGER NOT NULL CHECK (games > 0),
    game_id   INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    PRIMARY KEY (guild_id, who),
    FOREIGN KEY (game_id, seat) REFERENCES seat_ratings (game_id, seat) ON DELETE CASCADE
);

CREATE TRIGGER player_ratings_forget_member
AFTER UPDATE OF user_id ON game_players
WHEN OLD.user_id IS NOT NULL AND NEW.user_id IS NULL AND NOT OLD.is_bot
BEGIN
    DELETE FROM player_ratings WHERE who = 'member:' || OLD.user_id;
END;
