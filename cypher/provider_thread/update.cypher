UNWIND $changes AS change
MATCH (pt:ProviderThread {id: change.id, workspace: $workspace})
SET pt += change.props
