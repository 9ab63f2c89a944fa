// The slot of a counter row a statement adds to. A count that many writes
// move (an order status's total in order_counts, sql/017 and sql/032; a
// user's new idempotency keys per hour in idempotency_key_counts, sql/040)
// is split into 16 rows, one per slot, and read as their sum: a write adds
// to its database connection's slot, so that writes on different
// connections do not queue for one row's lock until their COMMIT.
// Header-only: a piece of SQL text for the statements' literals.
#pragma once

// SQL: this connection's slot, 0..15.
#define CA_COUNTER_SLOT "(pg_backend_pid() % 16)"
