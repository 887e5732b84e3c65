-- 0008: rate every player's skill per server from each game's finishing order (openskill).
-- PostgreSQL's mirror of migrations/0008_ratings.sql: the same tables and columns (ratings
-- as DOUBLE PRECISION, SQLite's REAL, so both store the same values), and the same trigger:
-- forget-me deletes a member's latest ratings. The bot rates every unrated game, oldest
-- first, when it starts (bot/rating_store.py).

CREATE TABLE seat_ratings (
    game_id       BIGINT            NOT NULL,
    seat          INTEGER           NOT NULL,
    mu_before     DOUBLE PRECISION  NOT NULL,
    sigma_before  DOUBLE PRECISION  NOT NULL,
    mu            DOUBLE PRECISION  NOT NULL,
    sigma         DOUBLE PRECISION  NOT NULL,
    PRIMARY KEY (game_id, seat),
    FOREIGN KEY (game_id, seat) REFERENCES game_players (game_id, seat) ON DELETE CASCADE
);

-- `who` is `member:<user id>` or `computer:<level>`.
CREATE TABLE player_ratings (
    guild_id  BIGINT   NOT NULL,
    who       TEXT     NOT NULL,
    games     INTEGER  NOT NULL CHECK (games > 0),
    game_id   BIGINT   NOT NULL,
    seat      INTEGER  NOT NULL,
    PRIMARY KEY (guild_id, who),
    FOREIGN KEY (game_id, seat) REFERENCES seat_ratings (game_id, seat) ON DELETE CASCADE
);

CREATE FUNCTION player_ratings_forget_member() RETURNS trigger AS $$
BEGIN
    DELETE FROM player_ratings WHERE who = 'member:' || OLD.user_id;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER player_ratings_forget_member
AFTER UPDATE OF user_id ON game_players
FOR EACH ROW
WHEN (OLD.user_id IS NOT NULL AND NEW.user_id IS NULL AND OLD.is_bot = 0)
EXECUTE FUNCTION player_ratings_forget_member();
