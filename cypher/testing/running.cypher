// Test suites only: transactions still running a query that contains $text.
SHOW TRANSACTIONS YIELD transactionId, currentQuery
WHERE currentQuery CONTAINS $text
RETURN count(*) AS running
