// A stopped restore taken over by the one that resumes it: its batches, and any batch of
// an earlier process still running, are written only by the holder of `run`.
MATCH (r:Restore {scope: $workspace})
SET r.run = $run
RETURN r.run AS run
