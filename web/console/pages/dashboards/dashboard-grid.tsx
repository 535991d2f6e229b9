// The dashboard's tiles on the grid, each at its stored place (x, y, w, h on 12 columns). A
// tile is moved by dragging its header and resized by dragging its corner (pointer events, so
// mouse, pen and touch alike), or from the keyboard: a focused tile moves with the arrow keys
// and resizes with Shift and the arrow keys. The new place shows while dragging, tiles in the
// way move down, and it is saved when dropped (use-layout-saver.ts). Places are set through
// CSS custom properties, never a style attribute, as the Content-Security-Policy requires.
import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import type { DashboardTileDto, TileLayout } from "../../api/dashboard-types.ts";
import { applyChange, arrange, clampPosition, clampSize, keyboardChange, sameLayout, type Layouts } from "./grid-layout.ts";

export type TileState = "loading" | "ready" | "failed";

export interface GridTile {
  tile: DashboardTileDto;
  /** The tile's accessible name, e.g. the insight's name. */
  label: string;
  state: TileState;
  /** The header's content beside the drag area: the title and the tile's buttons. */
  header: ComponentChildren;
  children: ComponentChildren;
}

interface DashboardGridProps {
  tiles: readonly GridTile[];
  layouts: Layouts;
  saving: boolean;
  /** Whether tiles may be moved (people who can change the dashboard). */
  editable: boolean;
  onCommit(next: Layouts): void;
}

interface Drag {
  id: string;
  mode: "move" | "resize";
  pointerId: number;
  startX: number;
  startY: number;
  start: TileLayout;
  columnPitch: number;
  rowPitch: number;
}

/** Below this width the grid is one column of tiles in reading order, and is not rearranged. */
const stackedQuery = "(max-width: 820px)";

function gridPitch(grid: HTMLElement): { columnPitch: number; rowPitch: number } {
  const style = getComputedStyle(grid);
  const columnGap = parseFloat(style.columnGap) || 0;
  const rowGap = parseFloat(style.rowGap) || 0;
  const rowHeight = parseFloat(style.gridAutoRows) || 56;
  return { columnPitch: (grid.clientWidth + columnGap) / 12, rowPitch: rowHeight + rowGap };
}

const describePlace = (layout: TileLayout) => `column ${layout.x + 1}, row ${layout.y + 1}, ${layout.w} columns wide and ${layout.h} rows high`;

export function DashboardGrid({ tiles, layouts, saving, editable, onCommit }: DashboardGridProps) {
  const grid = useRef<HTMLDivElement>(null);
  const drag = useRef<Drag | null>(null);
  const [preview, setPreviewState] = useState<Layouts | null>(null);
  // Read by the pointer handlers, which may run before the preview's render.
  const previewRef = useRef<Layouts | null>(null);
  const setPreview = (next: Layouts | null) => {
    previewRef.current = next;
    setPreviewState(next);
  };
  const [draggingId, setDraggingId] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const shown = preview ?? layouts;

  const startDrag = (event: PointerEvent, id: string, mode: Drag["mode"]) => {
    if (!editable || event.button !== 0 || !grid.current || matchMedia(stackedQuery).matches) return;
    // The header's links and buttons keep their own clicks.
    if (mode === "move" && (event.target as Element).closest("a, button, input, select, textarea")) return;
    const start = layouts[id];
    if (!start) return;
    event.preventDefault();
    (event.currentTarget as Element).setPointerCapture(event.pointerId);
    drag.current = { id, mode, pointerId: event.pointerId, startX: event.clientX, startY: event.clientY, start, ...gridPitch(grid.current) };
    setDraggingId(id);
    setPreview(layouts);
  };

  const moveDrag = (event: PointerEvent) => {
    const current = drag.current;
    if (!current || event.pointerId !== current.pointerId) return;
    const dx = Math.round((event.clientX - current.startX) / current.columnPitch);
    const dy = Math.round((event.clientY - current.startY) / current.rowPitch);
    const { start } = current;
    const target = current.mode === "move" ? clampPosition({ ...start, x: start.x + dx, y: start.y + dy }) : clampSize({ ...start, w: start.w + dx, h: start.h + dy });
    const arranged = arrange(layouts, current.id, target);
    if (arranged) setPreview(arranged);
  };

  const endDrag = (event: PointerEvent, keep: boolean) => {
    const current = drag.current;
    if (!current || event.pointerId !== current.pointerId) return;
    drag.current = null;
    setDraggingId(null);
    const next = previewRef.current;
    setPreview(null);
    if (keep && next && !sameLayout(next[current.id], layouts[current.id])) {
      onCommit(next);
      setAnnouncement(`Tile placed at ${describePlace(next[current.id]!)}.`);
    }
  };

  const onKeyDown = (event: KeyboardEvent, id: string) => {
    if (event.key === "Escape" && drag.current) {
      drag.current = null;
      setDraggingId(null);
      setPreview(null);
      return;
    }
    if (!editable || event.target !== event.currentTarget || event.altKey || event.ctrlKey || event.metaKey) return;
    const change = keyboardChange(event.key, event.shiftKey);
    const layout = layouts[id];
    if (!change || !layout) return;
    event.preventDefault();
    const target = applyChange(layout, change);
    const arranged = target && arrange(layouts, id, target);
    if (!arranged) {
      setAnnouncement(`The tile cannot ${change.kind === "move" ? "move" : "grow or shrink"} further that way.`);
      return;
    }
    onCommit(arranged);
    setAnnouncement(`Tile ${change.kind === "move" ? "moved" : "resized"}: ${describePlace(target)}.`);
  };

  return (
    <>
      <p id="tile-keys-help" class="visually-hidden">
        {editable ? "Arrow keys move the tile by one cell; Shift with the arrow keys resizes it. Drag the header to move it, or the corner to resize it." : ""}
      </p>
      <div ref={grid} class="dashboard-grid" aria-busy={saving ? "true" : undefined} data-layout-state={saving ? "saving" : "idle"}>
        {tiles.map(({ tile, label, state, header, children }) => {
          const layout = shown[tile.id] ?? tile.layout;
          const dragging = draggingId === tile.id;
          return (
            <article
              key={tile.id}
              class={`tile tile-${tile.kind}${dragging ? " tile-dragging" : ""}${editable ? " tile-editable" : ""}`}
              data-tile-id={tile.id}
              data-tile-state={state}
              tabIndex={0}
              aria-label={label}
              aria-describedby={editable ? "tile-keys-help" : undefined}
              style={{ "--tile-x": `${layout.x + 1}`, "--tile-y": `${layout.y + 1}`, "--tile-w": `${layout.w}`, "--tile-h": `${layout.h}` }}
              onKeyDown={(event) => onKeyDown(event, tile.id)}
            >
              <header
                class="tile-header"
                onPointerDown={(event) => startDrag(event, tile.id, "move")}
                onPointerMove={moveDrag}
                onPointerUp={(event) => endDrag(event, true)}
                onPointerCancel={(event) => endDrag(event, false)}
              >
                {header}
              </header>
              <div class="tile-content">{children}</div>
              {editable && (
                <div
                  class="tile-resize"
                  aria-hidden="true"
                  title="Drag to resize"
                  onPointerDown={(event) => startDrag(event, tile.id, "resize")}
                  onPointerMove={moveDrag}
                  onPointerUp={(event) => endDrag(event, true)}
                  onPointerCancel={(event) => endDrag(event, false)}
                />
              )}
            </article>
          );
        })}
      </div>
      <p class="visually-hidden" role="status" aria-live="polite">{announcement}</p>
    </>
  );
}
