-- Scaling tenants for bench/run: :tenant_small with :small rows and
-- :tenant_large with :large rows of products and of announcements, and
-- :tenant_mid with :mid announcements (tenant 1's 100,000 products stand for
-- the middle size of the product lists). The admin (user 1) is ADMIN of each.
--
-- Announcements are a history: whatever the size, 20 are active (published,
-- not expired) and the rest are published-and-expired (40%), drafts,
-- archived or scheduled; the admin has read every tenth and dismissed a few.
\set ON_ERROR_STOP on
SET synchronous_commit = off;
INSERT INTO tenants (id, name)
VALUES (:tenant_small, 'Scaling small'), (:tenant_mid, 'Scaling mid'), (:tenant_large, 'Scaling large');
-- In two statements: on Citus a statement that reads tenants (a reference
-- table) runs on a worker, whose sequence range is not the coordinator's.
SELECT max(id) AS max_tenant FROM tenants \gset
SELECT setval('tenants_id_seq', :max_tenant);
INSERT INTO memberships (tenant_id, user_id, role)
VALUES (:tenant_small, 1, 'ADMIN'), (:tenant_mid, 1, 'ADMIN'), (:tenant_large, 1, 'ADMIN');
INSERT INTO products (tenant_id, name, description, price, stock)
SELECT t.id, 'Product ' || g || ' ' || md5(g::text), 'A scaling product', 5.00, 1
FROM (VALUES (:tenant_small, :small), (:tenant_large, :large)) AS t (id, n), generate_series(1, t.n) g;
ANALYZE products;

INSERT INTO announcements (tenant_id, title, summary, content, type, priority, status,
                           scheduled_at, expires_at, push_status, created_by, created_at)
SELECT t.id, 'Announcement ' || g, 'Summary ' || g, 'Content.', 'info', (g % 7 = 0)::int,
       CASE WHEN g <= 20 OR g % 10 < 4 THEN 'published' WHEN g % 10 < 6 THEN 'draft'
            WHEN g % 10 < 8 THEN 'archived' ELSE 'scheduled' END,
       CASE WHEN g > 20 AND g % 10 >= 8 THEN now() + interval '30 days' END,
       CASE WHEN g > 20 THEN now() - interval '1 day' END,
       'skipped', 1, now() - (g || ' seconds')::interval
FROM (VALUES (:tenant_small, :small), (:tenant_mid, :mid), (:tenant_large, :large)) AS t (id, n),
     generate_series(1, t.n) g;
INSERT INTO announcement_reads (tenant_id, announcement_id, user_id, dismissed, dismissed_at)
SELECT a.tenant_id, a.id, 1, a.id % 50 = 0, CASE WHEN a.id % 50 = 0 THEN now() END
FROM announcements a
WHERE a.tenant_id IN (:tenant_small, :tenant_mid, :tenant_large) AND a.id % 10 = 0;
ANALYZE announcements;
ANALYZE announcement_reads;

-- Rows written here are counted by no statement of the API: the counters
-- and list versions of these tenants (sql/032).
SELECT ca_recount(:tenant_small), ca_recount(:tenant_mid), ca_recount(:tenant_large);
