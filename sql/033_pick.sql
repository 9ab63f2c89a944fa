-- ca_pick(cond, if_true, if_false): CASE WHEN cond THEN if_true ELSE
-- if_false END, for a timestamp that must be now() on one branch only.
-- Citus refuses now() (any non-IMMUTABLE function) inside CASE or COALESCE
-- of a statement on a distributed table; as the argument of a function it
-- is evaluated once on the coordinator and sent as a constant. PL/pgSQL so
-- that the planner cannot inline it back into a CASE (a LANGUAGE sql body
-- would be, and Citus would refuse it again).
CREATE FUNCTION ca_pick(cond boolean, if_true timestamptz, if_false timestamptz)
RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE WHEN cond THEN if_true ELSE if_false END;
END
$$;

SELECT ca_distribute_all();
