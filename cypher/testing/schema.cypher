// Test suites only: the constraints and indexes the database holds.
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, owningConstraint
RETURN name, type, labelsOrTypes, properties, owningConstraint
ORDER BY name
