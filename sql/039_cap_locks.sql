-- Turns at a tenant's capped collections (issue 42;
-- docs/decisions/0030-caps-on-what-users-and-tenants-grow.md): a create that
-- counts a collection of a tenant before adding to it first locks the
-- tenant's row here (an upsert that changes nothing), then counts in a
-- statement of its own, so that two creates at once cannot both take the
-- last slot. On the tenant's own shard (Citus), the lock is released by the
-- same commit that makes the other create's rows visible to the count; a
-- lock on the tenants row (a reference table) is not: the count could run
-- on the tenant's worker before the other create's two-phase commit reached
-- it.

CREATE TABLE cap_locks (
  tenant_id   bigint NOT NULL,
  collection  text NOT NULL,  -- 'pending invitations'
  PRIMARY KEY (tenant_id, collection)
);

SELECT ca_distribute_all();
