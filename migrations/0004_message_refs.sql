-- 0004: message references belong to the Discord layer, not to the table's state.
-- The table message and each member's DM view (or that their DMs are closed) move out of the
-- running table's JSON into rows the presenter owns (user_id 0 is the table message). A row
-- of running_tables that cannot be read is set aside with the reason, not loaded again.
-- Rows whose JSON is not valid are left as they are: the bot marks them when it starts.
-- A table that ended keeps its final state for a day (ended_at set), so a restart can still
-- show its end and offer its rematch.

CREATE TABLE message_refs (
    table_id    TEXT    NOT NULL,
    user_id     INTEGER NOT NULL,
    channel_id  INTEGER,
    message_id  INTEGER,
    dm_closed   INTEGER NOT NULL DEFAULT 0 CHECK (dm_closed IN (0, 1)),
    PRIMARY KEY (table_id, user_id)
);

ALTER TABLE running_tables ADD COLUMN unreadable TEXT;
ALTER TABLE running_tables ADD COLUMN ended_at TEXT;

INSERT INTO message_refs (table_id, user_id, channel_id, message_id)
SELECT table_id, 0, channel_id, json_extract(state, '$.message_id')
FROM running_tables
WHERE json_valid(state) AND json_type(state, '$.message_id') = 'integer';

INSERT OR REPLACE INTO message_refs (table_id, user_id, channel_id, message_id, dm_closed)
SELECT r.table_id,
       json_extract(seat.value, '$.user_id'),
       json_extract(seat.value, '$.dm_channel_id'),
       json_extract(seat.value, '$.dm_message_id'),
       CASE WHEN json_extract(seat.value, '$.dm_closed') THEN 1 ELSE 0 END
FROM running_tables AS r,
     json_each(CASE WHEN json_valid(r.state) THEN r.state ELSE '{}' END, '$.seats') AS seat
WHERE json_type(seat.value, '$.user_id') = 'integer'
  AND json_extract(seat.value, '$.computer') IS NULL
  AND (json_type(seat.value, '$.dm_message_id') = 'integer'
       OR json_extract(seat.value, '$.dm_closed'));

UPDATE running_tables
SET state = json_set(
    json_remove(state, '$.message_id'),
    '$.seats',
    (SELECT json_group_array(json(cleaned))
     FROM (SELECT json_remove(seat.value, '$.dm_channel_id', '$.dm_message_id', '$.dm_closed')
                  AS cleaned
           FROM json_each(running_tables.state, '$.seats') AS seat
           ORDER BY seat.key)))
WHERE json_valid(state) AND json_type(state, '$.seats') = 'array';
