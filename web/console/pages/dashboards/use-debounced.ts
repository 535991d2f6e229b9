// A value that follows another once it has stopped changing for a moment: a search box asks
// the API when the person pauses typing, not at every key.
import { useEffect, useState } from "preact/hooks";

/** How long typing must pause before a search is sent. */
export const searchPauseMs = 250;

export function useDebounced<T>(value: T, delayMs = searchPauseMs): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
