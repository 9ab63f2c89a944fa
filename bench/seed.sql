-- Bench data, set-based (psql variables set by bench/run):
--   :tenants       small tenants besides the bench tenant (id 1)
--   :products, :categories, :orders, :announcements, :readers   in tenant 1
-- Expects a fresh database where the seeded admin is user 1.
\set ON_ERROR_STOP on
SET synchronous_commit = off;  -- seeding only; the stack itself keeps the safe default

INSERT INTO tenants (id, name) SELECT g, 'Bench tenant ' || g FROM generate_series(1, 1 + :tenants) g;
-- In two statements: on Citus a statement that reads tenants (a reference
-- table) runs on a worker, whose sequence range is not the coordinator's.
SELECT max(id) AS max_tenant FROM tenants \gset
SELECT setval('tenants_id_seq', :max_tenant);
INSERT INTO memberships (tenant_id, user_id, role) SELECT id, 1, 'ADMIN' FROM tenants;
UPDATE users SET tenant_id = 1 WHERE id = 1;

-- Readers: members of tenant 1 with the admin's password (logins are not what is measured).
INSERT INTO users (name, email, password_hash)
SELECT 'Reader ' || g, 'reader' || g || '@bench.local', (SELECT password_hash FROM users WHERE id = 1)
FROM generate_series(1, :readers) g;
INSERT INTO memberships (tenant_id, user_id, role)
SELECT 1, id, 'MEMBER' FROM users WHERE email LIKE 'reader%@bench.local';

INSERT INTO categories (tenant_id, name, description)
SELECT 1, 'Category ' || g, 'Bench category ' || g FROM generate_series(1, :categories) g;

INSERT INTO products (tenant_id, category_id, name, description, price, stock)
SELECT 1,
       (SELECT min(id) FROM categories WHERE tenant_id = 1) + (g % :categories),
       'Product ' || g || ' ' || md5(g::text), 'A bench product', (g % 10000) / 100.0 + 1, g % 500
FROM generate_series(1, :products) g;

-- Small tenants get a little of everything.
INSERT INTO products (tenant_id, name, price)
SELECT t, 'Small product ' || g, 9.99 FROM generate_series(2, 1 + :tenants) t, generate_series(1, 100) g;

INSERT INTO addresses (user_id, street, city, country, postal_code)
VALUES (1, '1 Bench Street', 'Benchville', 'Neverland', '00001');

-- Orders of 1..5 items over the bench tenant's products.
INSERT INTO orders (tenant_id, user_id, address_id, payment_type, total_amount, status)
SELECT 1, 1, (SELECT min(id) FROM addresses WHERE user_id = 1), 1, 42.00,
       (ARRAY['pending', 'processing', 'completed', 'cancelled'])[1 + g % 4]
FROM generate_series(1, :orders) g;
INSERT INTO order_items (tenant_id, order_id, product_id, qty, amount)
SELECT 1, o.id, (SELECT min(id) FROM products WHERE tenant_id = 1) + ((o.id * 7 + i) % :products), i, 8.40
FROM orders o, generate_series(1, 5) i
WHERE o.tenant_id = 1 AND i <= 1 + o.id % 5;

ANALYZE;

-- Announcements: a few active ones among many published-but-expired, drafts,
-- archived and future-scheduled rows, as a long-lived tenant has them.
-- Push is off (push_status 'skipped'): the bench measures the API, not the gateway.
INSERT INTO announcements (tenant_id, title, summary, content, type, priority, status,
                           scheduled_at, expires_at, push_status, created_by, created_at)
SELECT 1, 'Announcement ' || g, 'Summary of announcement ' || g, repeat('Content. ', 20),
       (ARRAY['info', 'warning', 'success', 'alert'])[1 + g % 4], (g % 7 = 0)::int,
       CASE WHEN g % 100 < 40 THEN 'published' WHEN g % 100 < 60 THEN 'draft'
            WHEN g % 100 < 80 THEN 'archived' ELSE 'scheduled' END,
       CASE WHEN g % 100 >= 80 THEN now() + interval '30 days' END,
       CASE WHEN g % 100 BETWEEN 2 AND 39 THEN now() - interval '1 day' END,
       'skipped', 1, now() - (g || ' minutes')::interval
FROM generate_series(1, :announcements) g;
-- Each reader (and the admin) has read a tenth of them and dismissed a few.
INSERT INTO announcement_reads (tenant_id, announcement_id, user_id, dismissed, dismissed_at)
SELECT 1, a.id, u.id, a.id % 50 = 0, CASE WHEN a.id % 50 = 0 THEN now() END
FROM announcements a
JOIN users u ON u.id = 1 OR u.email LIKE 'reader%@bench.local'
WHERE a.tenant_id = 1 AND (a.id + u.id) % 10 = 0;

ANALYZE;

-- Rows written here are counted by no statement of the API: the counters
-- and list versions of every tenant (sql/032).
SELECT ca_recount_all();
