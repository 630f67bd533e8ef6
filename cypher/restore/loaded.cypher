// The snapshot is written whole under the hidden name (its trailer checked): what is left
// is naming it. Answers how long the workspace has been closed, by the server's clock: the
// restore waits until no API process can still be reading it as open.
MATCH (r:Restore {scope: $workspace}) WHERE r.run = $run
SET r.phase = 'NAMING'
RETURN duration.inSeconds(r.closedAt, datetime()).milliseconds AS closedForMs
