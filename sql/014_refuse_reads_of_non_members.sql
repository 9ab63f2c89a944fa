-- Reads are sent to PostgreSQL together with the session check that
-- authorises them (one round trip, common/auth.cc). The check that goes with
-- a read raises an error when the caller is not a member of the tenant, and
-- an error aborts the rest of the round trip: the read is never run for a
-- non-member, instead of being run and its rows thrown away.
--
-- Called only on that refusal path (inside COALESCE). The SQLSTATE is ours
-- (class CA), so the handler can tell it from every real error.
CREATE FUNCTION ca_refuse(sqlstate text, reason text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = reason;
END
$$;
