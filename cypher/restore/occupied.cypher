// Whether a workspace holds any node: a restore writes only into an empty one.
RETURN EXISTS { MATCH (n) WHERE n.workspace = $workspace } AS occupied
