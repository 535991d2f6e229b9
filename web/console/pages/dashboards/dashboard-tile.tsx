// What one tile shows in the grid: its header (the insight's name, linking to it, or "Text")
// with its buttons, and its body in the state it is in. An insight tile is loading, ready (its
// numbers, tile-body.tsx) or failed (the region's refusal, or why the dashboard's overrides
// leave it no query), each on its own; a text tile is its text, as plain text.
import type { DashboardTileDto } from "../../api/dashboard-types.ts";
import { describeError } from "../../api/errors.ts";
import type { ProjectDto } from "../../api/types.ts";
import { paths } from "../../paths.ts";
import { Button } from "../../ui/button.tsx";
import { AlertIcon, GripIcon, PencilIcon, XIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/states.tsx";
import { kindLabel } from "./dashboard-dialogs.tsx";
import type { GridTile, TileState } from "./dashboard-grid.tsx";
import { TileResult } from "./tile-result.tsx";
import type { TileResult as TileAnswer } from "./use-tile-results.ts";

interface TileActions {
  editable: boolean;
  onEditText(tile: DashboardTileDto): void;
  onRemove(tile: DashboardTileDto): void;
  onRetry(tile: DashboardTileDto): void;
}

const loadingResult: TileAnswer = { status: "loading" };

function TileFailure({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div class="tile-failure" role="alert">
      <AlertIcon />
      <p class="tile-failure-text">{message}</p>
      {onRetry && <Button small onClick={onRetry}>Try again</Button>}
    </div>
  );
}

function insightTile(project: ProjectDto, tile: DashboardTileDto, result: TileAnswer | undefined, actions: TileActions): GridTile {
  const insight = tile.insight!;
  const label = insight.name;
  let state: TileState;
  let body;
  if (!tile.request) {
    state = "failed";
    body = <TileFailure message={`This insight cannot run with the dashboard's date range and filters: ${tile.request_error ?? "no query"}`} />;
  } else {
    const current = result ?? loadingResult;
    state = current.status;
    if (current.status === "loading") {
      body = (
        <div class="tile-loading" role="status">
          <Spinner />
          <span>Loading…</span>
        </div>
      );
    } else if (current.status === "failed") {
      body = <TileFailure message={describeError(current.error)} onRetry={() => actions.onRetry(tile)} />;
    } else {
      body = <TileResult project={project} insight={insight} query={tile.request.body.query} response={current.response} />;
    }
  }
  return {
    tile,
    label,
    state,
    header: (
      <>
        <GripIcon />
        <div class="tile-heading">
          <a class="tile-title" href={paths.insight(project.id, insight.id)}>{insight.name}</a>
          <span class="tile-kind">{kindLabel(insight.query.insight.kind)}</span>
        </div>
        {actions.editable && (
          <button type="button" class="icon-button" aria-label={`Remove ${insight.name} from the dashboard`} title="Remove from the dashboard" onClick={() => actions.onRemove(tile)}>
            <XIcon />
          </button>
        )}
      </>
    ),
    children: body,
  };
}

function textTile(tile: DashboardTileDto, actions: TileActions): GridTile {
  return {
    tile,
    label: "Text",
    state: "ready",
    header: (
      <>
        <GripIcon />
        <div class="tile-heading">
          <span class="tile-kind">Text</span>
        </div>
        {actions.editable && (
          <>
            <button type="button" class="icon-button" aria-label="Edit text" title="Edit text" onClick={() => actions.onEditText(tile)}>
              <PencilIcon />
            </button>
            <button type="button" class="icon-button" aria-label="Remove text from the dashboard" title="Remove from the dashboard" onClick={() => actions.onRemove(tile)}>
              <XIcon />
            </button>
          </>
        )}
      </>
    ),
    // Markdown as written: text with its line breaks (white-space: pre-wrap), never markup.
    children: <p class="tile-text-body">{tile.body ?? ""}</p>,
  };
}

export function gridTile(project: ProjectDto, tile: DashboardTileDto, result: TileAnswer | undefined, actions: TileActions): GridTile {
  return tile.kind === "insight" && tile.insight ? insightTile(project, tile, result, actions) : textTile(tile, actions);
}
