// The second page of the end-to-end replay test: @rrweb/replay as a customer's own player
// would use it, exposed to the test as two globals (built for the browser by the test).
import { Replayer } from "@rrweb/replay";

/** The page's document, typed by what this entry uses (the tests are type-checked without the DOM's types). */
const page = globalThis as unknown as { document: { getElementById(id: string): { replaceChildren(): void } | null } };
let replayer: Replayer | null = null;

Object.assign(globalThis, {
  /** Rebuilds the recording as it was at `offsetMs` from its start. */
  replayTo(events: { timestamp: number }[], offsetMs: number) {
    const root = page.document.getElementById("root")!;
    root.replaceChildren();
    replayer = new Replayer(events as never, { root: root as never, showWarning: false, mouseTail: false, triggerFocus: false });
    replayer.pause(offsetMs);
  },
  /** The document the replayer rebuilt. */
  replayedDocument: () => replayer!.iframe.contentDocument,
});
