-- The database ceiling of scripts/bench (pgbench -f): per transaction, the insert of a new row keyed by a
-- 64-character hash and a lookup by primary key, the statements a registration and a poll cost the services.
\set n random(1, 1000000000)
INSERT INTO ceiling (id, result, created_at) VALUES (encode(sha256((:n || '-' || :client_id || '-' || random())::bytea), 'hex'), 2, :n)
    ON CONFLICT (id) DO NOTHING;
SELECT result, created_at FROM ceiling WHERE id = encode(sha256((:n)::text::bytea), 'hex');
