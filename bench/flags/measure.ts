// One measurement of one server: start it, pace the load at the target rate (with warm-up)
// while sampling its RSS, then optionally find the highest rate it answers, and stop it.
import { cpuMeter, sampleRssPeak, type CpuShares } from "../process-usage.ts";
import { paced, unpaced, type PacedResult, type UnpacedResult } from "./load.ts";
import type { ServiceProcess } from "../../test/helpers/process.ts";

export interface LoadSettings {
  rate: number;
  warmUpSeconds: number;
  seconds: number;
  maxInFlight: number;
  drainTimeoutMs: number;
  /** Closed-loop senders and seconds for the highest rate answered; 0 seconds skips it. */
  ceilingConnections: number;
  ceilingSeconds: number;
}

export interface Measurement {
  paced: PacedResult;
  /** Peak resident memory of the server process during the paced load. */
  peakRssBytes: number;
  /** CPU used during the paced load (warm-up included). */
  cpu: CpuShares;
  ceiling: UnpacedResult | null;
}

/** Measures `server` (already started and ready at `url`) and kills it afterwards. */
export async function measure(server: ServiceProcess, url: string, bodies: string[], settings: LoadSettings): Promise<Measurement> {
  const rssPeak = sampleRssPeak(server.child.pid);
  try {
    const cpuSince = cpuMeter(server.child.pid);
    const result = await paced({ url, bodies, ...settings });
    const cpu = cpuSince();
    rssPeak.stop();
    const ceiling = settings.ceilingSeconds > 0 ? await unpaced(url, bodies, settings.ceilingConnections, settings.ceilingSeconds) : null;
    return { paced: result, peakRssBytes: rssPeak.bytes(), cpu, ceiling };
  } finally {
    rssPeak.stop();
    server.child.kill("SIGKILL");
    await server.child.exited;
  }
}
