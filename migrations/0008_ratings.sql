-- 0008: rate every player's skill per server from each game's finishing order (openskill).
-- Each seat of a rated game keeps its player's rating before and after that game; who sat
-- there stays in game_players alone, so forget-me anonymises a rating with the seat. A
-- player's rating is the one after their latest rated game. SQL cannot run openskill: the
-- games recorded before this version have no rows here yet, and the bot rates every unrated
-- game, oldest first, when it starts (bot/rating_store.py).

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
