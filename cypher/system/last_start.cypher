// When the Neo4j process started (its JVM's start, in ms): plans it cached before are gone.
// Not SHOW DATABASES' lastStartTime, which a restart after a crash leaves unchanged.
CALL dbms.queryJmx("java.lang:type=Runtime") YIELD attributes
RETURN toString(attributes.StartTime.value) AS started
