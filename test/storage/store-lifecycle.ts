// For directory-durability.test.ts, run under strace: a region's storage from nothing through
// ingest, a seal and a compaction of events on two days, in the directory given.
import { join } from "node:path";
import { WriteAheadLog } from "../../storage/wal.ts";
import { EventStore, defaultStorageTuning } from "../../storage/event-store.ts";
import { encodeBatchRecord, readBatchRecord } from "../../storage/event-record.ts";
import { acceptedBatchOf, storedEvent } from "./fixtures.ts";

const dataDir = join(process.argv[2]!, "eu");
const walDir = join(dataDir, "wal");
const wal = await WriteAheadLog.open(walDir);
const tuning = { ...defaultStorageTuning, sealRows: 1_000_000, sealAgeMs: 3_600_000 };
const store = EventStore.open(dataDir, walDir, (position) => wal.truncateUpTo(position), tuning);
const dayMs = 86_400_000;
const events = [storedEvent({ timestamp: Date.now() - dayMs }), storedEvent({ timestamp: Date.now() })];
const parts = encodeBatchRecord(acceptedBatchOf("6f1c1a52-1d6b-4c55-9a7c-0d3c1f2b9e01", 7, "production", events));
store.add(readBatchRecord(...parts), await wal.append(parts));
await store.seal();
await store.compact(7, "production");
store.close();
await wal.close();
