// What the driver, the mail process (mail-process.ts) and the baselines share: the root key, our
// host name (the EHLO name), and the routes the mail process adds beside the mail API's.

export const benchMailRootKey = "mk_root_bench_key_0123456789abcdef";
export const benchMailHostname = "mx.mail-bench.test";
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
