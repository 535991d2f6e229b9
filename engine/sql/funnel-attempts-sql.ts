// A funnel's attempts as SQL, one CTE chain per order (the rules of kinds/funnel.ts). Each
// ends in `attempts`: one row per start (person, start time t0, breakdown value bv, reached
// step times `times`), with `dropped` telling whether an exclusion drops it. They read `ev`:
// the range's events that passed the global filters, with m<k> (the event is a step-k event)
// and x<e> (an exclusion-e event) per row, time t in epoch milliseconds.
//   ordered    built backwards: each step's times take the greedy chain of the later steps
//              from the earliest later event of the next step (an ASOF join on step times,
//              smallest first), so the many step-0 events meet one join, not one per step
//   strict     the steps of an attempt are consecutive instants of the person's events: one
//              sorted pass over the instants reads steps 1.. with lead()
//   unordered  every step's earliest time at or after each instant: running minimums in one
//              pass sorted by time descending
import type { Query } from "../ir/query.ts";
import type { Params } from "./params.ts";

export interface AttemptsSql {
  ctes: string[];
  /** Condition on an `attempts` row under which an exclusion drops it (null without exclusions). */
  dropped: string | null;
}

const stepNumbers = (steps: number) => Array.from({ length: steps }, (_, k) => k);

/** The reached step times of an attempt starting at `start`: the chain's times within the window (a prefix, as they increase). */
const reachedTimes = (chain: string[], start: string, window: string) => `list_filter([${chain.join(", ")}], time -> time <= ${start} + ${window})`;

/**
 * An exclusion drops an attempt that reached its from-step when its event (first time xt<e>
 * after that step) comes before the to-step, or, the to-step not reached, within the window.
 */
function droppedSql(query: Query, window: string): string | null {
  const conditions = query.funnel.exclusions.map(({ fromStep, toStep }, e) =>
    `(len(times) > ${fromStep} AND xt${e} IS NOT NULL AND CASE WHEN len(times) > ${toStep} THEN xt${e} < times[${toStep + 1}] ELSE xt${e} <= t0 + ${window} END)`);
  return conditions.length === 0 ? null : conditions.join(" OR ");
}

function orderedAttempts(query: Query, window: string): AttemptsSql {
  const steps = query.series.length;
  const exclusionsFrom = (k: number) => query.funnel.exclusions.map((exclusion, e) => ({ ...exclusion, e })).filter(({ fromStep }) => fromStep === k);
  const ctes = query.funnel.exclusions.map((_, e) => `excluded${e} AS (SELECT person, t FROM ev WHERE x${e})`);
  // chain<k>: each step-k event's time t<k>, the greedy times t<k+1>.. after it, and the first
  // time of each exclusion starting at step k after it. Step 0 keeps its breakdown values.
  for (let k = steps - 1; k >= 0; k--) {
    const later = stepNumbers(steps).filter((j) => j > k);
    const columns = [
      "s.person",
      ...(k === 0 ? ["s.bv"] : []),
      `s.t AS t${k}`,
      ...later.map((j) => `n.t${j}`),
      ...exclusionsFrom(k).map(({ e }) => `x${e}.t AS xt${e}`),
      ...later.flatMap((j) => exclusionsFrom(j).map(({ e }) => `n.xt${e}`)),
    ];
    const joins = [
      ...(k < steps - 1 ? [`ASOF LEFT JOIN chain${k + 1} n ON n.person = s.person AND n.t${k + 1} > s.t`] : []),
      ...exclusionsFrom(k).map(({ e }) => `ASOF LEFT JOIN excluded${e} x${e} ON x${e}.person = s.person AND x${e}.t > s.t`),
    ];
    const from = `(SELECT person, t${k === 0 ? ", bv" : ""} FROM ev WHERE m${k}) s`;
    // The last step has no later steps (and no exclusion starts there): its times alone.
    ctes.push(k === steps - 1
      ? `chain${k} AS (SELECT person, t AS t${k} FROM ev WHERE m${k})`
      : `chain${k} AS (\n  SELECT ${columns.join(", ")}\n  FROM ${from}${joins.map((join) => `\n  ${join}`).join("")}\n)`);
  }
  const exclusionTimes = query.funnel.exclusions.map((_, e) => `, xt${e}`).join("");
  ctes.push(`attempts AS (SELECT person, t0, bv, ${reachedTimes(stepNumbers(steps).map((k) => `t${k}`), "t0", window)} AS times${exclusionTimes} FROM chain0)`);
  return { ctes, dropped: droppedSql(query, window) };
}

function strictAttempts(query: Query, window: string, params: Params): AttemptsSql {
  const steps = query.series.length;
  const flags = [...stepNumbers(steps).map((k) => `bool_or(m${k}) AS m${k}`), ...query.funnel.exclusions.map((_, e) => `bool_or(x${e}) AS x${e}`)];
  // Step k of the attempt starting at an instant is the k-th next instant, when it holds a step-k event.
  const chain = stepNumbers(steps).map((k) => (k === 0 ? "t" : `CASE WHEN ${stepNumbers(k).map((j) => `lead(m${j + 1}, ${j + 1}) OVER w`).join(" AND ")} THEN lead(t, ${k}) OVER w END`));
  // The first exclusion time after from-step's instant: the earliest among the instants after it.
  const exclusionTimes = query.funnel.exclusions.map(({ fromStep }, e) =>
    `, min(CASE WHEN x${e} THEN t END) OVER (w ROWS BETWEEN ${params.add(fromStep + 1)} FOLLOWING AND UNBOUNDED FOLLOWING) AS xt${e}`).join("");
  return {
    ctes: [
      // One row per instant of a person's events: the steps and exclusions at it, and the smallest breakdown value of its step-0 events.
      `instants AS (SELECT person, t, ${flags.join(", ")}, min(bv) FILTER (WHERE m0) AS bv FROM ev GROUP BY person, t)`,
      `attempts AS (\n  SELECT person, t AS t0, bv, ${reachedTimes(chain, "t", window)} AS times${exclusionTimes}\n  FROM instants\n  WINDOW w AS (PARTITION BY person ORDER BY t)\n  QUALIFY m0\n)`,
    ],
    dropped: droppedSql(query, window),
  };
}

function unorderedAttempts(query: Query, window: string): AttemptsSql {
  const steps = query.series.length;
  // Ordered by time descending, the default frame (up to the current time, ties included) holds the events at or after it.
  const firsts = stepNumbers(steps).map((k) => `min(CASE WHEN m${k} THEN t END) OVER w`);
  // Only an event of some step starts an attempt (`ev` also holds events of a step's name that
  // failed its filters); QUALIFY keeps the window over every row.
  const isStep = stepNumbers(steps).map((k) => `m${k}`).join(" OR ");
  return {
    ctes: [`attempts AS (\n  SELECT person, t AS t0, bv, list_sort(${reachedTimes(firsts, "t", window)}) AS times\n  FROM ev\n  WINDOW w AS (PARTITION BY person ORDER BY t DESC)\n  QUALIFY ${isStep}\n)`],
    dropped: null,
  };
}

export function attemptsSql(query: Query, window: string, params: Params): AttemptsSql {
  switch (query.funnel.order) {
    case "strict":
      return strictAttempts(query, window, params);
    case "unordered":
      return unorderedAttempts(query, window);
    default:
      return orderedAttempts(query, window);
  }
}
