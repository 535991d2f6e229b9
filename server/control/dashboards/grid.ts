// The dashboard grid: 12 columns, rows downwards. A tile must fit inside the columns and end
// by the last row, and no two tiles may share a cell; a tile added without a position goes
// below everything else, full width for text and half width for an insight.
import { validation } from "../../http/errors.ts";
import { gridColumns, gridRowsMax, type Layout } from "./dashboard-schemas.ts";

export const insightTileSize = { w: 6, h: 5 } as const;
export const textTileSize = { w: 12, h: 2 } as const;

const overlaps = (a: Layout, b: Layout) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Checks one tile's position against the grid's bounds; `where` names it in the message. */
export function checkBounds(layout: Layout, where: string): void {
  if (layout.x + layout.w > gridColumns) throw validation(`${where}: x + w is ${layout.x + layout.w}; the grid has ${gridColumns} columns`);
  if (layout.y + layout.h > gridRowsMax) throw validation(`${where}: y + h is ${layout.y + layout.h}; the grid has ${gridRowsMax} rows`);
}

/** Checks a whole dashboard's layout: every tile in bounds and no two overlapping. */
export function checkLayout(tiles: { id: string; layout: Layout }[]): void {
  for (const tile of tiles) checkBounds(tile.layout, `tile ${tile.id}`);
  for (let i = 0; i < tiles.length; i++) {
    for (let j = i + 1; j < tiles.length; j++) {
      if (overlaps(tiles[i]!.layout, tiles[j]!.layout)) throw validation(`tiles ${tiles[i]!.id} and ${tiles[j]!.id} overlap`);
    }
  }
}

/** Where a new tile of this kind goes when no position is given: at the left, below every tile. */
export function placeBelow(existing: Layout[], kind: "insight" | "text"): Layout {
  const size = kind === "text" ? textTileSize : insightTileSize;
  const y = existing.reduce((bottom, layout) => Math.max(bottom, layout.y + layout.h), 0);
  return { x: 0, y, ...size };
}
