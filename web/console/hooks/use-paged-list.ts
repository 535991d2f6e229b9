// A listing read a page at a time with the region's cursors: the first page loads when the
// inputs change, "Load more" appends the next. An answer that arrives after the inputs changed
// is dropped. A filtered listing may answer a short or even empty page with a cursor to go on
// from (the region examines a bounded number of rows per request); only a null cursor ends it.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { Page } from "../api/persons-api.ts";

export type PagedList<T> =
  | { status: "loading" }
  | { status: "failed"; error: unknown }
  | {
      status: "ready";
      items: T[];
      /** More pages to read. */
      more: boolean;
      loadingMore: boolean;
      /** Why the last "Load more" failed; it can be tried again. */
      moreError: unknown;
    };

export interface PagedListControls<T> {
  list: PagedList<T>;
  loadMore(): void;
  reload(): void;
  /** Replaces the items already shown (after a change the page made itself). */
  update(change: (items: T[]) => T[]): void;
}

export function usePagedList<T>(loadPage: (cursor: string | null) => Promise<Page<T>>, inputs: readonly unknown[]): PagedListControls<T> {
  const [list, setList] = useState<PagedList<T>>({ status: "loading" });
  const cursor = useRef<string | null>(null);
  const generation = useRef(0);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const current = ++generation.current;
    setList({ status: "loading" });
    loadPage(null).then(
      (page) => {
        if (current !== generation.current) return;
        cursor.current = page.next_cursor;
        setList({ status: "ready", items: page.results, more: page.next_cursor !== null, loadingMore: false, moreError: null });
      },
      (error: unknown) => current === generation.current && setList({ status: "failed", error }),
    );
    // `loadPage` is a new function each render; what it reads is listed in `inputs`.
  }, [...inputs, attempt]);

  const loadMore = () => {
    if (list.status !== "ready" || !list.more || list.loadingMore) return;
    const current = generation.current;
    setList({ ...list, loadingMore: true, moreError: null });
    loadPage(cursor.current).then(
      (page) => {
        if (current !== generation.current) return;
        cursor.current = page.next_cursor;
        setList((shown) => shown.status === "ready" ? { ...shown, items: [...shown.items, ...page.results], more: page.next_cursor !== null, loadingMore: false } : shown);
      },
      (error: unknown) => {
        if (current !== generation.current) return;
        setList((shown) => shown.status === "ready" ? { ...shown, loadingMore: false, moreError: error } : shown);
      },
    );
  };

  const reload = useCallback(() => setAttempt((count) => count + 1), []);
  const update = (change: (items: T[]) => T[]) => setList((shown) => shown.status === "ready" ? { ...shown, items: change(shown.items) } : shown);
  return { list, loadMore, reload, update };
}
