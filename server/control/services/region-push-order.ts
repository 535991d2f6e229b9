// What every control-plane copy pushed into regions (revenue integrations, findings
// configuration) needs to stay right: each region's pushes of one kind run one after another,
// and the regions that missed a push are remembered until a whole-set push reconciles them.
import { isNull } from "drizzle-orm";
import type { RegionCode } from "../../config.ts";
import type { ControlContext } from "../context.ts";
import { projects } from "../db/schema.ts";

/**
 * A queue per region: a push reads the rows it sends only when its turn comes, so a whole-set
 * push that read the rows before a change can never land after that change's own push and
 * bring the old state back. One queue per kind of copy (each caller makes its own).
 */
export function regionPushQueue(): <T>(ctx: ControlContext, region: string, work: () => Promise<T>) => Promise<T> {
  const queues = new WeakMap<ControlContext, Map<string, Promise<unknown>>>();
  return <T>(ctx: ControlContext, region: string, work: () => Promise<T>): Promise<T> => {
    let regions = queues.get(ctx);
    if (!regions) queues.set(ctx, (regions = new Map()));
    // A turn that failed (its caller saw the error) does not stop the ones after it.
    const turn = (regions.get(region) ?? Promise.resolve()).catch(() => undefined).then(work);
    regions.set(region, turn);
    return turn;
  };
}

/**
 * The regions whose copy may be stale (a push that did not reach them), per kind of copy. At
 * start-up every region with a live project is in it once: a push missed before this process
 * stopped is known to no one else.
 */
export function regionsToReconcile(): (ctx: ControlContext) => Set<string> {
  const sets = new WeakMap<ControlContext, Set<string>>();
  return (ctx) => {
    let regions = sets.get(ctx);
    if (!regions) {
      const live = ctx.db.selectDistinct({ region: projects.region }).from(projects).where(isNull(projects.deletedAt)).all();
      regions = new Set(live.map(({ region }) => region).filter((region) => ctx.regions.has(region as RegionCode)));
      sets.set(ctx, regions);
    }
    return regions;
  };
}
