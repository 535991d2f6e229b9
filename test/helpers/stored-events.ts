// Everything a stopped service's region has stored (Parquet parts, segments and the WAL),
// read through the storage layer the way the service reads it at start-up.
import { join } from "node:path";
import { WriteAheadLog } from "../../storage/wal.ts";
import { EventStore } from "../../storage/event-store.ts";
import type { EventBatchRecord } from "../../storage/event-record.ts";

/** One record per partition (received_at is not kept past the WAL and reads as 0). Stopped services only. */
export async function readStored(dataDir: string, region = "eu"): Promise<EventBatchRecord[]> {
  const regionDir = join(dataDir, region);
  const wal = await WriteAheadLog.open(join(regionDir, "wal"));
  try {
    const store = EventStore.open(regionDir, join(regionDir, "wal"), (position) => wal.truncateUpTo(position));
    return store.partitions().map((partition) => ({
      project_id: partition.projectId,
      data_id: partition.dataId,
      environment: partition.environment,
      received_at: 0,
      events: store.scan(partition.dataId, partition.environment),
    }));
  } finally {
    await wal.close();
  }
}

/** Seals and compacts everything a stopped service's region holds, as its storage worker would in time. */
export async function compactStored(dataDir: string, region = "eu"): Promise<void> {
  const regionDir = join(dataDir, region);
  const wal = await WriteAheadLog.open(join(regionDir, "wal"));
  try {
    const store = EventStore.open(regionDir, join(regionDir, "wal"), (position) => wal.truncateUpTo(position));
    await store.flush();
    store.close();
  } finally {
    await wal.close();
  }
}
