// When the database last started: plans Neo4j cached before it are gone. Run on `system`.
SHOW DATABASES YIELD name, lastStartTime
WHERE name = $database
RETURN toString(lastStartTime) AS started
