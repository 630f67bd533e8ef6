UNWIND $changes AS change
MATCH (r:Run {id: change.id, workspace: $workspace})
SET r += change.props
