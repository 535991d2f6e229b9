// Where the stream stands: connecting, live, reconnecting (with what went wrong), or stopped
// with a way to try again. Announced politely to screen readers as it changes.
import { describeError } from "../../api/errors.ts";
import { Button } from "../../ui/button.tsx";
import { Spinner } from "../../ui/states.tsx";
import type { LiveConnection } from "./use-live-events.ts";

export function LiveStatus({ connection, paused, onRetry }: { connection: LiveConnection; paused: boolean; onRetry(): void }) {
  switch (connection.status) {
    case "connecting":
      return <p class="live-status" role="status"><Spinner /> Connecting…</p>;
    case "live":
      return (
        <p class={paused ? "live-status live-status-paused" : "live-status live-status-live"} role="status">
          <span class="live-dot" aria-hidden="true" />
          {paused ? "Live, paused" : "Live"}
        </p>
      );
    case "reconnecting":
      return <p class="live-status live-status-trouble" role="status"><Spinner /> Reconnecting: {describeError(connection.error)}</p>;
    case "stopped":
      return (
        <div class="live-status live-status-trouble" role="alert">
          <span>Stopped: {describeError(connection.error)}</span>
          <Button small onClick={onRetry}>Reconnect</Button>
        </div>
      );
  }
}
