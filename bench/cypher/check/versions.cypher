// The Neo4j server's name, version and edition.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
