// One live event in a dialog: who and when, its properties as a key/value table, and the whole
// event as JSON on demand. Every value is text from ingest, shown as text.
import { useState } from "preact/hooks";
import type { LiveEvent, ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { WatchRecordingLink } from "../replays/person-recordings.tsx";
import { valueText } from "./event-values.ts";
import { FactList, type Fact } from "../../ui/fact-list.tsx";

type Entry = [string, unknown];

function Summary({ event, project }: { event: LiveEvent; project: ProjectDto }) {
  const timeZone = project.timezone;
  const place = [event.location?.city, event.location?.region, event.location?.country].filter(Boolean).join(", ");
  const facts: Fact[] = [
    ["Distinct ID", event.distinct_id],
    ["Person", event.person_id ?? "unknown"],
    ["Time", formatDateTime(event.timestamp, timeZone)],
    ["Received", formatDateTime(event.received_at, timeZone)],
    ["Library", event.lib ? `${event.lib.name} ${event.lib.version}` : "none"],
    [
      "Session",
      event.session_id === null ? "none" : (
        <>
          <span class="mono">{event.session_id}</span> <WatchRecordingLink project={project} sessionId={event.session_id} at={event.timestamp} />
        </>
      ),
    ],
    ["Location", place || "unknown"],
    ["UUID", event.uuid],
  ];
  return (
    <FactList facts={facts} />
  );
}

export function LiveEventDetail({ event, project, onClose }: { event: LiveEvent | null; project: ProjectDto; onClose(): void }) {
  const [raw, setRaw] = useState(false);
  const close = () => {
    setRaw(false);
    onClose();
  };
  const properties: Entry[] = event ? Object.entries(event.properties) : [];
  return (
    <Dialog open={event !== null} title="Event" onClose={close} wide footer={<Button onClick={close}>Close</Button>}>
      {event && (
        <>
          <p class="event-detail-name"><code>{event.event}</code></p>
          <Summary event={event} project={project} />
          <h3 class="section-subtitle">Properties</h3>
          <DataTable<Entry>
            caption="Properties of the event"
            columns={[
              { label: "Property", cell: ([key]) => <code class="cell-code">{key}</code> },
              { label: "Value", cell: ([, value]) => <span class="cell-value">{valueText(value)}</span> },
            ]}
            rows={properties}
            rowKey={([key]) => key}
            empty={<p class="muted-note">The event has no properties.</p>}
          />
          <div>
            <Button small onClick={() => setRaw(!raw)} aria-expanded={raw}>{raw ? "Hide raw JSON" : "Show raw JSON"}</Button>
          </div>
          {raw && <CodeBlock code={JSON.stringify(event, null, 2)} label="Raw event JSON" />}
        </>
      )}
    </Dialog>
  );
}
