import { errorResponse, unavailable, type ApiError } from "./errors.ts";

/** When a client whose request timed out should try again (a 503 always says when: spec 2, Errors). */
export const timedOutRetryAfterSeconds = 5;

/**
 * Answers 503 `unavailable`, with Retry-After, when the handler has not answered within
 * `timeoutMs`; `render` shapes the error as the surface does (ingest: its own body and CORS).
 */
export async function withTimeout(
  work: Promise<Response>,
  timeoutMs: number,
  render: (error: ApiError) => Response = errorResponse,
): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<Response>((resolve) => {
    timer = setTimeout(() => resolve(render(unavailable(`request timed out after ${Math.round(timeoutMs / 1000)} s`, timedOutRetryAfterSeconds))), timeoutMs);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
