// What the driver and the mail process (mail-process.ts) share: the root key, and the routes the
// process adds beside the mail API's for the benchmark.

export const benchMailRootKey = "mk_root_bench_key_0123456789abcdef";
/** Opens the gate the service's deliveries wait behind. */
export const releasePath = "/__bench/release";
/** Runs RunningMail.deliverQueued() and answers a DeliverAnswer. */
export const deliverPath = "/__bench/deliver";

export interface DeliverAnswer {
  /** Recipients the pass settled. */
  settled: number;
  /** Recipients still scheduled, queued or deferred, and those delivered. */
  waiting: number;
  delivered: number;
}
