// Whether a restore holds the workspace closed (docs/MODEL.md, "Write gates").
RETURN EXISTS { MATCH (:Restore {scope: $workspace}) } AS closed
