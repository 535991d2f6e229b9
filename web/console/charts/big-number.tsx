// The `number` display: each series' total over the range, the first one large.
import type { SeriesSet } from "./series-set.ts";

export function BigNumber({ set, compact }: { set: SeriesSet; compact?: boolean }) {
  const [first, ...rest] = set.series;
  if (!first) return null;
  return (
    <div class={compact ? "big-number big-number-compact" : "big-number"}>
      <p class="big-number-value">{first.total === null ? "–" : first.format(first.total)}</p>
      <p class="big-number-label">{first.name}</p>
      {rest.length > 0 && (
        <dl class="big-number-others">
          {rest.map((series) => (
            <div key={series.key} class="big-number-other">
              <dt>{series.name}</dt>
              <dd>{series.total === null ? "–" : series.format(series.total)}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}
