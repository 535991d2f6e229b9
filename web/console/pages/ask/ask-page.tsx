// "Ask": questions about the project's data in plain language, answered by the region's
// POST /ask with a language model that runs queries for it (docs/ask.md). The thread shows each
// question and answer with what the answer stands on (ask-evidence.tsx); the conversation is
// kept in the URL (`conversation`), and the person's conversations are listed beside it.
// Everything from the data or the model (answers, event names, SQL) is shown as text.
import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { ask, getConversation, listConversations, questionCharsMax, type AskEvidence } from "../../api/ask-api.ts";
import { ApiError, describeError } from "../../api/errors.ts";
import type { ProjectDto } from "../../api/types.ts";
import { useRegion } from "../../hooks/use-region.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { ProjectScope } from "../../layouts/project-scope.tsx";
import { paths } from "../../paths.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { PageTitle } from "../../ui/page-title.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { AskEvidenceView } from "./ask-evidence.tsx";
import { AskHistory } from "./ask-history.tsx";

/** One question and its answer (null while it is asked). */
interface Exchange {
  key: string;
  question: string;
  answer: { text: string; evidence: AskEvidence; at: string } | null;
}

type Thread = { status: "loading" } | { status: "failed"; error: unknown } | { status: "ready"; conversationId: string | null; exchanges: Exchange[] };

function exchangesOf(messages: Awaited<ReturnType<typeof getConversation>>["messages"]): Exchange[] {
  const exchanges: Exchange[] = [];
  for (const message of messages) {
    if (message.role === "user") exchanges.push({ key: message.id, question: message.content, answer: null });
    else {
      const evidence: AskEvidence = { query: message.query, sql: message.sql, result: message.result, result_truncated: message.result_truncated, steps: message.steps };
      const last = exchanges.at(-1);
      const answer = { text: message.content, evidence, at: message.created_at };
      if (last && last.answer === null) last.answer = answer;
      else exchanges.push({ key: message.id, question: "", answer });
    }
  }
  return exchanges;
}

/**
 * The model cannot answer: none is configured (503, the message says how to configure one), it
 * cannot be reached or took too long (503), or it answered with an error (502). The region's
 * message says which.
 */
const isModelUnavailable = (error: unknown) => error instanceof ApiError && error.code === "unavailable";

function ExchangeView({ project, exchange, pending }: { project: ProjectDto; exchange: Exchange; pending: boolean }) {
  return (
    <li class="ask-exchange">
      {exchange.question !== "" && <p class="ask-question">{exchange.question}</p>}
      {exchange.answer === null ? (
        pending && <LoadingState label="Thinking: the model is querying your data…" />
      ) : (
        <article class="card ask-answer" aria-label="Answer">
          <p class="ask-answer-text">{exchange.answer.text}</p>
          <AskEvidenceView project={project} question={exchange.question} evidence={exchange.answer.evidence} at={exchange.answer.at} />
        </article>
      )}
    </li>
  );
}

function AskContent({ project }: { project: ProjectDto }) {
  const { query } = useRoute();
  const { route } = useLocation();
  const { tokens } = useRegion(project);
  const wanted = query.conversation || null;
  const [thread, setThread] = useState<Thread>({ status: "ready", conversationId: null, exchanges: [] });
  const [question, setQuestion] = useState("");
  const [asking, setAsking] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [conversations, reloadConversations] = useResource(() => listConversations(tokens), [tokens]);

  useEffect(() => {
    // The thread shown is already this conversation (the page just started it): nothing to read.
    if (thread.status === "ready" && thread.conversationId === wanted) return;
    setFailure(null);
    if (wanted === null) return setThread({ status: "ready", conversationId: null, exchanges: [] });
    let current = true;
    setThread({ status: "loading" });
    getConversation(tokens, wanted).then(
      (conversation) => current && setThread({ status: "ready", conversationId: conversation.id, exchanges: exchangesOf(conversation.messages) }),
      (error: unknown) => current && setThread({ status: "failed", error }),
    );
    return () => {
      current = false;
    };
  }, [wanted, tokens]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const asked = question.trim();
    if (asked === "" || asking || thread.status !== "ready") return;
    const pending: Exchange = { key: `pending-${Date.now()}`, question: asked, answer: null };
    const before = thread;
    setThread({ ...thread, exchanges: [...thread.exchanges, pending] });
    setAsking(true);
    setFailure(null);
    try {
      const answer = await ask(tokens, asked, thread.conversationId);
      const { query: ran, sql, result, result_truncated, steps } = answer;
      const done: Exchange = { key: answer.message_id, question: asked, answer: { text: answer.answer, evidence: { query: ran, sql, result, result_truncated, steps }, at: answer.created_at } };
      setThread({ status: "ready", conversationId: answer.conversation_id, exchanges: [...before.exchanges, done] });
      setQuestion("");
      reloadConversations();
      if (answer.conversation_id !== wanted) route(paths.ask(project.id, answer.conversation_id), true);
    } catch (error) {
      setThread(before);
      setFailure(error);
    } finally {
      setAsking(false);
    }
  };

  return (
    <div class="page ask-page">
      <PageTitle title="Ask">Ask about your data in plain language: the answer shows the query it ran, its result and the SQL it cites.</PageTitle>
      <div class="ask-layout">
        <section class="ask-main" aria-label="Conversation">
          {thread.status === "loading" && <LoadingState label="Loading the conversation…" />}
          {thread.status === "failed" && <ErrorState title="The conversation could not be loaded" error={thread.error} action={<a href={paths.ask(project.id)}>Start a new conversation</a>} />}
          {thread.status === "ready" && thread.exchanges.length > 0 && (
            <ol class="ask-thread">
              {thread.exchanges.map((exchange, index) => <ExchangeView key={exchange.key} project={project} exchange={exchange} pending={asking && index === thread.exchanges.length - 1} />)}
            </ol>
          )}
          {failure !== null &&
            (isModelUnavailable(failure) ? (
              <Alert tone="error">
                <strong>The language model is not available.</strong> {describeError(failure)}
              </Alert>
            ) : (
              <Alert tone="error">The question could not be answered: {describeError(failure)}</Alert>
            ))}
          {thread.status === "ready" && (
            <form class="card ask-form" onSubmit={submit}>
              <label class="field-label" for="ask-question">{thread.exchanges.length === 0 ? "Your question" : "Ask a follow-up"}</label>
              <textarea
                id="ask-question"
                class="input textarea"
                rows={3}
                maxLength={questionCharsMax}
                value={question}
                placeholder="How many people signed up each day last week?"
                onInput={(change) => setQuestion(change.currentTarget.value)}
                onKeyDown={(key) => {
                  if (key.key === "Enter" && (key.ctrlKey || key.metaKey)) void submit(key);
                }}
              />
              <div class="ask-form-foot">
                <span class="field-hint">{question.length} / {questionCharsMax} · Ctrl+Enter asks</span>
                <Button type="submit" variant="primary" busy={asking} disabled={question.trim() === ""}>Ask</Button>
              </div>
            </form>
          )}
        </section>
        <AskHistory project={project} conversations={conversations} current={thread.status === "ready" ? thread.conversationId : wanted} onRetry={reloadConversations} />
      </div>
    </div>
  );
}

export default function AskPage() {
  const { params } = useRoute();
  return <ProjectScope projectId={params.projectId!}>{(project) => <AskContent project={project} />}</ProjectScope>;
}
