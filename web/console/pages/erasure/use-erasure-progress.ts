// Follows an erasure request until it ends: asks the console API for it again every
// erasurePollMs while it is pending or running, so the page shows the region's progress.
import { useEffect, useState } from "preact/hooks";
import { getErasure, isEnded, type ErasureRequest } from "../../api/erasure-api.ts";

/** How often an open request is read again. */
export const erasurePollMs = 1_000;

export function useErasureProgress(initial: ErasureRequest): { request: ErasureRequest; error: unknown } {
  const [request, setRequest] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (isEnded(request)) return;
    const timer = setTimeout(() => {
      getErasure(request.project_id, request.id).then(
        (next) => {
          setError(null);
          setRequest(next);
        },
        // Shown beside the last known state; the next poll tries again.
        (failure: unknown) => {
          setError(failure);
          setRequest({ ...request });
        },
      );
    }, erasurePollMs);
    return () => clearTimeout(timer);
  }, [request]);
  return { request, error };
}
