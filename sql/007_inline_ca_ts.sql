-- ca_ts() was declared IMMUTABLE, but to_char() is only STABLE, so the
-- planner refused to inline it: every call ran through the SQL-function
-- executor, which re-reads and plans the body per statement (seen as
-- stringToNode in profiles of every read). Declared STABLE, matching what it
-- calls, it is inlined into each query as a plain to_char() expression.
ALTER FUNCTION ca_ts(timestamptz) STABLE;
