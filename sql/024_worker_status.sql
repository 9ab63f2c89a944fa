-- When a worker last finished a pass in which no task failed, for
-- GET /metrics (commerce_admin_worker_last_success_timestamp_seconds): an
-- operator alerts when it grows old. One row for the installation (a
-- reference table on Citus); every worker pass upserts it.
CREATE TABLE worker_status (
  singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  last_success_at  timestamptz NOT NULL
);
