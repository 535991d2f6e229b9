// Calls to another thread that wait for its replies, matched by id: the storage client's calls
// to the storage worker, and the storage worker's jobs for the compaction thread.

export class PendingCalls {
  private nextId = 1;
  private readonly calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  /** A new call: `send` posts the request under the id it is given; the promise settles with the reply. */
  start<T>(send: (id: number) => void): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.calls.set(id, { resolve: resolve as (value: unknown) => void, reject });
      send(id);
    });
  }

  /** Settles the call a reply answers: with `value`, or with an Error of the reply's message. */
  settle(id: number, error: string | null, value: unknown): void {
    const call = this.calls.get(id);
    this.calls.delete(id);
    if (error === null) call?.resolve(value);
    else call?.reject(new Error(error));
  }

  /** Fails every call under way: no reply will come (the other thread is gone). */
  failAll(reason: string): void {
    for (const call of this.calls.values()) call.reject(new Error(reason));
    this.calls.clear();
  }
}
