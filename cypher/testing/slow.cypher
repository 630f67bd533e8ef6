// Test suites only: a read that runs for a long time, to prove every call is bounded.
UNWIND range(1, $n) AS x
WITH x WHERE x % 7 = 0
RETURN count(x) AS multiples
