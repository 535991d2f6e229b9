// Small pieces the flag and experiment pages share.
import type { ComponentChildren } from "preact";
import type { ProjectDto } from "../../api/types.ts";
import { formatRelative } from "../../format/date-time.ts";
import type { PublicationState } from "./publication-status.ts";

/** The project's environment names, the default (production) first. */
export const orderedEnvironments = (project: ProjectDto) =>
  [...project.environments].sort((a, b) => Number(b.is_default) - Number(a.is_default)).map(({ name }) => name);

export function TagList({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return <span class="text-subtle">—</span>;
  return (
    <ul class="tag-list" aria-label="Tags">
      {tags.map((tag) => <li key={tag} class="tag">{tag}</li>)}
    </ul>
  );
}

/** A problem shown beside the control it is about. */
export function InlineProblems({ messages }: { messages: readonly string[] }) {
  if (messages.length === 0) return null;
  return (
    <div class="inline-problems" role="alert">
      {messages.map((message) => <p key={message}>{message}</p>)}
    </div>
  );
}

export function PublicationBadge({ state, environment }: { state: PublicationState; environment: string }) {
  const line = (tone: string, text: ComponentChildren, detail?: ComponentChildren) => (
    <div class={`publication publication-${tone}`} role="status" aria-label={`Publication to the region (${environment})`}>
      <span class={`status status-${tone}`}>{text}</span>
      {detail && <span class="publication-detail">{detail}</span>}
    </div>
  );
  switch (state.status) {
    case "published":
      return line("ok", "Published to the region", <>snapshot v{state.version}, <time dateTime={state.at} title={state.at}>{formatRelative(state.at)}</time></>);
    case "pending":
      return line("pending", "Pending", `snapshot v${state.version} is recorded but the region has not taken it yet; it is pushed again on the next sync`);
    case "failed":
      return line("failed", "Publication failed", `snapshot v${state.version}: ${state.error}`);
    case "archived":
      return line("muted", "Archived: no longer served");
    default:
      return line("muted", "Not published yet");
  }
}
