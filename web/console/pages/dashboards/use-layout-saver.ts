// Where the tiles are shown, and saving where they were put. A dropped tile (or a key press)
// shows its new place at once and is saved with POST …/layout, listing only the tiles that
// moved. Saves go one at a time: a change made while one is under way is sent when it ends,
// with the latest arrangement (so quick key presses make few requests). A save the API refuses
// puts every tile back where the API last said it was, and the error is shown.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { DashboardDto, DashboardTileDto, TileLayout } from "../../api/dashboard-types.ts";
import { changedPositions, type Layouts } from "./grid-layout.ts";

const layoutsOf = (tiles: readonly DashboardTileDto[]): Layouts => Object.fromEntries(tiles.map((tile) => [tile.id, tile.layout]));

export interface LayoutSaver {
  /** Each tile's place as shown. */
  layouts: Layouts;
  saving: boolean;
  /** The last save's refusal, until the next change. */
  error: unknown;
  commit(next: Layouts): void;
  dismissError(): void;
}

export function useLayoutSaver(
  tiles: readonly DashboardTileDto[],
  save: (positions: ({ id: string } & TileLayout)[]) => Promise<DashboardDto>,
  onSaved: (dashboard: DashboardDto) => void,
): LayoutSaver {
  const stored = useMemo(() => layoutsOf(tiles), [tiles]);
  /** What the API holds, as far as this page knows (updated by each save's answer at once). */
  const confirmed = useRef(stored);
  useEffect(() => {
    confirmed.current = stored;
  }, [stored]);
  /** The arrangement still to save; null once saved (or refused). */
  const pending = useRef<Layouts | null>(null);
  const running = useRef(false);
  const [wanted, setWanted] = useState<Layouts | null>(null);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const flush = async () => {
    if (running.current) return;
    running.current = true;
    setSaving(true);
    try {
      while (pending.current) {
        const target = pending.current;
        const moved = changedPositions(confirmed.current, target);
        try {
          if (moved.length > 0) {
            const answer = await save(moved);
            confirmed.current = layoutsOf(answer.tiles);
            onSaved(answer);
          }
          if (pending.current === target) pending.current = null;
        } catch (failure) {
          pending.current = null;
          setError(failure);
        }
      }
    } finally {
      running.current = false;
      setSaving(false);
      setWanted(null);
    }
  };

  const commit = (next: Layouts) => {
    pending.current = next;
    setWanted(next);
    setError(null);
    void flush();
  };

  // Tiles added or removed meanwhile keep their stored places; a wanted place counts only for a tile still here.
  const layouts = useMemo(() => {
    if (!wanted) return stored;
    return Object.fromEntries(Object.entries(stored).map(([id, layout]) => [id, wanted[id] ?? layout]));
  }, [stored, wanted]);

  return { layouts, saving, error, commit, dismissError: () => setError(null) };
}
