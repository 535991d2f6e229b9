// Each insight tile's answer, loaded through the region request the dashboard hands out for
// it, all tiles at once (the region's per-project limit queues the rest, api/region-request.ts),
// each with its own loading, ready or failed state. A tile loads again when its request changes
// (the dashboard's date range or filters did), when the environment changes, or on refresh;
// moving a tile loads nothing.
import { useEffect, useRef, useState } from "preact/hooks";
import type { DashboardTileDto } from "../../api/dashboard-types.ts";
import type { QueryAnswer } from "../../api/query-types.ts";
import type { RegionAccess } from "../../hooks/use-region.ts";
import { isAbort, regionQueriesAtOnceMax, sendRegionRequest, TaskQueue } from "../../api/region-request.ts";

export type TileResult =
  | { status: "loading" }
  | { status: "ready"; response: QueryAnswer }
  | { status: "failed"; error: unknown };

interface Loading {
  key: string;
  refreshes: number;
  controller: AbortController;
}

/**
 * `refreshes` counts the Refresh button's presses: each one reloads every tile and asks the
 * region to compute again rather than answer from its cache.
 */
export function useTileResults(tiles: readonly DashboardTileDto[], region: RegionAccess, refreshes: number) {
  const [results, setResults] = useState<Record<string, TileResult>>({});
  /** Per tile, how often "Try again" was pressed: each press loads it again. */
  const [attempts, setAttempts] = useState<Record<string, number>>({});
  const loading = useRef(new Map<string, Loading>());
  const queue = useRef(new TaskQueue(regionQueriesAtOnceMax));

  useEffect(() => {
    const current = loading.current;
    const shown = new Set<string>();
    for (const tile of tiles) {
      if (!tile.request) continue;
      shown.add(tile.id);
      const key = JSON.stringify([region.environment, refreshes, attempts[tile.id] ?? 0, tile.request]);
      const previous = current.get(tile.id);
      if (previous?.key === key) continue;
      previous?.controller.abort();
      const controller = new AbortController();
      current.set(tile.id, { key, refreshes, controller });
      // Only a press of Refresh skips the region's cache; a tile new to the page need not.
      const body = previous && previous.refreshes !== refreshes ? { ...tile.request.body, refresh: true } : tile.request.body;
      const settle = (result: TileResult) => {
        if (current.get(tile.id)?.controller === controller) setResults((all) => ({ ...all, [tile.id]: result }));
      };
      settle({ status: "loading" });
      sendRegionRequest<QueryAnswer>(region.tokens, { ...tile.request, body }, { signal: controller.signal, queue: queue.current }).then(
        (response) => settle({ status: "ready", response }),
        (error: unknown) => !isAbort(error) && settle({ status: "failed", error }),
      );
    }
    for (const [id, { controller }] of current) {
      if (shown.has(id)) continue;
      controller.abort();
      current.delete(id);
    }
  }, [tiles, region.tokens, region.environment, refreshes, attempts]);

  // Leaving the page stops what is still loading.
  useEffect(() => () => loading.current.forEach(({ controller }) => controller.abort()), []);
  const retry = (tileId: string) => setAttempts((all) => ({ ...all, [tileId]: (all[tileId] ?? 0) + 1 }));
  return { results: results as Readonly<Record<string, TileResult>>, retry };
}
