// A button's action (not a form's): runs it once at a time and keeps what went wrong, for the
// dialog or row that started it to show.
import { useState } from "preact/hooks";

export interface Action<Args extends unknown[]> {
  busy: boolean;
  error: unknown;
  run(...args: Args): Promise<boolean>;
  reset(): void;
}

/** `run` answers whether the action succeeded; a failure is kept in `error`. */
export function useAction<Args extends unknown[]>(action: (...args: Args) => Promise<void>): Action<Args> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: Args) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, reset: () => setError(null) };
}
