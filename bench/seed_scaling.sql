-- Scaling tenants for bench/run: :tenant_small with :small rows and
-- :tenant_large with :large rows of products (and announcements, when that
-- table exists), beside tenant 1's own size. The admin (user 1) is ADMIN.
\set ON_ERROR_STOP on
SET synchronous_commit = off;
INSERT INTO tenants (id, name) VALUES (:tenant_small, 'Scaling small'), (:tenant_large, 'Scaling large');
SELECT setval('tenants_id_seq', (SELECT max(id) FROM tenants));
INSERT INTO memberships (tenant_id, user_id, role) VALUES (:tenant_small, 1, 'ADMIN'), (:tenant_large, 1, 'ADMIN');
INSERT INTO products (tenant_id, name, description, price, stock)
SELECT t.id, 'Product ' || g || ' ' || md5(g::text), 'A scaling product', 5.00, 1
FROM (VALUES (:tenant_small, :small), (:tenant_large, :large)) AS t (id, n), generate_series(1, t.n) g;
ANALYZE products;
