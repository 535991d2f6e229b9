// The uuids of the events a region stored lately, read at start-up to rebuild the duplicate
// index (uuid-index.ts) before ingest opens, so that a retry of an event sealed or compacted
// before a restart is still refused.
import { join } from "node:path";
import { vectorValues } from "./arrow-vectors.ts";
import { readParquetColumn, readSegmentTable } from "./data-files.ts";
import { readBatchRecord } from "./event-record.ts";
import { readManifest, type PartEntry } from "./manifest.ts";
import { readWalRecords } from "./wal.ts";

/** The write order of a part: the file number in its name. */
const partNumber = (part: PartEntry) => Number(/part-(\d+)\.parquet$/.exec(part.file)![1]);

/**
 * Parts a restart reads uuids from at most: reading one small part's uuids costs about 0.6 ms
 * (measured), so a region of many quiet projects, whose parts hold a few rows each, would
 * otherwise read hundreds of thousands of files before it answers. The newest 4096 parts still
 * cover far more than an SDK's retries span (minutes) at any ingest rate.
 */
export const recentPartsMax = 4096;

/**
 * uuids of the recent events on disk, per project, oldest first: those of the newest Parquet
 * parts (by write order), at most `partsMax` of them holding at most `rowsMax` rows, then sealed
 * segments, then everything still in the WAL. Read before the storage worker runs.
 */
export async function* recentUuidsOnDisk(
  dataDir: string, walDir: string, { rowsMax, partsMax }: { rowsMax: number; partsMax: number },
): AsyncGenerator<{ projectId: string; uuid: string }> {
  const manifest = readManifest(dataDir);
  const newestParts: PartEntry[] = [];
  let partRows = 0;
  for (const part of [...manifest.parts].sort((a, b) => partNumber(b) - partNumber(a))) {
    if (newestParts.length === partsMax || partRows + part.rows > rowsMax) break;
    newestParts.unshift(part);
    partRows += part.rows;
  }
  for (const part of newestParts) {
    for (const uuid of vectorValues((await readParquetColumn(join(dataDir, part.file), "uuid")).getChild("uuid")!)) {
      yield { projectId: part.projectId, uuid: uuid as string };
    }
  }
  for (const segment of manifest.segments) {
    for (const uuid of vectorValues(readSegmentTable(join(dataDir, segment.file), segment).getChild("uuid")!)) {
      yield { projectId: segment.projectId, uuid: uuid as string };
    }
  }
  for (const { payload } of readWalRecords(walDir)) {
    const uuids = walRecordUuids(payload);
    if (uuids) for (const uuid of uuids.uuids) yield { projectId: uuids.projectId, uuid };
  }
}

/** A WAL record's stored uuids, or null for a record that cannot be read (the storage worker sets it aside: EventStore.addWalRecord). */
function walRecordUuids(payload: Uint8Array): { projectId: string; uuids: string[] } | null {
  try {
    const { header, accepted, batch } = readBatchRecord(payload);
    return { projectId: header.project_id, uuids: accepted.map(({ index }) => (batch[index]!.uuid as string).toLowerCase()) };
  } catch {
    return null;
  }
}
