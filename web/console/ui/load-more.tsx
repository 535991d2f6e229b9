// The foot of a listing read a page at a time: "Load more" while there are more pages, what
// went wrong with the last one (and trying again), or nothing once everything is shown.
import { describeError } from "../api/errors.ts";
import type { PagedListControls } from "../hooks/use-paged-list.ts";
import { Alert } from "./alert.tsx";
import { Button } from "./button.tsx";

export function LoadMore<T>({ controls, label = "Load more" }: { controls: PagedListControls<T>; label?: string }) {
  const { list, loadMore } = controls;
  if (list.status !== "ready" || !list.more) return null;
  return (
    <div class="load-more">
      {list.moreError !== null && <Alert tone="error">The next page could not be loaded: {describeError(list.moreError)}</Alert>}
      <Button onClick={loadMore} busy={list.loadingMore}>{list.moreError !== null ? "Try again" : label}</Button>
    </div>
  );
}
