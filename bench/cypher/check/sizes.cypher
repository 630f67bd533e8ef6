// Nodes and relationships in the whole database (from the count store: constant time).
RETURN COUNT { MATCH (n) } AS nodes, COUNT { MATCH ()-[r]->() } AS relationships
