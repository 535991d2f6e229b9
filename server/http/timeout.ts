import { errorResponse, unavailable } from "./errors.ts";

/** Answers 503 `unavailable` when the handler has not answered within `timeoutMs`. */
export async function withTimeout(work: Promise<Response>, timeoutMs: number): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<Response>((resolve) => {
    timer = setTimeout(
      () => resolve(errorResponse(unavailable(`request timed out after ${Math.round(timeoutMs / 1000)} s`))),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
