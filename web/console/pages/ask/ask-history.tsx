// The person's own conversations with Ask in this project (GET /ask/conversations), newest
// first, beside the thread; one opens it, "New conversation" starts another.
import type { ConversationSummary } from "../../api/ask-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime, formatRelative } from "../../format/date-time.ts";
import type { Resource } from "../../hooks/use-resource.ts";
import { paths } from "../../paths.ts";
import { LinkButton } from "../../ui/button.tsx";
import { PlusIcon } from "../../ui/icons.tsx";
import { Loaded } from "../../ui/states.tsx";

interface HistoryProps {
  project: ProjectDto;
  conversations: Resource<{ conversations: ConversationSummary[] }>;
  current: string | null;
  onRetry(): void;
}

export function AskHistory({ project, conversations, current, onRetry }: HistoryProps) {
  return (
    <aside class="card ask-history" aria-label="Conversations">
      <div class="ask-history-head">
        <h2 class="ask-history-title">Conversations</h2>
        <LinkButton small href={paths.ask(project.id)}><PlusIcon /> New</LinkButton>
      </div>
      <Loaded resource={conversations} what="the conversations" onRetry={onRetry}>
        {({ conversations: list }) =>
          list.length === 0 ? (
            <p class="findings-note">Your questions are kept here.</p>
          ) : (
            <ul class="ask-history-list">
              {[...list].sort((a, b) => b.updated_at.localeCompare(a.updated_at)).map((conversation) => (
                <li key={conversation.id}>
                  <a class="ask-history-item" href={paths.ask(project.id, conversation.id)} aria-current={conversation.id === current ? "page" : undefined}>
                    <span class="ask-history-name">{conversation.title}</span>
                    <span class="ask-history-meta" title={formatDateTime(conversation.updated_at, project.timezone)}>
                      {formatRelative(conversation.updated_at)} · {conversation.message_count} {conversation.message_count === 1 ? "message" : "messages"}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </aside>
  );
}
