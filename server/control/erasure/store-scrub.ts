// Leaves no copy of an ended erasure's identifiers in control.sqlite's files. The store runs
// with secure_delete (db/open.ts), so the deleted row's bytes are overwritten with zeros, not
// merely unlinked; the WAL still holds the page images written while the request was open, so
// a TRUNCATE checkpoint copies the zeroed pages into the database file and empties the WAL.
import { sql } from "drizzle-orm";
import type { ControlDb } from "../db/open.ts";

/** True when the WAL was emptied; false when a reader kept it (try again later). */
export function scrubControlStore(db: ControlDb): boolean {
  const result = db.get<{ busy: number }>(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
  return result.busy === 0;
}
