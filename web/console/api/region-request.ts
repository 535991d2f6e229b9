// Sends a region request the control plane handed out (a dashboard tile's `request`:
// `{method, url: "{region_api_url}/query", body}`, docs/dashboards.md) with the console's
// region token. The region runs at most 2 queries of a project at once and answers the third
// 429 with Retry-After (docs/query-ir.md, Limits), so requests wait their turn here rather than
// being refused, and a 429 caused by another tab is retried after the time the region asks.
import { ApiError, errorFromResponse } from "./errors.ts";
import type { RegionTokenSource } from "./region-token.ts";

/** The region's limit of concurrent queries per project (docs/query-ir.md, Limits). */
export const regionQueriesAtOnceMax = 2;
/** How often a request the region found busy (429) is sent again before its error is shown. */
export const busyRetriesMax = 4;
/** The wait before a retry when the region names none, and the longest wait taken. */
const busyRetryDefaultMs = 1_000;
const busyRetryMaxMs = 5_000;

export interface HandedOutRequest {
  method: string;
  url: string;
  body: unknown;
}

/** Runs at most `limit` tasks at once, the rest in the order they came. */
export class TaskQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

const abortError = () => new DOMException("The request was cancelled", "AbortError");

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(abortError())), { once: true });
  });

const retryAfterMs = (response: Response) => {
  const seconds = Number(response.headers.get("Retry-After"));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, busyRetryMaxMs) : busyRetryDefaultMs;
};

/**
 * The request's JSON answer. Its URL must be under the token's region API URL (the control
 * plane builds both from the same base); anything else is refused rather than sent the token.
 */
export async function sendRegionRequest<T>(tokens: RegionTokenSource, request: HandedOutRequest, options: { signal?: AbortSignal; queue?: TaskQueue } = {}): Promise<T> {
  const { signal, queue } = options;
  const send = async () => {
    for (let attempt = 0; ; attempt++) {
      const { region_api_url: base } = await tokens.get();
      if (!request.url.startsWith(`${base}/`)) throw new ApiError(0, "wrong_region", `the request is for ${request.url}, outside this project's region API`);
      const response = await tokens.fetch(request.url.slice(base.length), {
        method: request.method,
        headers: { Accept: "application/json", "Content-Type": "application/json" },
        body: JSON.stringify(request.body),
        signal,
      });
      if (response.status === 429 && attempt < busyRetriesMax) {
        await response.body?.cancel();
        await pause(retryAfterMs(response), signal);
        continue;
      }
      if (!response.ok) throw await errorFromResponse(response);
      return (await response.json()) as T;
    }
  };
  return queue ? queue.run(() => (signal?.aborted ? Promise.reject(abortError()) : send())) : send();
}

export const isAbort = (error: unknown) => error instanceof DOMException && error.name === "AbortError";
