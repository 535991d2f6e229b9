// Accepted events whose WAL write has not finished yet. Their uuids are in the duplicate index
// from the moment they are accepted, so a retry that races its original (an SDK that timed out
// on a slow fsync) is refused as `duplicate`; if the original's write then fails, that answer
// would have called an event stored that never was. A request that met such a uuid waits for
// the write that holds it and fails too when that write does.

export interface WriteInFlight {
  readonly projectId: string;
  /** The events the write holds (their uuids as the events gave them). */
  readonly events: readonly { uuid: string }[];
  /** Resolves true once the write is durable, false if it failed. */
  readonly outcome: Promise<boolean>;
}

export class WritesInFlight {
  private readonly writes = new Set<WriteInFlight>();

  /** Registers a write about to start; call `settle` with its outcome once it ends. */
  begin(projectId: string, events: readonly { uuid: string }[]): { settle(durable: boolean): void } {
    let resolve!: (durable: boolean) => void;
    const write: WriteInFlight = { projectId, events, outcome: new Promise((done) => (resolve = done)) };
    this.writes.add(write);
    return {
      settle: (durable) => {
        this.writes.delete(write);
        resolve(durable);
      },
    };
  }

  /**
   * The outcomes of the writes in flight that hold any of `uuids` (of a project). Searched only
   * for the uuids a request found already known, which is rare, so no per-write set is kept.
   */
  holding(projectId: string, uuids: readonly string[]): Promise<boolean>[] {
    const wanted = new Set(uuids.map((uuid) => uuid.toLowerCase()));
    const outcomes: Promise<boolean>[] = [];
    for (const write of this.writes) {
      if (write.projectId === projectId && write.events.some((event) => wanted.has(event.uuid.toLowerCase()))) outcomes.push(write.outcome);
    }
    return outcomes;
  }
}
