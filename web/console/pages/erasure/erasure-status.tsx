// An erasure request's state in words: waiting, the region's stage with how far it is, done,
// or why it failed. The stage names are the region's store names (docs/erasure.md).
import type { ErasureRequest } from "../../api/erasure-api.ts";
import { Spinner } from "../../ui/states.tsx";

const stageText = (stage: string) => stage.replaceAll("_", " ");

export function ErasureStatus({ request }: { request: ErasureRequest }) {
  if (request.status === "completed") return <span class="erasure-status erasure-completed">Completed</span>;
  if (request.status === "failed") return <span class="erasure-status erasure-failed">Failed: {request.error}</span>;
  const { progress } = request;
  return (
    <span class="erasure-status">
      <Spinner />
      {request.status === "pending" || progress === null ? "Waiting to start" : `Erasing ${stageText(progress.stage)}${progress.total > 0 ? ` (${progress.done} of ${progress.total})` : ""}`}
      {request.error && <span class="cell-sub">{request.error}</span>}
    </span>
  );
}
