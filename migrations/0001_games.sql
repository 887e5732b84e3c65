-- 0001: record every finished game, so servers get a leaderboard and members their stats.
-- A game keeps its rules as JSON (the preset name alone would not say which options it had);
-- players are stored per seat, so a member who asks to be forgotten can be anonymised
-- (user_id and name set to NULL) without changing anyone else's record.

CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    preset      TEXT,
    rules       TEXT    NOT NULL,
    started_at  TEXT    NOT NULL,
    ended_at    TEXT    NOT NULL,
    moves       INTEGER NOT NULL CHECK (moves >= 0),
    end_reason  TEXT    NOT NULL
);

CREATE TABLE game_players (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat     INTEGER NOT NULL,
    user_id  INTEGER,
    name     TEXT,
    is_bot   INTEGER NOT NULL CHECK (is_bot IN (0, 1)),
    place    INTEGER,
    loser    INTEGER NOT NULL CHECK (loser IN (0, 1)),
    PRIMARY KEY (game_id, seat)
);

-- The leaderboard filters a server's games by end time; stats and forget-me look up a member.
CREATE INDEX games_by_guild_end ON games (guild_id, ended_at);
CREATE INDEX game_players_by_user ON game_players (user_id, game_id);
