// Bulk: threads, their properties as the service stores them (bench/model.py).
UNWIND $rows AS row
CREATE (t:Thread)
SET t = row.props
