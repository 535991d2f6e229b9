import { errorResponse, unavailable, type ApiError } from "./errors.ts";

/**
 * Answers 503 `unavailable` when the handler has not answered within `timeoutMs`; `render`
 * shapes the error as the surface does (ingest uses its own body and CORS headers).
 */
export async function withTimeout(
  work: Promise<Response>,
  timeoutMs: number,
  render: (error: ApiError) => Response = errorResponse,
): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<Response>((resolve) => {
    timer = setTimeout(() => resolve(render(unavailable(`request timed out after ${Math.round(timeoutMs / 1000)} s`))), timeoutMs);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
