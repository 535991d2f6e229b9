// The process the SIGKILL test kills: it queues the fixture finding for one webhook destination
// (the receiver at argv[3]) in the region.sqlite at argv[2], starts the runner with its real
// timers, and says so; the receiver never answers, so the attempt is in flight when it dies.
import { RegionStore } from "../../../storage/region-store.ts";
import { startFindingsDelivery } from "../../../server/findings/delivery/findings-delivery.ts";
import { destination, finding, project, projectId } from "./fixtures.ts";

const [path, url] = process.argv.slice(2) as [string, string];
const store = new RegionStore(path);
store.findingsConfig.upsert([project([destination({ id: "d-1", secret: url })])]);
const delivery = startFindingsDelivery(store, { timeoutMs: 600_000 });
delivery.outbox.enqueue(projectId, finding(), ["d-1"]);
console.log("queued");
// The runner's timers are unref'd: this keeps the process up until it is killed.
setInterval(() => {}, 1_000);
