// Who runs a queued read, decided without a message: one Int32 slot per read in shared memory,
// set once from `unclaimed` by whichever thread gets there first (Atomics.compareExchange). A
// worker gets every read posted at once and skips those the main thread took; the main thread
// takes any read no worker has started, so it never waits for a worker to reach one.

export const unclaimed = 0;
export const claimedByWorker = 1;
export const claimedByMain = 2;

/**
 * Slots, reused in turn by read id. A slot is reused only after this many later reads; reads
 * a query keeps ahead are a few per worker, so the read that had it is long settled.
 */
export const claimSlots = 4096;

export const newClaims = (): Int32Array => new Int32Array(new SharedArrayBuffer(claimSlots * Int32Array.BYTES_PER_ELEMENT));

/** Claims read `id` for `by`; whether this call won it. */
export const claim = (claims: Int32Array, id: number, by: number): boolean => Atomics.compareExchange(claims, id % claimSlots, unclaimed, by) === unclaimed;

export const resetClaim = (claims: Int32Array, id: number): void => void Atomics.store(claims, id % claimSlots, unclaimed);
