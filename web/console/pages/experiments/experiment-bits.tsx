// Pieces the experiment pages share.
import type { ExperimentStatus } from "../../api/experiments-api.ts";

const statusLabels: Record<ExperimentStatus, string> = { draft: "Draft", running: "Running", stopped: "Stopped", shipped: "Shipped", archived: "Archived" };

export function StatusBadge({ status }: { status: ExperimentStatus }) {
  return <span class={`badge experiment-status experiment-status-${status}`}>{statusLabels[status]}</span>;
}
