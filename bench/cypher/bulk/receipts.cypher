// Bulk: command receipts of the mutations that built the families (clients send commandIds).
UNWIND $rows AS row
CREATE (c:CommandReceipt)
SET c = row
