// Small pieces the messaging views share: a time shown relative (exact in its tooltip), a
// state as a coloured badge, and refreshing a view while something in it is still moving.
import { useEffect, useRef } from "preact/hooks";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";

/** How often a view with something in flight (a queued message, a pending delivery) reads it again. */
export const inFlightRefreshIntervalMs = 2_000;

const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function Time({ at, empty = "—" }: { at: string | null; empty?: string }) {
  if (at === null) return <>{empty}</>;
  return <time class="nowrap" dateTime={at} title={formatDateTime(at, timeZone)}>{formatRelative(at)}</time>;
}

export const exactTime = (at: string) => formatDateTime(at, timeZone);

type Tone = "success" | "warning" | "danger" | "muted" | "accent";

const tones: Record<string, Tone> = {
  paired: "success", ready: "success", open: "success", delivered: "success", read: "success", delivering: "success", ok: "success", accepted: "success",
  pending: "accent", queued: "accent", sending: "accent", sent: "accent", connecting: "accent", retrying: "warning", warming_up: "warning",
  rate_limited: "warning", no_receipts: "warning", warning: "warning", disconnected: "warning", closed: "muted", duplicate: "muted",
  failed: "danger", dead: "danger", refused: "danger", not_delivering: "danger", critical: "danger", suspended: "danger",
  retired: "muted", cancelled: "muted", started: "warning",
};

/** A state the gateway names, in words ("rate_limited" reads "rate limited"), coloured by what it means. */
export function StateBadge({ state }: { state: string }) {
  return <span class={`badge badge-${tones[state] ?? "muted"}`}>{state.replaceAll("_", " ")}</span>;
}

/** Calls `refresh` every `inFlightRefreshIntervalMs` while `active`. */
export function useRefreshWhile(active: boolean, refresh: () => void): void {
  // The latest `refresh` is called (it reads the view's current filter), without restarting the timer.
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => latest.current(), inFlightRefreshIntervalMs);
    return () => clearInterval(timer);
  }, [active]);
}

/** Rows read again replace the ones shown with the same id; new ones come first (lists are newest first). */
export function mergeFresh<Row extends { id: string }>(shown: Row[], fresh: Row[]): Row[] {
  const byId = new Map(fresh.map((row) => [row.id, row]));
  const known = new Set(shown.map((row) => row.id));
  return [...fresh.filter((row) => !known.has(row.id)), ...shown.map((row) => byId.get(row.id) ?? row)];
}
