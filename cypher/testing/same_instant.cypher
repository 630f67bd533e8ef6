// Tests: give these threads one creation instant, stored in another time zone than UTC
// (the order of a page through threads that share an instant is by id).
MATCH (t:Thread) WHERE t.id IN $ids
SET t.createdAt = datetime('2026-01-01T02:00:00+02:00')
