// The load of the SIGKILL crash tests: a real service process takes requests from concurrent
// senders and is killed with SIGKILL after a random number of acknowledged requests, then
// started again on the same data directory; requests that were not acknowledged are retried
// in the next round. What counts as acknowledged, and what is checked afterwards, is the test's.
import { spawnService, type ServiceProcess } from "./process.ts";
import { ConsoleClient } from "./client.ts";
import { strongPassword } from "./accounts.ts";

/** Deterministic per seed, so a failing run can be repeated (tests put the seed in their name). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 0x1_0000_0000;
  };
}

/** Signs up on the first process and makes an eu project; its production key. The process is killed if that fails (the rounds kill it otherwise). */
export async function crashTestKey(first: ServiceProcess, email: string): Promise<string> {
  try {
    const owner = new ConsoleClient(first.url);
    const signup = await owner.post("/app/auth/signup", { email, name: "Crash", password: strongPassword });
    const project = await owner.post(`/app/orgs/${signup.body.orgs[0].id}/projects`, { name: "Crash", region: "eu" });
    return project.body.public_keys[0].key as string;
  } catch (error) {
    first.child.kill("SIGKILL");
    throw error;
  }
}

export interface CrashRoundsOptions<Request> {
  env: Record<string, string>;
  /** The first process, already started (the test set up its account on it). */
  first: ServiceProcess;
  rounds: number;
  senders: number;
  /** A round's process is killed after between killAfterMin and killAfterMin + killAfterSpread acknowledged requests. */
  killAfterMin: number;
  killAfterSpread: number;
  /** A live server that refuses more requests than this in one round fails the test. */
  failuresWhileRunningMax: number;
  next: () => number;
  makeRequest: () => Request;
  /** Sends a request to the process at `baseUrl`; resolves once it is acknowledged, throws if it was not. */
  deliver: (baseUrl: string, request: Request) => Promise<void>;
}

/** Runs the rounds; resolves with the requests never acknowledged (the last round's failures). */
export async function runCrashRounds<Request>(options: CrashRoundsOptions<Request>): Promise<Request[]> {
  let unacknowledged: Request[] = [];
  let service: ServiceProcess | null = options.first;
  try {
    for (let round = 0; round < options.rounds; round++) {
      if (round > 0) service = await spawnService(options.env);
      const running: ServiceProcess = service!;
      const retries = unacknowledged;
      unacknowledged = [];
      const killAfter = options.killAfterMin + Math.floor(options.next() * options.killAfterSpread);
      let acknowledged = 0;
      let killed = false;
      let failuresWhileRunning = 0;
      let lastFailure = "";
      const kill = () => {
        killed = true;
        running.child.kill("SIGKILL");
      };
      const sender = async () => {
        while (!killed) {
          // A live server that keeps refusing is a failure, not something to wait out.
          if (failuresWhileRunning > options.failuresWhileRunningMax) {
            kill();
            throw new Error(`round ${round}: the running server refused ${failuresWhileRunning} requests; last: ${lastFailure}`);
          }
          const request = retries.pop() ?? options.makeRequest();
          try {
            await options.deliver(running.url, request);
            acknowledged++;
          } catch (error) {
            if (!killed) {
              failuresWhileRunning++;
              lastFailure = String(error);
            }
            unacknowledged.push(request);
          }
          if (!killed && acknowledged >= killAfter) kill();
        }
      };
      await Promise.all(Array.from({ length: options.senders }, sender));
      await running.child.exited;
      service = null;
    }
  } finally {
    if (service) {
      service.child.kill("SIGKILL");
      await service.child.exited;
    }
  }
  return unacknowledged;
}
