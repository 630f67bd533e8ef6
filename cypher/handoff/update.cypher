// Status changes; a supersededById also draws the SUPERSEDED_BY edge.
UNWIND $changes AS change
MATCH (h:ContextHandoff {id: change.id, workspace: $workspace})
SET h += change.props
WITH h, change
CALL (h, change) {
  MATCH (next:ContextHandoff {id: change.props.supersededById, workspace: $workspace})
  MERGE (h)-[:SUPERSEDED_BY]->(next)
}
