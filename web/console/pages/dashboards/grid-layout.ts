// The dashboard grid's rules as the control plane checks them (docs/dashboards.md, "The grid"):
// 12 columns, 1,000 rows, tiles 1-12 columns wide and 1-50 rows high, never overlapping. A
// tile moved or resized onto others pushes them down (and those push the ones below them), so
// every arrangement the console offers is one the API accepts.
import type { TileLayout } from "../../api/dashboard-types.ts";

export const gridColumns = 12;
export const gridRowsMax = 1000;
export const tileHeightMax = 50;

export type Layouts = Readonly<Record<string, TileLayout>>;

export const overlaps = (a: TileLayout, b: TileLayout) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

export const sameLayout = (a: TileLayout | undefined, b: TileLayout | undefined) => !!a && !!b && a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;

const clampTo = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);

/** Keeps a size within the grid: 1-12 columns, 1-50 rows. */
export function clampSize(layout: TileLayout): TileLayout {
  const w = clampTo(layout.w, 1, gridColumns - layout.x);
  const h = clampTo(layout.h, 1, Math.min(tileHeightMax, gridRowsMax - layout.y));
  return { ...layout, w, h };
}

/** Keeps a position within the grid for the tile's size. */
export function clampPosition(layout: TileLayout): TileLayout {
  return { ...layout, x: clampTo(layout.x, 0, gridColumns - layout.w), y: clampTo(layout.y, 0, gridRowsMax - layout.h) };
}

/**
 * The arrangement with tile `id` at `target`: tiles it now covers move down below it, in
 * reading order, and push the tiles they land on in turn. Null when that would push a tile
 * past the grid's last row. Tiles not in the way keep their places.
 */
export function arrange(layouts: Layouts, id: string, target: TileLayout): Record<string, TileLayout> | null {
  const placed: [string, TileLayout][] = [[id, target]];
  const others = Object.entries(layouts)
    .filter(([other]) => other !== id)
    .sort(([aId, a], [bId, b]) => a.y - b.y || a.x - b.x || aId.localeCompare(bId));
  for (const [other, layout] of others) {
    let y = layout.y;
    for (;;) {
      const here = { ...layout, y };
      const blocking = placed.filter(([, taken]) => overlaps(taken, here));
      if (blocking.length === 0) break;
      y = Math.max(...blocking.map(([, taken]) => taken.y + taken.h));
    }
    if (y + layout.h > gridRowsMax) return null;
    placed.push([other, { ...layout, y }]);
  }
  return Object.fromEntries(placed);
}

/** The tiles whose place differs between two arrangements, as the layout route takes them. */
export function changedPositions(before: Layouts, after: Layouts): ({ id: string } & TileLayout)[] {
  return Object.entries(after)
    .filter(([id, layout]) => before[id] !== undefined && !sameLayout(before[id], layout))
    .map(([id, layout]) => ({ id, ...layout }));
}

export type KeyboardChange = { kind: "move" | "resize"; dx: number; dy: number };

const arrowSteps: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** An arrow key moves a tile by a cell; with Shift it resizes the tile instead. */
export function keyboardChange(key: string, shift: boolean): KeyboardChange | null {
  const step = arrowSteps[key];
  return step ? { kind: shift ? "resize" : "move", dx: step[0], dy: step[1] } : null;
}

/** Where a change puts a tile (within the grid), or null when it cannot go further. */
export function applyChange(layout: TileLayout, change: KeyboardChange): TileLayout | null {
  const next =
    change.kind === "move"
      ? clampPosition({ ...layout, x: layout.x + change.dx, y: layout.y + change.dy })
      : clampSize({ ...layout, w: layout.w + change.dx, h: layout.h + change.dy });
  return sameLayout(next, layout) ? null : next;
}
