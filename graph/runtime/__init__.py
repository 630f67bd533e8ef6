"""The managed local Neo4j's pieces: ports, processes, and the resources it writes out."""
