// Loads something for a page and says where that stands: loading, ready or failed, with a way
// to load it again. An answer that arrives after the inputs changed is dropped.
import { useCallback, useEffect, useState } from "preact/hooks";

export type Resource<T> =
  | { status: "loading" }
  | { status: "ready"; data: T }
  | { status: "failed"; error: unknown };

export function useResource<T>(load: () => Promise<T>, inputs: readonly unknown[]): [Resource<T>, () => void] {
  const [resource, setResource] = useState<Resource<T>>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    setResource({ status: "loading" });
    load().then(
      (data) => current && setResource({ status: "ready", data }),
      (error: unknown) => current && setResource({ status: "failed", error }),
    );
    return () => {
      current = false;
    };
    // `load` is a new function each render; what it reads is listed in `inputs`.
  }, [...inputs, attempt]);
  const reload = useCallback(() => setAttempt((count) => count + 1), []);
  return [resource, reload];
}
