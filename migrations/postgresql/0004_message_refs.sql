-- 0004: message references belong to the Discord layer, not to the table's state.
-- PostgreSQL's mirror of migrations/0004_message_refs.sql: the table message's id and each
-- member's DM view move out of the running table's JSON into message_refs (user_id 0 is the
-- table message); rows whose JSON is not valid are left as they are (the bot marks them when
-- it starts). json_or_null reads a row's JSON, NULL when it is not valid (PostgreSQL 15 has
-- no IS JSON); it lives in pg_temp, so it goes with this connection.

CREATE TABLE message_refs (
    table_id    TEXT    NOT NULL,
    user_id     BIGINT  NOT NULL,
    channel_id  BIGINT,
    message_id  BIGINT,
    dm_closed   INTEGER NOT NULL DEFAULT 0 CHECK (dm_closed IN (0, 1)),
    PRIMARY KEY (table_id, user_id)
);

ALTER TABLE running_tables ADD COLUMN unreadable TEXT;
ALTER TABLE running_tables ADD COLUMN ended_at TEXT;

CREATE FUNCTION pg_temp.json_or_null(document TEXT) RETURNS JSONB
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN document::jsonb;
EXCEPTION WHEN others THEN
    RETURN NULL;
END
$$;

INSERT INTO message_refs (table_id, user_id, channel_id, message_id)
SELECT table_id, 0, channel_id, (pg_temp.json_or_null(state) ->> 'message_id')::BIGINT
FROM running_tables
WHERE jsonb_typeof(pg_temp.json_or_null(state) -> 'message_id') = 'number';

INSERT INTO message_refs (table_id, user_id, channel_id, message_id, dm_closed)
SELECT r.table_id,
       (seat.value ->> 'user_id')::BIGINT,
       (seat.value ->> 'dm_channel_id')::BIGINT,
       (seat.value ->> 'dm_message_id')::BIGINT,
       CASE WHEN seat.value -> 'dm_closed' = 'true'::jsonb THEN 1 ELSE 0 END
FROM running_tables AS r,
     jsonb_array_elements(pg_temp.json_or_null(r.state) -> 'seats') AS seat
WHERE jsonb_typeof(pg_temp.json_or_null(r.state) -> 'seats') = 'array'
  AND jsonb_typeof(seat.value -> 'user_id') = 'number'
  AND seat.value ->> 'computer' IS NULL
  AND (jsonb_typeof(seat.value -> 'dm_message_id') = 'number'
       OR seat.value -> 'dm_closed' = 'true'::jsonb)
ON CONFLICT (table_id, user_id) DO UPDATE SET
    channel_id = excluded.channel_id, message_id = excluded.message_id,
    dm_closed = excluded.dm_closed;

UPDATE running_tables
SET state = jsonb_set(
    pg_temp.json_or_null(state) - 'message_id',
    '{seats}',
    COALESCE(
        (SELECT jsonb_agg(seat.value - 'dm_channel_id' - 'dm_message_id' - 'dm_closed'
                          ORDER BY seat.position)
         FROM jsonb_array_elements(pg_temp.json_or_null(state) -> 'seats')
              WITH ORDINALITY AS seat (value, position)),
        '[]'::jsonb))::TEXT
WHERE jsonb_typeof(pg_temp.json_or_null(state) -> 'seats') = 'array';

DROP FUNCTION pg_temp.json_or_null(TEXT);
